/*
 * metrics.c: the Prometheus registry (see metrics.h). Families keep their
 * series in registration order; values are C11 atomics, doubles are kept
 * as their bit patterns in 64-bit atomics.
 */
#include "server/common/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mtype { MT_COUNTER, MT_GAUGE, MT_HISTOGRAM };

struct series {
    char *labels;
    struct series *next;
};

struct metrics_counter {
    struct series base;
    _Atomic uint64_t v;
};

struct metrics_gauge {
    struct series base;
    _Atomic uint64_t bits; /* a double */
    metrics_value_fn *fn;
    void *arg;
};

struct metrics_histogram {
    struct series base;
    double *bounds;
    size_t n;
    _Atomic uint64_t *buckets; /* n + 1, not cumulative */
    _Atomic uint64_t sum_bits; /* a double */
};

struct family {
    char *name;
    char *help;
    enum mtype type;
    struct series *head, **tail;
    struct family *next;
};

struct metrics {
    pthread_mutex_t lock;
    struct family *head, **tail;
};

static uint64_t dbits(double d)
{
    uint64_t u;

    memcpy(&u, &d, sizeof(u));
    return u;
}

static double bitsd(uint64_t u)
{
    double d;

    memcpy(&d, &u, sizeof(d));
    return d;
}

struct metrics *metrics_new(void)
{
    struct metrics *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    pthread_mutex_init(&m->lock, NULL);
    m->tail = &m->head;
    return m;
}

static void series_free(enum mtype t, struct series *s)
{
    free(s->labels);
    if (t == MT_HISTOGRAM) {
        struct metrics_histogram *h = (struct metrics_histogram *)s;

        free(h->bounds);
        free((void *)h->buckets);
    }
    free(s);
}

