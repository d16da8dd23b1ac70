/*
 * inputs.h: what every read-only command (explain, simulate, diff) reads,
 * given the same way: the cluster from --cluster FILE(s) or from a live
 * API server (--kubeconfig, --context, --master, else $KUBECONFIG or
 * ~/.kube/config as kubectl finds them, else in-cluster), listed once;
 * pods from a reference (ns/name, name with -n/--namespace, pod/name) or
 * a file (a Pod, or a workload whose pod template is used).
 */
#ifndef WHATIF_INPUTS_H
#define WHATIF_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/client/client.h"
#include "kube/model/types.h"

#define WHATIF_MAX_CLUSTER_FILES 64

struct whatif_inputs {
    const char *clusters[WHATIF_MAX_CLUSTER_FILES];
    size_t n_clusters;
    const char *kubeconfig; /* --kubeconfig */
    const char *context;    /* --context */
    const char *master;     /* --master */
    const char *namespace;  /* -n / --namespace; NULL: the context's */
    double timeout_s;       /* --request-timeout for the list [60] */
    /* After whatif_inputs_load: the live client (NULL for files). */
    struct kube_client *client;
    const char *source; /* "cluster.json" or the API server's URL */
};

/*
 * Take option opt (with its value val) when it is one of ours. Returns 1
 * when taken, 0 when not ours, -1 with e set on a bad value.
 */
int whatif_inputs_option(struct whatif_inputs *in, const char *opt,
                         const char *val, struct err *e);

/*
 * Read the cluster into objs (zeroed by the caller), objects from a:
 * the files in order, or one list of the kinds for these KPE_NEED_*
 * flags from the API server (in->client stays open for the caller).
 * Returns 0, or -1 with e set ("FILE: where: why", "API server URL:
 * why", "kubeconfig PATH: ...").
 */
int whatif_inputs_load(struct whatif_inputs *in, unsigned needs,
                       struct arena *a, struct kube_objects *objs,
                       struct err *e);

/* Close the live client (if any). */
void whatif_inputs_free(struct whatif_inputs *in);

/* The namespace a bare pod name means: -n, else the context's, else
 * "default". */
const char *whatif_inputs_namespace(const struct whatif_inputs *in);

/*
 * The pod `spec` names: an existing file (Pod or workload), else a
 * reference to a pod of objs ("ns/name", "pod/name" or "name" in
 * whatif_inputs_namespace). *out points into objs or into a. Returns 0,
 * or -1 with e set ("--pod default/web: no such pod in the cluster").
 */
int whatif_inputs_pod(const struct whatif_inputs *in, const char *spec,
                      const struct kube_objects *objs, struct arena *a,
                      const struct kube_pod **out, bool *from_file,
                      struct err *e);

#endif
