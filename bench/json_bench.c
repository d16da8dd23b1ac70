/*
 * json_bench.c: micro-benchmark of json_arena_parse (+ arena_destroy)
 * against cJSON_ParseWithLengthOpts (+ cJSON_Delete) on one JSON file.
 * Prints the median time and MB/s of each parser over RUNS runs.
 *
 *   build/opt/bench/json_bench FILE [RUNS [copy|situ|cjson]]
 *
 * RUNS defaults to 9; without a parser name all three run, one block each.
 * Times depend on the malloc state the earlier blocks leave behind (glibc
 * raises its mmap and trim thresholds after large frees), so `make
 * bench-json` runs each parser in a process of its own.
 */
#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_parse.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 101

enum mode { MODE_COPY, MODE_SITU, MODE_CJSON };

static const char *const mode_names[] = { "copy", "situ", "cjson" };
static const char *const mode_labels[] = {
    "json_arena_parse+destroy",
    "json_arena_parse_in_situ+destroy",
    "cJSON_ParseWithLengthOpts+Delete",
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf) {
            buf[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/*
 * One timed json_arena_parse + arena_destroy, or json_arena_parse_in_situ
 * when situ is set (a writable copy of buf, refreshed before the timer
 * starts); negative on parse error.
 */
static double run_arena(const char *buf, char *situ, size_t len,
                        size_t *arena_bytes)
{
    struct arena a;
    struct err e;
    cJSON *root;
    double t0, t;
    int rc;

    if (situ)
        memcpy(situ, buf, len);
    t0 = now();
    arena_init(&a, 0);
    if (situ)
        rc = json_arena_parse_in_situ(&a, situ, len, 0, &root, &e);
    else
        rc = json_arena_parse(&a, buf, len, 0, &root, &e);
    if (rc < 0) {
        fprintf(stderr, "json_arena_parse: %s\n", e.msg);
        arena_destroy(&a);
        return -1;
    }
    *arena_bytes = a.total;
    arena_destroy(&a);
    t = now() - t0;
    return t;
}

/* One timed cJSON_ParseWithLengthOpts + cJSON_Delete. */
static double run_cjson(const char *buf, size_t len)
{
    const char *end = NULL;
    double t0 = now();
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);

    if (!root) {
        fprintf(stderr, "cJSON failed at byte %td\n", end ? end - buf : -1);
        return -1;
    }
    cJSON_Delete(root);
    return now() - t0;
}

static double run_one(enum mode m, const char *buf, char *situ, size_t len,
                      size_t *arena_bytes)
{
    if (m == MODE_CJSON)
        return run_cjson(buf, len);
    return run_arena(buf, m == MODE_SITU ? situ : NULL, len, arena_bytes);
}

/* One warm-up run, then RUNS timed ones; prints the median. */
static int bench(enum mode m, const char *buf, char *situ, size_t len, int runs)
{
    double t[MAX_RUNS], med;
    size_t arena_bytes = 0;
    int i;

    for (i = -1; i < runs; i++) {
        double d = run_one(m, buf, situ, len, &arena_bytes);

        if (d < 0)
            return -1;
        if (i >= 0)
            t[i] = d;
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_double);
    med = t[runs / 2];
    printf("%-34s %8.3f ms %8.1f MB/s", mode_labels[m], med * 1e3,
           (double)len / 1e6 / med);
    if (m != MODE_CJSON)
        printf(" (arena %zu bytes)", arena_bytes);
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 2 ? atoi(argv[2]) : 9, first = 0, last = 2, m;
    size_t len = 0;
    char *buf, *situ;

    if (argc > 3) {
        for (first = 0; first < 3; first++) {
            if (!strcmp(argv[3], mode_names[first]))
                break;
        }
        last = first;
    }
    if (argc < 2 || runs < 1 || runs > MAX_RUNS || first > 2) {
        fprintf(stderr, "usage: %s FILE [RUNS (1..%d) [copy|situ|cjson]]\n",
                argv[0], MAX_RUNS);
        return 2;
    }
    buf = read_file(argv[1], &len);
    situ = buf ? malloc(len + 1) : NULL;
    if (!buf || !situ) {
        perror(argv[1]);
        return 1;
    }
    printf("%s: %zu bytes, median of %d runs\n", argv[1], len, runs);
    for (m = first; m <= last; m++) {
        if (bench((enum mode)m, buf, situ, len, runs) < 0)
            return 1;
    }
    free(situ);
    free(buf);
    return 0;
}
