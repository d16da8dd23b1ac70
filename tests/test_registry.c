/*
 * test_registry.c: the predicate and priority registries: unique names,
 * well-formed rows, run order = v1.22 predicateOrdering, priority rows in
 * v1.22's sorted generation order, defaults and weights as in
 * legacy_registry.go (NewLegacyRegistry).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "priorities/priorities.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct pred_def pred_pod_tolerates_node_taints;
extern const struct pred_def pred_check_node_unschedulable;

static void predicate_names_should_be_unique_including_aliases(void **state)
{
    size_t n, i, j;
    const struct pred_def *const *r = pred_registry(&n);
    const char *const *al;

    (void)state;
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
            if (!strcmp(r[i]->name, r[j]->name))
                fail_msg("predicate %s registered twice", r[i]->name);
        }
        for (al = r[i]->aliases; al && *al; al++) {
            for (j = 0; j < n; j++) {
                if (!strcmp(r[j]->name, *al))
                    fail_msg("alias %s shadows a row", *al);
            }
            if (pred_lookup(*al) != r[i])
                fail_msg("alias %s does not resolve", *al);
        }
    }
}

static void priority_names_should_be_unique_and_sorted(void **state)
{
    size_t n, i, j;
    const struct prio_def *const *r = prio_registry(&n);
    const char *const *al;

    (void)state;
    for (i = 1; i < n; i++) {
        if (strcmp(r[i - 1]->name, r[i]->name) >= 0)
            fail_msg("priority rows not in byte order at %s, %s",
                     r[i - 1]->name, r[i]->name);
    }
    for (i = 0; i < n; i++) {
        for (al = r[i]->aliases; al && *al; al++) {
            if (prio_lookup(*al) != r[i])
                fail_msg("alias %s -> %s does not resolve", *al, r[i]->name);
            for (j = 0; j < n; j++) {
                if (!strcmp(r[j]->name, *al))
                    fail_msg("alias %s shadows a row", *al);
            }
        }
    }
}

/* v1.22 legacy_registry.go predicateOrdering, as upstream lists it. */
static const char *const v122_ordering[] = {
    "CheckNodeUnschedulable",
    "GeneralPredicates",
    "HostName",
    "PodFitsHostPorts",
    "MatchNodeSelector",
    "PodFitsResources",
    "NoDiskConflict",
    "PodToleratesNodeTaints",
    "CheckNodeLabelPresence",
    "CheckServiceAffinity",
    "MaxEBSVolumeCount",
    "MaxGCEPDVolumeCount",
    "MaxCSIVolumeCountPred",
    "MaxAzureDiskVolumeCount",
    "MaxCinderVolumeCount",
    "CheckVolumeBinding",
    "NoVolumeZoneConflict",
    "EvenPodsSpread",
    "MatchInterPodAffinity",
};

/* Every non-legacy, non-extension row in v1.22's predicateOrdering order. */
static void predicate_rows_should_follow_v122_ordering(void **state)
{
    size_t n, no, i, k = 0;
    const struct pred_def *const *r = pred_registry(&n);
    const char *const *ord = v122_ordering;

    (void)state;
    no = sizeof(v122_ordering) / sizeof(v122_ordering[0]);
    assert_int_equal(no, 19);
    for (i = 0; i < n; i++) {
        if (r[i]->flags & (PRED_LEGACY | PRED_EXTENSION))
            continue;
        if (k >= no || strcmp(r[i]->name, ord[k]))
            fail_msg("row %zu is %s, v1.22 runs %s there", i, r[i]->name,
                     k < no ? ord[k] : "(nothing)");
        k++;
    }
    assert_int_equal(k, no);
}

