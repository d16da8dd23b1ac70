/*
 * test_policy_compat.c: Policy JSON -> the plugins, weights and args
 * kube-scheduler v1.22 enables (policy_build_profile), for every upstream
 * compatibility case and the legacy registry's priority table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

struct compat_case {
    const char *name;
    const char *file; /* under tests/policies/ */
    const char *pre_filter, *filter, *pre_score, *score;
    const char *reserve, *pre_bind;
};

/* "A,B:2,C" for one extension point (weights for score). */
static void join(const struct policy_profile *pr, enum policy_ep ep, char *out,
                 size_t size)
{
    size_t i, o = 0;

    out[0] = '\0';
    for (i = 0; i < pr->n_points[ep]; i++) {
        int n = ep == POLICY_EP_SCORE
                    ? snprintf(out + o, size - o, "%s%s:%d", i ? "," : "",
                               pr->points[ep][i].name,
                               (int)pr->points[ep][i].weight)
                    : snprintf(out + o, size - o, "%s%s", i ? "," : "",
                               pr->points[ep][i].name);
        if (n < 0 || (size_t)n >= size - o)
            break;
        o += (size_t)n;
    }
}

#define F13                                                                    \
    "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"      \
    "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity,"            \
    "EBSLimits,GCEPDLimits,AzureDiskLimits,VolumeZone,InterPodAffinity"
#define F19                                                                    \
    "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"      \
    "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity,"            \
    "EBSLimits,GCEPDLimits,AzureDiskLimits,VolumeBinding,VolumeZone,"          \
    "InterPodAffinity"
#define F112                                                                   \
    "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"      \
    "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity,"            \
    "EBSLimits,GCEPDLimits,NodeVolumeLimits,AzureDiskLimits,VolumeBinding,"    \
    "VolumeZone,InterPodAffinity"
#define F114                                                                   \
    "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"      \
    "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity,"            \
    "EBSLimits,GCEPDLimits,NodeVolumeLimits,AzureDiskLimits,CinderLimits,"     \
    "VolumeBinding,VolumeZone,InterPodAffinity"
#define PF13                                                                   \
    "NodePorts,NodeAffinity,NodeResourcesFit,ServiceAffinity,InterPodAffinity"
#define PF19                                                                   \
    "NodePorts,NodeAffinity,NodeResourcesFit,ServiceAffinity,VolumeBinding,"   \
    "InterPodAffinity"
#define PS13 "InterPodAffinity,NodeAffinity,PodTopologySpread,TaintToleration"
#define S14                                                                    \
    "NodeResourcesBalancedAllocation:2,ImageLocality:2,InterPodAffinity:2,"    \
    "NodeResourcesLeastAllocated:2,NodeResourcesMostAllocated:2,"              \
    "NodeAffinity:2,NodePreferAvoidPods:2,PodTopologySpread:2,"                \
    "TaintToleration:2"
#define S111                                                                   \
    "NodeResourcesBalancedAllocation:2,ImageLocality:2,InterPodAffinity:2,"    \
    "NodeResourcesLeastAllocated:2,NodeResourcesMostAllocated:2,"              \
    "NodeAffinity:2,NodePreferAvoidPods:2,RequestedToCapacityRatio:2,"         \
    "PodTopologySpread:2,TaintToleration:2"

