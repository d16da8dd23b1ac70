/*
 * why.h: why a pod is pending, as kube-scheduler said it: its latest
 * FailedScheduling event from the API server, and whether that message
 * agrees with ours. kube-scheduler v1.20 words three reasons differently
 * from v1.22 (the wording this project prints); those are read as their
 * v1.22 wording before comparing:
 *   "node(s) didn't match the requested hostname"      (v1.22: node name)
 *   "node(s) didn't match Pod's node affinity"         (v1.22: .../selector)
 *   "node(s) didn't match pod affinity/anti-affinity"  (v1.22: ... rules)
 */
#ifndef WHATIF_WHY_H
#define WHATIF_WHY_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/client/client.h"
#include "kube/model/types.h"

/* One FailedScheduling event: the latest for its pod. */
struct whatif_event {
    const char *namespace, *name, *uid; /* involvedObject */
    const char *message;
    const char *time; /* lastTimestamp, eventTime or creation, RFC 3339 */
};

/* The latest FailedScheduling event of each pod, from one list. */
struct whatif_events {
    struct whatif_event *v;
    size_t n;
};

/*
 * List the FailedScheduling events (in namespace ns, or every namespace
 * when NULL; of pod `name` when not NULL) into out, keeping each pod's
 * latest. Memory from a. Returns 0, or -1 with e set ("events: HTTP
 * 403: ...").
 */
int whatif_events_list(struct kube_client *c, const char *ns, const char *name,
                       struct arena *a, struct whatif_events *out,
                       struct err *e);

/* The latest event of pod (by uid when both have one), or NULL. */
const struct whatif_event *whatif_events_for(const struct whatif_events *ev,
                                             const struct kube_pod *pod);

/*
 * Whether two FitError summaries say the same ("0/N nodes are available:
 * COUNT REASON, ..." with the same N and the same counted reasons in any
 * order), v1.20 wording read as v1.22's, anything after the summary's
 * closing period (a later version's " preemption: ...") ignored.
 */
bool whatif_fit_messages_agree(const char *ours, const char *theirs);

#endif