static void rows_should_be_well_formed(void **state)
{
    size_t n, i, j;
    const struct pred_def *const *r = pred_registry(&n);
    const struct prio_def *const *q;

    (void)state;
    for (i = 0; i < n; i++) {
        bool has_plugin = r[i]->plugins[0] != NULL;

        if (!r[i]->name || !*r[i]->name)
            fail_msg("predicate row %zu has no name", i);
        if (has_plugin == !!(r[i]->flags & (PRED_LEGACY | PRED_EXTENSION)))
            fail_msg("%s: v1.22 rows map to plugins, others must not",
                     r[i]->name);
        if ((r[i]->args != NULL) != (r[i]->parse_args != NULL))
            fail_msg("%s: argument schema and parser disagree", r[i]->name);
        if ((r[i]->flags & PRED_MANDATORY) && !(r[i]->flags & PRED_DEFAULT))
            fail_msg("%s: mandatory rows are in the default set too",
                     r[i]->name);
        for (j = 0; j < KPE_MAX_PLUGINS && r[i]->plugins[j]; j++) {
            if (!(r[i]->plugins[j]->ref.points & KPE_EP_FILTER))
                fail_msg("%s: plugin %s is not a filter", r[i]->name,
                         r[i]->plugins[j]->ref.name);
        }
        if (pred_lookup(r[i]->name) != r[i] || pred_index(r[i]) != i)
            fail_msg("%s: lookup does not find its row", r[i]->name);
    }
    q = prio_registry(&n);
    for (i = 0; i < n; i++) {
        bool has_plugin = q[i]->plugins[0] != NULL;

        if (has_plugin ==
            !!(q[i]->flags & (PRIO_LEGACY | PRIO_EXTENSION | PRIO_SKIPPED)))
            fail_msg("%s: plugin presence wrong", q[i]->name);
        if (has_plugin && !(q[i]->plugins[0]->ref.points & KPE_EP_SCORE))
            fail_msg("%s: plugin is not a score plugin", q[i]->name);
        if ((q[i]->flags & PRIO_DEFAULT) != 0 && q[i]->default_weight <= 0)
            fail_msg("%s: default rows need a default weight", q[i]->name);
        if ((q[i]->flags & PRIO_DEFAULT) == 0 && q[i]->default_weight != 0)
            fail_msg("%s: only default rows have a default weight", q[i]->name);
        if ((q[i]->parse_args != NULL) !=
            !!(q[i]->flags & (PRIO_CUSTOM_ONLY | PRIO_EXTENSION)))
            fail_msg("%s: parse_args only for argument-driven rows",
                     q[i]->name);
    }
}

/* NewLegacyRegistry: DefaultPredicates and mandatoryPredicates. */
static void default_predicates_should_match_v122(void **state)
{
    static const char *const want[] = {
        "NoVolumeZoneConflict",   "MaxEBSVolumeCount",
        "MaxGCEPDVolumeCount",    "MaxAzureDiskVolumeCount",
        "MaxCSIVolumeCountPred",  "MatchInterPodAffinity",
        "NoDiskConflict",         "GeneralPredicates",
        "PodToleratesNodeTaints", "CheckVolumeBinding",
        "CheckNodeUnschedulable", "EvenPodsSpread",
    };
    size_t n, i, j, count = 0, mand = 0;
    const struct pred_def *const *r = pred_registry(&n);

    (void)state;
    for (i = 0; i < n; i++) {
        bool in = false;

        for (j = 0; j < sizeof(want) / sizeof(want[0]); j++)
            in = in || !strcmp(want[j], r[i]->name);
        if (in != !!(r[i]->flags & PRED_DEFAULT))
            fail_msg("%s: default flag wrong", r[i]->name);
        count += in;
        if (r[i]->flags & PRED_MANDATORY) {
            mand++;
            if (strcmp(r[i]->name, pred_pod_tolerates_node_taints.name) &&
                strcmp(r[i]->name, pred_check_node_unschedulable.name))
                fail_msg("%s is not mandatory in v1.22", r[i]->name);
        }
    }
    assert_int_equal(count, 12);
    assert_int_equal(mand, 2);
}

