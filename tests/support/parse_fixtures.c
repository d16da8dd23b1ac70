/*
 * parse_fixtures.c: fixture loading and lookups for the parser tests.
 */
#include "tests/support/parse_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tparse_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;

    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    if (!buf) {
        fail_msg("cannot read fixture %s", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

const char *tparse_label(const struct kube_labels *l, const char *key)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (!strcmp(l->items[i].key, key))
            return l->items[i].value;
    return NULL;
}

long long tparse_scalar(const struct kube_resources *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n_scalars; i++)
        if (!strcmp(r->scalars[i].name, name))
            return r->scalars[i].value;
    return -1;
}
