/*
 * snapshot_file.c: load a static cluster from JSON or YAML files (see
 * header); YAML streams from the file, JSON is read whole.
 */
#include "kube/cluster/snapshot_file.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kube/base/doc_format.h"
#include "kube/parse/parse.h"

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

/* JSON or YAML, by content: the file's head decides (doc_format.h). */
static int sniff_file(const char *path, enum doc_format *fmt, struct err *e)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *head;
    size_t n;

    if (!f)
        return err_set(e, "%s: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return err_set(e, "%s: not a regular file", path);
    }
    head = malloc(DOC_FORMAT_HEAD);
    if (!head) {
        fclose(f);
        return err_set(e, "%s: out of memory", path);
    }
    n = fread(head, 1, DOC_FORMAT_HEAD, f);
    fclose(f);
    *fmt = doc_format_sniff(head, n, e);
    free(head);
    if (*fmt == DOC_FORMAT_INI)
        return err_set(e,
                       "%s: looks like INI; expected Kubernetes objects "
                       "in JSON or YAML",
                       path);
    if (*fmt == DOC_FORMAT_UNKNOWN)
        return err_prefix(e, "%s: ", path);
    return 0;
}

/* A YAML file, streamed from disk. */
static int load_yaml(struct arena *a, const char *path,
                     struct kube_objects *objs, struct err *e)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    int rc;

    if (!f)
        return err_set(e, "%s: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return err_set(e, "%s: not a regular file", path);
    }
    rc = kube_parse_yaml_file(a, f, objs, e);
    fclose(f);
    return rc < 0 ? err_prefix(e, "%s: ", path) : 0;
}

int kube_snapshot_load_files(struct arena *a, const char *const *paths,
                             size_t n, struct kube_objects *objs, struct err *e)
{
    enum doc_format fmt = DOC_FORMAT_UNKNOWN;
    size_t i;

    for (i = 0; i < n; i++) {
        struct arena tmp;
        size_t len;
        char *buf;
        int rc;

        if (sniff_file(paths[i], &fmt, e) < 0)
            return -1;
        if (fmt == DOC_FORMAT_YAML) {
            if (load_yaml(a, paths[i], objs, e) < 0)
                return -1;
            continue;
        }
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
