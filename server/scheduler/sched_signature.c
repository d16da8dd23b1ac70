/*
 * sched_signature.c: what a watched object's update must change to matter
 * to the standalone scheduler: FNV hashes over the JSON members a decision
 * reads, and the table of node signatures seen last, so that only a node
 * change that can make a pod fit moves the queue (after kube-scheduler
 * v1.22's eventhandlers.go, nodeSchedulingPropertiesChange).
 */
#include "server/scheduler/sched_signature.h"

#include <stdlib.h>
#include <string.h>

#include "kube/base/hash.h"
#include "kube/parse/parse.h"

const char *sched_jstr(const cJSON *o, const char *k)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* h extended by s and a 0xff separator (no JSON text has that byte). */
uint64_t sched_hash_add(uint64_t h, const char *s)
{
    return (kube_fnv_str(h, s) ^ 0xff) * KUBE_FNV_PRIME;
}

/* Hash of the members' JSON: what an update must change to matter. */
uint64_t sched_hash_json(const cJSON *const *parts, size_t n)
{
    uint64_t h = KUBE_FNV_OFFSET;
    size_t i;

    for (i = 0; i < n; i++) {
        char *s = parts[i] ? cJSON_PrintUnformatted(parts[i]) : NULL;

        h = sched_hash_add(h, s ? s : "-");
        cJSON_free(s);
    }
    return h;
}

uint64_t sched_node_sig(const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const cJSON *conds = cJSON_GetObjectItemCaseSensitive(status, "conditions");
    const cJSON *c, *parts[5];
    uint64_t h;

    parts[0] = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    parts[1] = cJSON_GetObjectItemCaseSensitive(spec, "unschedulable");
    parts[2] = cJSON_GetObjectItemCaseSensitive(spec, "taints");
    parts[3] = cJSON_GetObjectItemCaseSensitive(status, "allocatable");
    parts[4] = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    h = sched_hash_json(parts, 4); /* annotations: only preferAvoidPods below */
    h = sched_hash_add(h,
                       sched_jstr(parts[4], KUBE_ANNOTATION_PREFER_AVOID_PODS));
    /* Conditions by type and status, not their heartbeat times. */
    cJSON_ArrayForEach(c, conds)
    {
        h = sched_hash_add(h, sched_jstr(c, "type"));
        h = sched_hash_add(h, sched_jstr(c, "status"));
    }
    return h;
}

static uint64_t str_hash(const char *s)
{
    return sched_hash_add(KUBE_FNV_OFFSET, s);
}

/* Record name's signature; true when it is new or changed. */
bool sched_node_sig_changed(struct scheduler *s, const char *name, uint64_t sig)
{
    size_t i;

    if (s->n_sigs + 1 > s->sig_slots / 2) {
        size_t n = s->sig_slots ? s->sig_slots * 2 : 1024;
        struct sched_node_sig *t = calloc(n, sizeof(*t));

        if (!t)
            return true;
        for (i = 0; i < s->sig_slots; i++) {
            size_t j = str_hash(s->sigs[i].name ? s->sigs[i].name : "");

            if (!s->sigs[i].name)
                continue;
            for (j &= n - 1; t[j].name; j = (j + 1) & (n - 1))
                ;
            t[j] = s->sigs[i];
        }
        free(s->sigs);
        s->sigs = t;
        s->sig_slots = n;
    }
    for (i = str_hash(name) & (s->sig_slots - 1); s->sigs[i].name;
         i = (i + 1) & (s->sig_slots - 1)) {
        if (!strcmp(s->sigs[i].name, name)) {
            bool changed = s->sigs[i].sig != sig;

            s->sigs[i].sig = sig;
            return changed;
        }
    }
    s->sigs[i].name = strdup(name);
    s->sigs[i].sig = sig;
    if (s->sigs[i].name)
        s->n_sigs++;
    return true;
}
