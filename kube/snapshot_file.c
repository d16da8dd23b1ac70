/*
 * snapshot_file.c: load a static cluster from JSON files (see header).
 */
#include "kube/snapshot_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kube/parse.h"

char *kube_read_file(struct arena *a, const char *path, size_t max, size_t *len,
                     struct err *e)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *buf = NULL;
    size_t n;

    if (!f) {
        err_set(e, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        err_set(e, "%s: not a regular file", path);
        goto out;
    }
    if ((size_t)st.st_size > max) {
        err_set(e, "%s: file is %lld bytes, more than the limit of %zu", path,
                (long long)st.st_size, max);
        goto out;
    }
    buf = arena_alloc(a, (size_t)st.st_size + 1);
    if (!buf) {
        err_set(e, "%s: out of memory reading %lld bytes", path,
                (long long)st.st_size);
        goto out;
    }
    n = fread(buf, 1, (size_t)st.st_size, f);
    if (n != (size_t)st.st_size || ferror(f)) {
        err_set(e, "%s: short read", path);
        buf = NULL;
        goto out;
    }
    buf[n] = '\0';
    *len = n;
out:
    fclose(f);
    return buf;
}

int kube_snapshot_load_files(struct arena *a, const char *const *paths,
                             size_t n, struct kube_objects *objs, struct err *e)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct arena tmp;
        size_t len;
        char *buf;
        int rc;

        /* The text is dropped after parsing; the objects stay in a. */
        arena_init(&tmp, 0);
        buf = kube_read_file(&tmp, paths[i], KUBE_SNAPSHOT_MAX_FILE, &len, e);
        if (!buf) {
            arena_destroy(&tmp);
            return -1;
        }
        rc = kube_parse_document(a, buf, len, objs, e);
        arena_destroy(&tmp);
        if (rc < 0)
            return err_prefix(e, "%s: ", paths[i]);
    }
    return 0;
}
