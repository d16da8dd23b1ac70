/*
 * live_list.h: a one-shot snapshot of a live cluster for the read-only
 * commands (explain, simulate, diff): every kind a Policy reads, listed
 * once through the same client and list code as serve's informers (pages
 * of 500 with limit/continue), never watched, and decoded in full as the
 * objects of a --cluster file are.
 */
#ifndef WHATIF_LIVE_LIST_H
#define WHATIF_LIVE_LIST_H

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/client/client.h"
#include "kube/model/types.h"

/*
 * The kinds (KUBE_KIND_BIT()s) a policy with these KPE_NEED_* flags
 * reads: always nodes and pods, the others as needed.
 */
unsigned whatif_kinds_for(unsigned needs);

/*
 * List every kind in `kinds` once from client's API server into objs
 * (zeroed by the caller), objects from a. Gives up after timeout_s
 * seconds, or at the first failed request (the informers would retry:
 * a command should say why instead). Returns 0, or -1 with e set, e.g.
 * "API server https://h:6443: pods: HTTP 403: ... (forbidden: ...)".
 */
int whatif_list_live(struct kube_client *client, unsigned kinds,
                     double timeout_s, struct arena *a,
                     struct kube_objects *objs, struct err *e);

#endif
