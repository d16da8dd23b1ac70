/*
 * version.h: build version and git revision, baked in by the Makefile.
 */
#ifndef SERVER_COMMON_VERSION_H
#define SERVER_COMMON_VERSION_H

#include <stdio.h>

const char *kpe_version(void);
const char *kpe_git_revision(void);

/* "kube-policy-extender 0.1.0 (git abc123)" and the libraries' versions. */
void kpe_print_version(FILE *f);

#endif
