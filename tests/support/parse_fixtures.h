/*
 * parse_fixtures.h: helpers for the parser tests: read a fixture file and
 * look things up in parsed objects.
 */
#ifndef TESTS_SUPPORT_PARSE_FIXTURES_H
#define TESTS_SUPPORT_PARSE_FIXTURES_H

#include <stddef.h>

#include "kube/model/types.h"

/*
 * Read a whole file (path relative to the repository root, where
 * tests/run.sh starts the tests) into a malloc'd, NUL-terminated buffer.
 * Fails the current test when it cannot.
 */
char *tparse_read_file(const char *path, size_t *len);

/* The value of key in l, or NULL (a linear scan: no sort assumed). */
const char *tparse_label(const struct kube_labels *l, const char *key);

/* The scalar resource name in r, or -1 when absent. */
long long tparse_scalar(const struct kube_resources *r, const char *name);

#endif
