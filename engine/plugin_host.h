/*
 * plugin_host.h: the server side of the plugin ABI (plugin_host.c): the
 * accessor table handed to a plugin and the conversion of its descriptors
 * into registry rows. Used by plugin_load.c only.
 */
#ifndef ENGINE_PLUGIN_HOST_H
#define ENGINE_PLUGIN_HOST_H

#include <stddef.h>

#include "include/kube-policy-extender/plugin.h"
#include "kube/base/err.h"

/* Fill the version and the accessors of h (not ctx or register_*). */
void plugin_host_fill(struct kpe_plugin_host *h);

/*
 * Check a plugin's descriptor, build its registry row in the next free
 * slot and add it to the registry. Returns 0, or -1 with e set (the
 * name quoted; no file prefix).
 */
int plugin_host_add_predicate(const struct kpe_predicate *p, struct err *e);
int plugin_host_add_priority(const struct kpe_priority *p, struct err *e);

/* Drop every plugin row past the first n_preds / n_prios. */
void plugin_host_truncate(size_t n_preds, size_t n_prios);

#endif
