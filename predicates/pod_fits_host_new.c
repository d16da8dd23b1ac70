/*
 * pod_fits_host_new.c: PodFitsHostNew, also registered as
 * CustomPredicatePolicy (seed 002): the custom predicate compiled into a
 * rebuilt v1.13-era kube-scheduler. A pod with spec.nodeName fits only the
 * node of that name; a pod without one fits everywhere. The decision is
 * HostName's; the reason is the seed's ErrPodNotMatchHostName.
 */
#include "predicates/plugins.h"
#include "predicates/reasons.h"

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
