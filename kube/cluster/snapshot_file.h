/*
 * snapshot_file.h: a static cluster from files (`kubectl get ... -o json`
 * or `-o yaml` output; JSON one document per file, YAML any number joined
 * with ---), for `--cluster FILE`, explain and tests.
 */
#ifndef KUBE_CLUSTER_SNAPSHOT_FILE_H
#define KUBE_CLUSTER_SNAPSHOT_FILE_H

#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

/* Files larger than this are refused (a 5,000-node cluster is ~900 MB). */
#define KUBE_SNAPSHOT_MAX_FILE ((size_t)2 << 30)

/*
 * Read a whole file into arena memory, NUL-terminated; *len gets its
 * length. Returns NULL with e set ("PATH: why").
 */
char *kube_read_file(struct arena *a, const char *path, size_t max, size_t *len,
                     struct err *e);

/*
 * Parse every file into objs (zeroed by the caller), in order; each is
 * JSON or YAML by its content. Errors are prefixed with the file name:
 * "cluster.json: items[3].spec...: ...".
 */
int kube_snapshot_load_files(struct arena *a, const char *const *paths,
                             size_t n, struct kube_objects *objs,
                             struct err *e);

#endif