/* NewLegacyRegistry: DefaultPriorities with their weights. */
static void default_priorities_should_match_v122(void **state)
{
    static const struct {
        const char *name;
        int64_t weight;
    } want[] = {
        { "SelectorSpreadPriority", 1 },
        { "InterPodAffinityPriority", 1 },
        { "LeastRequestedPriority", 1 },
        { "BalancedResourceAllocation", 1 },
        { "NodePreferAvoidPodsPriority", 10000 },
        { "NodeAffinityPriority", 1 },
        { "TaintTolerationPriority", 1 },
        { "ImageLocalityPriority", 1 },
        { "EvenPodsSpreadPriority", 2 },
    };
    size_t n, i, j, count = 0;
    const struct prio_def *const *r = prio_registry(&n);

    (void)state;
    for (i = 0; i < n; i++) {
        if (!(r[i]->flags & PRIO_DEFAULT))
            continue;
        count++;
        for (j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
            if (!strcmp(want[j].name, r[i]->name))
                break;
        }
        if (j == sizeof(want) / sizeof(want[0]))
            fail_msg("%s is not a v1.22 default priority", r[i]->name);
        if (want[j].weight != r[i]->default_weight)
            fail_msg("%s: default weight %lld, want %lld", r[i]->name,
                     (long long)r[i]->default_weight,
                     (long long)want[j].weight);
    }
    assert_int_equal(count, 9);
}

/* The names registered in v1.22 (4.2 of the reference) and no others. */
static void v122_registered_names_should_resolve(void **state)
{
    static const char *const preds[] = {
        "CheckNodeUnschedulable",
        "GeneralPredicates",
        "HostName",
        "PodFitsHostPorts",
        "MatchNodeSelector",
        "PodFitsResources",
        "NoDiskConflict",
        "PodToleratesNodeTaints",
        "CheckNodeLabelPresence",
        "CheckServiceAffinity",
        "MaxEBSVolumeCount",
        "MaxGCEPDVolumeCount",
        "MaxCSIVolumeCountPred",
        "MaxAzureDiskVolumeCount",
        "MaxCinderVolumeCount",
        "CheckVolumeBinding",
        "NoVolumeZoneConflict",
        "EvenPodsSpread",
        "MatchInterPodAffinity",
        "PodFitsPorts",
    };
    static const char *const prios[] = {
        "SelectorSpreadPriority",   "TaintTolerationPriority",
        "NodeAffinityPriority",     "ImageLocalityPriority",
        "InterPodAffinityPriority", "NodePreferAvoidPodsPriority",
        "MostRequestedPriority",    "BalancedResourceAllocation",
        "LeastRequestedPriority",   "EvenPodsSpreadPriority",
        "RequestedToCapacityRatio", "NodeLabel",
        "ServiceAffinity",          "ServiceSpreadingPriority",
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(preds) / sizeof(preds[0]); i++) {
        const struct pred_def *d = pred_lookup(preds[i]);

        if (!d || (d->flags & (PRED_LEGACY | PRED_EXTENSION)))
            fail_msg("%s should be a v1.22 predicate", preds[i]);
    }
    for (i = 0; i < sizeof(prios) / sizeof(prios[0]); i++) {
        const struct prio_def *d = prio_lookup(prios[i]);

        if (!d || (d->flags & (PRIO_LEGACY | PRIO_EXTENSION)))
            fail_msg("%s should be a v1.22 priority", prios[i]);
    }
    assert_null(prio_lookup("RequestedToCapacityRatioPriority"));
    assert_null(pred_lookup("PodFitsHostNw"));
}

/* A filter plugin object: named, a filter, every reason it gives listed. */
static void check_pred_plugin(const struct pred_def *d,
                              const struct pred_plugin *pl)
{
    if (!pl->ref.name || !*pl->ref.name)
        fail_msg("%s: a plugin without a name", d->name);
    if (!pl->filter)
        fail_msg("%s: plugin %s has no filter function", d->name, pl->ref.name);
    if (!pl->reasons || !pl->reasons[0])
        fail_msg("%s: plugin %s lists no reason", d->name, pl->ref.name);
    if (pred_plugin_find(pl->ref.name) != pl)
        fail_msg("%s: plugin name %s is used by another plugin", d->name,
                 pl->ref.name);
}

