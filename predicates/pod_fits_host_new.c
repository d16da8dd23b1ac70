/*
 * pod_fits_host_new.c: PodFitsHostNew, also registered as
 * CustomPredicatePolicy (seed 002): the custom predicate compiled into a
 * rebuilt v1.13-era kube-scheduler. A pod with spec.nodeName fits only the
 * node of that name; a pod without one fits everywhere. The decision is
 * HostName's; the reason is the seed's ErrPodNotMatchHostName.
 */
#include "predicates/plugins.h"
#include "predicates/pod_fits_host_new.h"
#include "predicates/predicates.h"

#define PRED_NAME_POD_FITS_HOST_NEW       "PodFitsHostNew"
#define PRED_NAME_CUSTOM_PREDICATE_POLICY "CustomPredicatePolicy"

enum pred_code pred_pod_fits_host_new_filter(const struct pred_cycle *cy,
                                             const void *args,
                                             const void *state,
                                             const struct node_info *ni,
                                             struct pred_result *r)
{
    struct pred_result scratch;

    pred_result_init(&scratch, NULL);
    if (pred_node_name_filter(cy, args, state, ni, &scratch) == PRED_FIT)
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_HOST_NAME_SEED);
}

const struct pred_plugin pred_plugin_pod_fits_host_new = {
    { PRED_NAME_POD_FITS_HOST_NEW, 0 },
    NULL,
    pred_pod_fits_host_new_filter,
    (const char *const[]){ PRED_REASON_HOST_NAME_SEED, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_pod_fits_host_new = {
    .name = PRED_NAME_POD_FITS_HOST_NEW,
    .aliases = (const char *const[]){ PRED_NAME_CUSTOM_PREDICATE_POLICY, NULL },
    .flags = PRED_EXTENSION,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_pod_fits_host_new,
    .doc = "seed 002: a pod with spec.nodeName fits only that node",
};
