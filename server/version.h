/*
 * version.h: build version and git revision, baked in by the Makefile.
 */
#ifndef SERVER_VERSION_H
#define SERVER_VERSION_H

const char *kpe_version(void);
const char *kpe_git_revision(void);

#endif