void metrics_free(struct metrics *m)
{
    struct family *f, *fn;
    struct series *s, *sn;

    if (!m)
        return;
    for (f = m->head; f; f = fn) {
        fn = f->next;
        for (s = f->head; s; s = sn) {
            sn = s->next;
            series_free(f->type, s);
        }
        free(f->name);
        free(f->help);
        free(f);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* Find or create the family; NULL on a type clash or out of memory. */
static struct family *family_get(struct metrics *m, const char *name,
                                 const char *help, enum mtype t)
{
    struct family *f;

    for (f = m->head; f; f = f->next) {
        if (!strcmp(f->name, name))
            return f->type == t ? f : NULL;
    }
    f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->name = strdup(name);
    f->help = strdup(help ? help : "");
    if (!f->name || !f->help) {
        free(f->name);
        free(f->help);
        free(f);
        return NULL;
    }
    f->type = t;
    f->tail = &f->head;
    *m->tail = f;
    m->tail = &f->next;
    return f;
}

/*
 * Under m->lock: the existing series of (name, labels), or a new zeroed
 * one of `size` bytes (*created set); NULL on a type clash or no memory.
 */
static struct series *series_get(struct metrics *m, const char *name,
                                 const char *help, const char *labels,
                                 enum mtype t, size_t size, int *created)
{
    struct family *f;
    struct series *s;

    *created = 0;
    f = family_get(m, name, help, t);
    if (!f)
        return NULL;
    if (!labels)
        labels = "";
    for (s = f->head; s; s = s->next) {
        if (!strcmp(s->labels, labels))
            return s;
    }
    s = calloc(1, size);
    if (!s)
        return NULL;
    s->labels = strdup(labels);
    if (!s->labels) {
        free(s);
        return NULL;
    }
    *f->tail = s;
    f->tail = &s->next;
    *created = 1;
    return s;
}

struct metrics_counter *metrics_counter(struct metrics *m, const char *name,
                                        const char *help, const char *labels)
{
    struct series *s;
    int created;

    pthread_mutex_lock(&m->lock);
    s = series_get(m, name, help, labels, MT_COUNTER,
                   sizeof(struct metrics_counter), &created);
    pthread_mutex_unlock(&m->lock);
    return (struct metrics_counter *)s;
}

struct metrics_gauge *metrics_gauge_fn(struct metrics *m, const char *name,
                                       const char *help, const char *labels,
                                       metrics_value_fn *fn, void *arg)
{
    struct metrics_gauge *g;
    int created;

    pthread_mutex_lock(&m->lock);
    g = (struct metrics_gauge *)series_get(m, name, help, labels, MT_GAUGE,
                                           sizeof(*g), &created);
    if (g && created) {
        g->fn = fn;
        g->arg = arg;
    }
    pthread_mutex_unlock(&m->lock);
    return g;
}

struct metrics_gauge *metrics_gauge(struct metrics *m, const char *name,
                                    const char *help, const char *labels)
{
    return metrics_gauge_fn(m, name, help, labels, NULL, NULL);
}

struct metrics_histogram *metrics_histogram(struct metrics *m, const char *name,
                                            const char *help,
                                            const char *labels,
                                            const double *bounds, size_t n)
{
    struct metrics_histogram *h;
    int created;

    pthread_mutex_lock(&m->lock);
    h = (struct metrics_histogram *)series_get(
        m, name, help, labels, MT_HISTOGRAM, sizeof(*h), &created);
    if (h && created) {
        h->bounds = malloc((n ? n : 1) * sizeof(double));
        h->buckets = calloc(n + 1, sizeof(*h->buckets));
        if (h->bounds && h->buckets) {
            memcpy(h->bounds, bounds, n * sizeof(double));
            h->n = n;
        } else {
            /* Leave a usable series that only counts into +Inf. */
            free(h->bounds);
            h->bounds = NULL;
            h->n = 0;
            if (!h->buckets)
                h = NULL;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return h;
}

void metrics_counter_add(struct metrics_counter *c, uint64_t n)
{
    if (c)
        atomic_fetch_add_explicit(&c->v, n, memory_order_relaxed);
}

uint64_t metrics_counter_value(const struct metrics_counter *c)
{
    return c ? atomic_load(&c->v) : 0;
}

void metrics_gauge_set(struct metrics_gauge *g, double v)
{
    if (g)
        atomic_store(&g->bits, dbits(v));
}

void metrics_histogram_observe(struct metrics_histogram *h, double v)
{
    uint64_t old, nw;
    size_t i;

    if (!h)
        return;
    for (i = 0; i < h->n && v > h->bounds[i]; i++)
        ;
    atomic_fetch_add_explicit(&h->buckets[i], 1, memory_order_relaxed);
    old = atomic_load(&h->sum_bits);
    do {
        nw = dbits(bitsd(old) + v);
    } while (!atomic_compare_exchange_weak(&h->sum_bits, &old, nw));
}

/* The shortest decimal text that reads back as v ("0.005", not ...001). */
static void fmt_double(char *buf, size_t n, double v)
{
    int prec;

    if (isnan(v)) {
        snprintf(buf, n, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, "%s", v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, n, "%.0f", v);
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void put_value(FILE *f, double v)
{
    char buf[64];

    fmt_double(buf, sizeof(buf), v);
    fputs(buf, f);
}

/* name{labels[,extra]} with the braces left out when both are empty. */
static void put_name(FILE *f, const char *name, const char *suffix,
                     const char *labels, const char *extra)
{
    fprintf(f, "%s%s", name, suffix);
    if (!*labels && !extra)
        return;
    fprintf(f, "{%s%s%s}", labels, *labels && extra ? "," : "",
            extra ? extra : "");
}

static void render_histogram(FILE *f, const char *name,
                             struct metrics_histogram *h)
{
    uint64_t cum = 0;
    char le[80], num[64];
    size_t i;

    for (i = 0; i <= h->n; i++) {
        cum += atomic_load(&h->buckets[i]);
        if (i < h->n)
            fmt_double(num, sizeof(num), h->bounds[i]);
        else
            snprintf(num, sizeof(num), "+Inf");
        snprintf(le, sizeof(le), "le=\"%s\"", num);
        put_name(f, name, "_bucket", h->base.labels, le);
        fprintf(f, " %llu\n", (unsigned long long)cum);
    }
    put_name(f, name, "_sum", h->base.labels, NULL);
    fputc(' ', f);
    put_value(f, bitsd(atomic_load(&h->sum_bits)));
    fputc('\n', f);
    put_name(f, name, "_count", h->base.labels, NULL);
    fprintf(f, " %llu\n", (unsigned long long)cum);
}

static void render_family(FILE *out, struct family *f)
{
    static const char *const types[] = { "counter", "gauge", "histogram" };
    struct series *s;
    const char *c;

    fprintf(out, "# HELP %s ", f->name);
    for (c = f->help; *c; c++) {
        if (*c == '\\')
            fputs("\\\\", out);
        else if (*c == '\n')
            fputs("\\n", out);
        else
            fputc(*c, out);
    }
    fprintf(out, "\n# TYPE %s %s\n", f->name, types[f->type]);
    for (s = f->head; s; s = s->next) {
        if (f->type == MT_HISTOGRAM) {
            render_histogram(out, f->name, (struct metrics_histogram *)s);
            continue;
        }
        put_name(out, f->name, "", s->labels, NULL);
        fputc(' ', out);
        if (f->type == MT_COUNTER) {
            fprintf(out, "%llu\n",
                    (unsigned long long)atomic_load(
                        &((struct metrics_counter *)s)->v));
        } else {
            struct metrics_gauge *g = (struct metrics_gauge *)s;

            put_value(out,
                      g->fn ? g->fn(g->arg) : bitsd(atomic_load(&g->bits)));
            fputc('\n', out);
        }
    }
}

char *metrics_render(struct metrics *m, size_t *len)
{
    struct family *f;
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);

    if (!out)
        return NULL;
    pthread_mutex_lock(&m->lock);
    for (f = m->head; f; f = f->next)
        render_family(out, f);
    pthread_mutex_unlock(&m->lock);
    if (fclose(out) != 0) {
        free(buf);
        return NULL;
    }
    if (len)
        *len = n;
    return buf;
}

void metrics_escape_label(char *dst, size_t dstsz, const char *value)
{
    size_t o = 0;

    if (!dstsz)
        return;
    for (; value && *value && o + 3 < dstsz; value++) {
        if (*value == '\\' || *value == '"') {
            dst[o++] = '\\';
            dst[o++] = *value;
        } else if (*value == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else {
            dst[o++] = *value;
        }
    }
    dst[o] = '\0';
}
