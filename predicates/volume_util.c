/*
 * volume_util.c: storage-class lookup, claim ownership, CSI migration
 * gates and a small string set for the volume predicates (see
 * volume_util.h). Mirrors component-helpers/storage/volume and
 * nodevolumelimits/utils.go (isCSIMigrationOn) of v1.22.
 */
#include "predicates/volume_util.h"

#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"

const char *pred_vol_claim_class(const struct kube_persistent_volume_claim *c)
{
    const char *ann =
        kube_labels_get(&c->annotations, PRED_VOL_ANN_STORAGE_CLASS);

    if (ann)
        return ann;
    return c->storage_class_name ? c->storage_class_name : "";
}

const char *pred_vol_pv_class(const struct kube_persistent_volume *pv)
{
    const char *ann =
        kube_labels_get(&pv->annotations, PRED_VOL_ANN_STORAGE_CLASS);

    if (ann)
        return ann;
    return pv->storage_class_name ? pv->storage_class_name : "";
}

bool pred_vol_controlled_by(const struct kube_persistent_volume_claim *c,
                            const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < c->n_owner_refs; i++) {
        const struct kube_owner_ref *o = &c->owner_refs[i];

        if (o->controller)
            return o->uid && pod->uid && !strcmp(o->uid, pod->uid);
    }
    return false;
}

const char *pred_vol_claim_name(const struct kube_volume *v,
                                enum kpe_semantics sem)
{
    if (v->kind != KUBE_VOL_PVC && v->kind != KUBE_VOL_EPHEMERAL)
        return NULL;
    /* GenericEphemeralVolume: alpha, off in v1.20.2, beta, on from v1.21
     * (#99643) */
    if (v->kind == KUBE_VOL_EPHEMERAL && sem < KPE_SEM_1_21)
        return NULL;
    return v->id ? v->id : "";
}

/* ---- feature gates ---- */

static const struct {
    const char *name;
    size_t offset;
} gate_names[] = {
    { "CSIMigration", offsetof(struct pred_vol_gates, csi_migration) },
    { "CSIMigrationAWS", offsetof(struct pred_vol_gates, aws) },
    { "CSIMigrationGCE", offsetof(struct pred_vol_gates, gce) },
    { "CSIMigrationAzureDisk", offsetof(struct pred_vol_gates, azure_disk) },
    { "CSIMigrationOpenStack", offsetof(struct pred_vol_gates, openstack) },
};

/* Apply one "Name=bool" item of len bytes; unknown names are ignored. */
static void apply_gate(struct pred_vol_gates *g, const char *s, size_t len)
{
    const char *eq = memchr(s, '=', len);
    size_t i, nlen;
    bool on;

    if (!eq)
        return;
    nlen = (size_t)(eq - s);
    if (len - nlen - 1 == 4 && !strncmp(eq + 1, "true", 4))
        on = true;
    else if (len - nlen - 1 == 5 && !strncmp(eq + 1, "false", 5))
        on = false;
    else
        return;
    for (i = 0; i < sizeof(gate_names) / sizeof(gate_names[0]); i++) {
        if (strlen(gate_names[i].name) == nlen &&
            !strncmp(gate_names[i].name, s, nlen))
            *(bool *)((char *)g + gate_names[i].offset) = on;
    }
}

void pred_vol_gates_load(struct pred_vol_gates *g, enum kpe_semantics sem)
{
    const char *env = getenv("KPE_FEATURE_GATES");

    g->csi_migration = true;
    g->aws = false;
    g->gce = false;
    g->azure_disk = false;
    /* beta and off in v1.20.2 (pkg/features/kube_features.go), on from
     * v1.21.0 (#98538, its "Urgent Upgrade Notes"): D11 */
    g->openstack = sem >= KPE_SEM_1_21;
    while (env && *env) {
        const char *end = strchr(env, ',');
        size_t len = end ? (size_t)(end - env) : strlen(env);

        apply_gate(g, env, len);
        env = end ? end + 1 : NULL;
    }
}

/* True when the comma-separated list contains item exactly. */
static bool list_has(const char *list, const char *item)
{
    size_t n = strlen(item);

    while (list && *list) {
        const char *end = strchr(list, ',');
        size_t len = end ? (size_t)(end - list) : strlen(list);

        if (len == n && !strncmp(list, item, n))
            return true;
        list = end ? end + 1 : NULL;
    }
    return false;
}

bool pred_vol_migration_on(const struct pred_vol_gates *g,
                           const struct kube_csi_node *cn, const char *plugin)
{
    bool gate;

    if (!cn || !plugin || !*plugin || !g->csi_migration)
        return false;
    if (!strcmp(plugin, PRED_VOL_PLUGIN_EBS))
        gate = g->aws;
    else if (!strcmp(plugin, PRED_VOL_PLUGIN_GCE))
        gate = g->gce;
    else if (!strcmp(plugin, PRED_VOL_PLUGIN_AZURE))
        gate = g->azure_disk;
    else if (!strcmp(plugin, PRED_VOL_PLUGIN_CINDER))
        gate = g->openstack;
    else
        return false;
    return gate && list_has(kube_labels_get(&cn->annotations,
                                            PRED_VOL_ANN_MIGRATED_PLUGINS),
                            plugin);
}

/* ---- string set ---- */

void pred_vol_set_init(struct pred_vol_set *s, struct arena *a)
{
    memset(s, 0, sizeof(*s));
    s->a = a;
}

long pred_vol_set_find(const struct pred_vol_set *s, const char *key)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        if (!strcmp(s->keys[i], key))
            return (long)i;
    }
    return -1;
}

int pred_vol_set_put(struct pred_vol_set *s, const char *key, const char *val)
{
    long at = pred_vol_set_find(s, key);

    if (at >= 0) {
        s->vals[at] = val;
        return 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        const char **k = arena_alloc(s->a, cap * sizeof(*k));
        const char **v = arena_alloc(s->a, cap * sizeof(*v));

        if (!k || !v)
            return -1;
        if (s->n) {
            memcpy(k, s->keys, s->n * sizeof(*k));
            memcpy(v, s->vals, s->n * sizeof(*v));
        }
        s->keys = k;
        s->vals = v;
        s->cap = cap;
    }
    s->keys[s->n] = key;
    s->vals[s->n++] = val;
    return 0;
}
