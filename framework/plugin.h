/*
 * plugin.h: the vocabulary every predicate and priority descriptor shares
 * with the Policy loader and the engine: the cluster data a plugin reads
 * (so a server fetches only what the loaded policy needs), the v1.22
 * framework extension points a plugin runs at, and the head every plugin
 * object starts with. Nothing here knows a plugin by name.
 */
#ifndef FRAMEWORK_PLUGIN_H
#define FRAMEWORK_PLUGIN_H

#include <stdbool.h>
#include <string.h>

/* Cluster data a predicate or priority reads. */
#define KPE_NEED_PODS_ON_NODE    0x001u
#define KPE_NEED_ALL_PODS        0x002u
#define KPE_NEED_SERVICES        0x004u
#define KPE_NEED_CONTROLLERS     0x008u /* RCs, ReplicaSets, StatefulSets */
#define KPE_NEED_PVS             0x010u
#define KPE_NEED_PVCS            0x020u
#define KPE_NEED_STORAGE_CLASSES 0x040u
#define KPE_NEED_CSINODES        0x080u
#define KPE_NEED_NAMESPACES      0x100u

/* Framework extension points (framework/interface.go). */
#define KPE_EP_PREFILTER 0x01u
#define KPE_EP_FILTER    0x02u
#define KPE_EP_PRESCORE  0x04u
#define KPE_EP_SCORE     0x08u
#define KPE_EP_RESERVE   0x10u
#define KPE_EP_PREBIND   0x20u

/*
 * What every plugin object starts with: its name (a v1.22 plugin name such
 * as "NodePorts", or, for code with no v1.22 plugin, the Policy name it
 * serves) and the extension points v1.22 runs it at (0 for ours).
 */
struct kpe_plugin_ref {
    const char *name;
    unsigned points; /* KPE_EP_* */
};

#define KPE_MAX_PLUGINS 4 /* v1.22 plugins behind one Policy name */

/* True when name is one of the NULL-ended names (NULL: none). */
static inline bool kpe_name_in(const char *const *names, const char *name)
{
    for (; names && *names; names++) {
        if (!strcmp(*names, name))
            return true;
    }
    return false;
}

#endif