/*
 * Every descriptor is complete (issue 16): a doc line, code to run (its
 * v1.22 plugins or its own), a filter and reasons for each, and own code
 * registered under the Policy name itself.
 */
static void predicate_descriptors_should_be_complete(void **state)
{
    size_t n, i, j;
    const struct pred_def *const *r = pred_registry(&n);

    (void)state;
    for (i = 0; i < n; i++) {
        if (!r[i]->doc || !*r[i]->doc)
            fail_msg("%s: no doc line", r[i]->name);
        if (!r[i]->plugins[0] == !r[i]->own)
            fail_msg("%s: needs either v1.22 plugins or its own code",
                     r[i]->name);
        /* every predicate argument takes the schema route */
        if (r[i]->parse_args && !r[i]->args)
            fail_msg("%s: typed arguments without a schema to show them",
                     r[i]->name);
        for (j = 0; j < KPE_MAX_PLUGINS && r[i]->plugins[j]; j++)
            check_pred_plugin(r[i], r[i]->plugins[j]);
        if (r[i]->own) {
            check_pred_plugin(r[i], r[i]->own);
            if (strcmp(r[i]->own->ref.name, r[i]->name) ||
                r[i]->own->ref.points)
                fail_msg("%s: own code must carry the Policy name and no "
                         "v1.22 extension point",
                         r[i]->name);
        }
    }
}

static void check_prio_plugin(const struct prio_def *d,
                              const struct prio_plugin *pl)
{
    if (!pl->ref.name || !*pl->ref.name)
        fail_msg("%s: a plugin without a name", d->name);
    if (!pl->score)
        fail_msg("%s: plugin %s has no score function", d->name, pl->ref.name);
    if (prio_plugin_find(pl->ref.name) != pl)
        fail_msg("%s: plugin name %s is used by another plugin", d->name,
                 pl->ref.name);
}

static void priority_descriptors_should_be_complete(void **state)
{
    size_t n, i;
    const struct prio_def *const *r = prio_registry(&n);

    (void)state;
    for (i = 0; i < n; i++) {
        bool skipped = r[i]->flags & PRIO_SKIPPED;

        if (!r[i]->doc || !*r[i]->doc)
            fail_msg("%s: no doc line", r[i]->name);
        /* a value made at load time is shown through a schema */
        if ((r[i]->parse_args || r[i]->finish) && !r[i]->resolved &&
            !r[i]->args)
            fail_msg("%s: typed arguments without a schema to show them",
                     r[i]->name);
        if (skipped != (!r[i]->plugins[0] && !r[i]->own))
            fail_msg("%s: only a skipped name may have no code", r[i]->name);
        if (r[i]->plugins[0] && r[i]->own)
            fail_msg("%s: both a v1.22 plugin and own code", r[i]->name);
        if (r[i]->plugins[0])
            check_prio_plugin(r[i], r[i]->plugins[0]);
        if (r[i]->gate_off)
            check_prio_plugin(r[i], r[i]->gate_off);
        if (r[i]->own) {
            check_prio_plugin(r[i], r[i]->own);
            if (strcmp(r[i]->own->ref.name, r[i]->name))
                fail_msg("%s: own code must carry the Policy name", r[i]->name);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predicate_names_should_be_unique_including_aliases),
        cmocka_unit_test(priority_names_should_be_unique_and_sorted),
        cmocka_unit_test(predicate_rows_should_follow_v122_ordering),
        cmocka_unit_test(rows_should_be_well_formed),
        cmocka_unit_test(predicate_descriptors_should_be_complete),
        cmocka_unit_test(priority_descriptors_should_be_complete),
        cmocka_unit_test(default_predicates_should_match_v122),
        cmocka_unit_test(default_priorities_should_match_v122),
        cmocka_unit_test(v122_registered_names_should_resolve),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
