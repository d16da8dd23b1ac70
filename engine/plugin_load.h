/*
 * plugin_load.h: loadable plugins (`--plugin FILE.so`). A plugin is a
 * shared object written against include/kube-policy-extender/plugin.h; it
 * registers predicate and priority descriptors that join the registries'
 * runtime part, so a Policy names them like built-ins. Plugins are loaded
 * at start only, before any policy is read and before any thread runs,
 * and unloaded at exit; SIGHUP reloads the policy, never the plugins.
 */
#ifndef ENGINE_PLUGIN_LOAD_H
#define ENGINE_PLUGIN_LOAD_H

#include <stddef.h>

#include "kube/base/err.h"

/* Most plugin files one process loads. */
#define ENGINE_MAX_PLUGIN_FILES 16

/*
 * Load the plugin at path: refuse a missing file, a file or folder that is
 * group- or world-writable (as sshd refuses such key files), a file that
 * is not a shared object, one without the entry point or the API magic,
 * one built for another API major or a newer minor, and names or
 * argument keys that clash with a built-in or another plugin. dlopen uses
 * RTLD_NOW | RTLD_LOCAL. On failure nothing of the file stays registered or
 * mapped. Returns 0, or -1 with e set ("PATH: why").
 */
int engine_plugin_load(const char *path, struct err *e);

/*
 * Forget every plugin's descriptors and dlclose the files, last loaded
 * first. Call at exit, once nothing reads a policy any more.
 */
void engine_plugins_unload(void);

/* The file that registered a predicate or priority name, or NULL. */
const char *engine_plugin_file_of(const char *kind, const char *name);

#endif