/* TestCompatibility_v1_Scheduler (compatibility_test.go), wantPlugins. */
static const struct compat_case compat_cases[] = {
    { "GeneralPredicate", "compat-general-predicate.json",
      "NodeResourcesFit,NodePorts,NodeAffinity",
      "NodeUnschedulable,NodeResourcesFit,NodeName,NodePorts,NodeAffinity,"
      "TaintToleration",
      "", "", "", "" },
    { "MandatoryFilters", "compat-mandatory-filters.json", "",
      "NodeUnschedulable,TaintToleration", "", "", "", "" },
    { "1.0", "compat-1.0.json",
      "NodePorts,NodeAffinity,NodeResourcesFit,ServiceAffinity",
      "NodeUnschedulable,NodePorts,NodeAffinity,NodeResourcesFit,"
      "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity",
      "PodTopologySpread",
      "NodeResourcesLeastAllocated:1,NodeLabel:4,PodTopologySpread:2,"
      "ServiceAffinity:3",
      "", "" },
    { "1.1", "compat-1.1.json",
      "NodePorts,NodeAffinity,NodeResourcesFit,ServiceAffinity",
      "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"
      "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity",
      "PodTopologySpread",
      "NodeResourcesBalancedAllocation:2,NodeResourcesLeastAllocated:2,"
      "NodeLabel:8,PodTopologySpread:2,ServiceAffinity:6",
      "", "" },
    { "1.2", "compat-1.2.json",
      "NodePorts,NodeAffinity,NodeResourcesFit,ServiceAffinity",
      "NodeUnschedulable,NodeName,NodePorts,NodeAffinity,NodeResourcesFit,"
      "VolumeRestrictions,TaintToleration,NodeLabel,ServiceAffinity,"
      "EBSLimits,GCEPDLimits,AzureDiskLimits,VolumeZone",
      "NodeAffinity,PodTopologySpread",
      "NodeResourcesBalancedAllocation:2,ImageLocality:2,"
      "NodeResourcesLeastAllocated:2,NodeAffinity:2,NodeLabel:4,"
      "PodTopologySpread:2,ServiceAffinity:3",
      "", "" },
    { "1.3", "compat-1.3.json", PF13, F13, PS13,
      "NodeResourcesBalancedAllocation:2,ImageLocality:2,InterPodAffinity:2,"
      "NodeResourcesLeastAllocated:2,NodeAffinity:2,PodTopologySpread:2,"
      "TaintToleration:2",
      "", "" },
    { "1.4", "compat-1.4.json", PF13, F13, PS13, S14, "", "" },
    { "1.7", "compat-1.7.json", PF13, F13, PS13, S14, "", "" },
    { "1.8", "compat-1.8.json", PF13, F13, PS13, S14, "", "" },
    { "1.9", "compat-1.9.json", PF19, F19, PS13, S14, "VolumeBinding",
      "VolumeBinding" },
    { "1.10", "compat-1.10.json", PF19, F19, PS13, S14, "VolumeBinding",
      "VolumeBinding" },
    { "1.11", "compat-1.11.json", PF19, F19, PS13, S111, "VolumeBinding",
      "VolumeBinding" },
    { "1.12", "compat-1.12.json", PF19, F112, PS13, S111, "VolumeBinding",
      "VolumeBinding" },
    { "1.14", "compat-1.14.json", PF19, F114, PS13, S111, "VolumeBinding",
      "VolumeBinding" },
    { "1.16", "compat-1.16.json", PF19, F114, PS13, S111, "VolumeBinding",
      "VolumeBinding" },
    /* TestAlgorithmProviderCompatibility: the defaults, as a Policy with
     * neither list (reference 10.1; plugin order from legacy rows). */
    { "defaults (reference 10.1)", "v122-defaults.json",
      "NodeResourcesFit,NodePorts,NodeAffinity,VolumeBinding,"
      "PodTopologySpread,InterPodAffinity",
      "NodeUnschedulable,NodeResourcesFit,NodeName,NodePorts,NodeAffinity,"
      "VolumeRestrictions,TaintToleration,EBSLimits,GCEPDLimits,"
      "NodeVolumeLimits,AzureDiskLimits,VolumeBinding,VolumeZone,"
      "PodTopologySpread,InterPodAffinity",
      "PodTopologySpread,InterPodAffinity,NodeAffinity,TaintToleration",
      "NodeResourcesBalancedAllocation:1,PodTopologySpread:2,"
      "ImageLocality:1,InterPodAffinity:1,NodeResourcesLeastAllocated:1,"
      "NodeAffinity:1,NodePreferAvoidPods:10000,TaintToleration:1",
      "VolumeBinding", "VolumeBinding" },
    { "reference 10.2", "reference-10.2-custom.json",
      "NodeAffinity,NodeResourcesFit,ServiceAffinity",
      "NodeUnschedulable,NodeAffinity,NodeResourcesFit,TaintToleration,"
      "NodeLabel,ServiceAffinity",
      "",
      "NodeResourcesLeastAllocated:1,NodeLabel:4,RequestedToCapacityRatio:2,"
      "ServiceAffinity:3",
      "", "" },
    { "openshift region/zone", "openshift-region-zone.json",
      "NodeResourcesFit,NodePorts,NodeAffinity,ServiceAffinity,VolumeBinding,"
      "InterPodAffinity",
      "NodeUnschedulable,NodeResourcesFit,NodeName,NodePorts,NodeAffinity,"
      "VolumeRestrictions,TaintToleration,ServiceAffinity,EBSLimits,"
      "GCEPDLimits,AzureDiskLimits,VolumeBinding,VolumeZone,InterPodAffinity",
      "InterPodAffinity,NodeAffinity,PodTopologySpread,TaintToleration",
      "NodeResourcesBalancedAllocation:1,InterPodAffinity:1,"
      "NodeResourcesLeastAllocated:1,NodeAffinity:1,"
      "NodePreferAvoidPods:10000,PodTopologySpread:1,ServiceAffinity:2,"
      "TaintToleration:1",
      "VolumeBinding", "VolumeBinding" },
    { "seed 002 custom", "seed-002-custom.json", "",
      "NodeUnschedulable,TaintToleration", "", "", "", "" },
};

