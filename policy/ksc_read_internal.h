/*
 * ksc_read_internal.h: what the two halves of the KubeSchedulerConfiguration
 * reader share (ksc_read.c: the document, profiles, plugin sets and
 * filters; ksc_scores.c: score plugins as Policy priorities). Internal to
 * policy/.
 */
#ifndef POLICY_KSC_READ_INTERNAL_H
#define POLICY_KSC_READ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_writer.h"

#define KSC_MAX_SET 64

enum ksc_version { KSC_V1BETA1, KSC_V1BETA2, KSC_V1BETA3, KSC_V1 };

struct plugin_w {
    const char *name;
    int64_t weight;
    const char *where; /* profiles[i].plugins.score.enabled[j], or NULL */
};

struct pset {
    struct plugin_w v[KSC_MAX_SET];
    size_t n;
};

struct kctx {
    struct arena *a;
    struct err *e;
    enum ksc_version v;
    const cJSON *profile;
    size_t profile_index;
    struct jsonw *w;
    int64_t hard_weight; /* InterPodAffinity hardPodAffinityWeight, or -1 */
    unsigned flags;      /* POLICY_KSC_* */
};

/* A string member, or NULL; a member that is not null, or NULL. */
const char *ksc_str(const cJSON *o, const char *key);
const cJSON *ksc_get(const cJSON *o, const char *key);

/*
 * The defaults of extension point `point` merged with the profile's
 * enabled and disabled lists into s. 0, or -1 with k->e set.
 */
int ksc_point_set(struct kctx *k, const char *point,
                  const struct plugin_w *defaults, struct pset *s);

/* The args of plugin `name` in the profile's pluginConfig, or NULL. */
const cJSON *ksc_plugin_args(const struct kctx *k, const char *name);

/* resources absent, or exactly cpu=1 and memory=1 (the Policy's only). */
bool ksc_default_resources(const cJSON *res);

/* The profile's score plugins as the Policy's "priorities" member. */
int ksc_write_scores(struct kctx *k);

/* The configuration's extenders as the Policy's (ksc_extenders.c). */
int ksc_write_extenders(struct kctx *k, const cJSON *ext);

#endif
