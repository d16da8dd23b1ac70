/*
 * fuzz_support.h: helpers shared by the libFuzzer targets that read the
 * repository's fixtures (the demo cluster and policy) once at start-up.
 */
#ifndef TESTS_FUZZ_FUZZ_SUPPORT_H
#define TESTS_FUZZ_FUZZ_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The path of a repository file: rel when it is readable from the current
 * directory (make runs the targets from the root), else rel next to the
 * binary's repository (build/fuzz/<target> -> ../../rel). The result is
 * rel itself or malloc'd and kept for the life of the process. Exits when
 * the file cannot be found.
 */
static inline const char *fuzz_repo_path(const char *argv0, const char *rel)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    size_t dir = slash ? (size_t)(slash - argv0) : 0;
    char *p;

    if (access(rel, R_OK) == 0)
        return rel;
    p = malloc(dir + strlen(rel) + 8);
    if (p) {
        memcpy(p, argv0, dir);
        sprintf(p + dir, "/../../%s", rel);
        if (access(p, R_OK) == 0)
            return p;
    }
    fprintf(stderr, "fuzz: cannot find %s (run from the repository)\n", rel);
    exit(2);
}

#endif