static int check_case(const struct compat_case *c)
{
    struct policy *p = NULL;
    struct policy_profile pr;
    struct arena a;
    struct err e;
    char path[256], got[2048];
    const char *want[POLICY_EP_COUNT] = { "PrioritySort", c->pre_filter,
                                          c->filter,      "DefaultPreemption",
                                          c->pre_score,   c->score,
                                          c->reserve,     c->pre_bind,
                                          "DefaultBinder" };
    int ep, bad = 0;

    snprintf(path, sizeof(path), "tests/policies/%s", c->file);
    if (policy_load_file(path, NULL, &p, &e)) {
        print_error("%s: load failed: %s\n", c->name, e.msg);
        return 1;
    }
    arena_init(&a, 0);
    if (policy_build_profile(p, &a, &pr, &e)) {
        print_error("%s: profile: %s\n", c->name, e.msg);
        bad = 1;
    }
    for (ep = 0; !bad && ep < POLICY_EP_COUNT; ep++) {
        join(&pr, (enum policy_ep)ep, got, sizeof(got));
        if (strcmp(got, want[ep])) {
            print_error("%s: %s:\n  got  %s\n  want %s\n", c->name,
                        policy_ep_names[ep], got, want[ep]);
            bad = 1;
        }
    }
    arena_destroy(&a);
    policy_free(p);
    return bad;
}

static void compat_policies_should_build_v122_profiles(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(compat_cases) / sizeof(compat_cases[0]); i++)
        bad += check_case(&compat_cases[i]);
    if (bad)
        fail_msg("%d compatibility case(s) differ", bad);
}

/* Find a priority unit by plugin name. */
static const struct policy_prio *unit(const struct policy *p,
                                      const char *plugin)
{
    size_t i;

    for (i = 0; i < p->n_prios; i++) {
        if (p->prios[i].def->plugins[0] &&
            !strcmp(p->prios[i].def->plugins[0]->ref.name, plugin))
            return &p->prios[i];
    }
    return NULL;
}

struct spread_case {
    const char *name;
    const char *json;
    int32_t weight;
    enum prio_spread_defaulting defaulting;
};

/* TestAppendPriorityConfigs (legacy_registry_test.go), gate on, plus the
 * reference's 9.3 first-registered-weight quirk. */
static const struct spread_case spread_cases[] = {
    { "default priorities", "{\"kind\":\"Policy\",\"apiVersion\":\"v1\"}", 2,
      PRIO_SPREAD_SYSTEM },
    { "SelectorSpreadPriority only",
      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\":"
      "\"SelectorSpreadPriority\",\"weight\":3}]}",
      3, PRIO_SPREAD_SYSTEM },
    { "EvenPodsSpreadPriority only",
      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\":"
      "\"EvenPodsSpreadPriority\",\"weight\":4}]}",
      4, PRIO_SPREAD_LIST },
    { "EvenPodsSpread 1 + SelectorSpread 5: first registered wins",
      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\":"
      "\"SelectorSpreadPriority\",\"weight\":5},{\"name\":"
      "\"EvenPodsSpreadPriority\",\"weight\":1}]}",
      1, PRIO_SPREAD_SYSTEM },
    { "ServiceSpreadingPriority then SelectorSpreadPriority: last wins",
      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\":"
      "\"ServiceSpreadingPriority\",\"weight\":7},{\"name\":"
      "\"SelectorSpreadPriority\",\"weight\":3}]}",
      3, PRIO_SPREAD_SYSTEM },
};

static void spreading_priorities_should_fold_as_v122(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(spread_cases) / sizeof(spread_cases[0]); i++) {
        const struct spread_case *c = &spread_cases[i];
        struct policy *p = NULL;
        const struct policy_prio *u;
        const struct prio_spread_arg *spread;
        struct err e;

        if (policy_load_buffer("t.json", c->json, strlen(c->json), NULL, &p,
                               &e))
            fail_msg("%s: %s", c->name, e.msg);
        u = unit(p, "PodTopologySpread");
        if (!u)
            fail_msg("%s: no PodTopologySpread", c->name);
        spread = u->args.value;
        if (u->weight != c->weight || spread->defaulting != c->defaulting)
            fail_msg("%s: weight %d defaulting %d, want %d %d", c->name,
                     (int)u->weight, (int)spread->defaulting, (int)c->weight,
                     (int)c->defaulting);
        policy_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compat_policies_should_build_v122_profiles),
        cmocka_unit_test(spreading_priorities_should_fold_as_v122),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
