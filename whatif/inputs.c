/*
 * inputs.c: the shared inputs of the read-only commands (inputs.h).
 */
#include "whatif/inputs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kube/client/kubeconfig.h"
#include "kube/cluster/snapshot_file.h"
#include "kube/parse/parse.h"
#include "whatif/live_list.h"

#define DEFAULT_TIMEOUT_S 60.0

int whatif_inputs_option(struct whatif_inputs *in, const char *opt,
                         const char *val, struct err *e)
{
    char *end;

    if (!strcmp(opt, "--cluster")) {
        if (in->n_clusters == WHATIF_MAX_CLUSTER_FILES)
            return err_set(e, "at most %d --cluster files",
                           WHATIF_MAX_CLUSTER_FILES);
        in->clusters[in->n_clusters++] = val;
    } else if (!strcmp(opt, "--kubeconfig")) {
        in->kubeconfig = val;
    } else if (!strcmp(opt, "--context")) {
        in->context = val;
    } else if (!strcmp(opt, "--master")) {
        in->master = val;
    } else if (!strcmp(opt, "-n") || !strcmp(opt, "--namespace")) {
        if (!*val)
            return err_set(e, "%s: empty namespace", opt);
        in->namespace = val;
    } else if (!strcmp(opt, "--request-timeout")) {
        in->timeout_s = strtod(val, &end);
        if (end == val || *end || !(in->timeout_s > 0))
            return err_set(e,
                           "--request-timeout: expected seconds > 0, got "
                           "\"%s\"",
                           val);
    } else {
        return 0;
    }
    return 1;
}

static bool is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* kubectl's kubeconfig: $KUBECONFIG's first file, else ~/.kube/config. */
static const char *default_kubeconfig(struct arena *a)
{
    const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");
    char *p;

    if (env && *env) {
        size_t n = strcspn(env, ":");

        return arena_strndup(a, env, n);
    }
    if (!home || !*home)
        return NULL;
    p = arena_sprintf(a, "%s/.kube/config", home);
    return p && is_file(p) ? p : NULL;
}

static int load_live(struct whatif_inputs *in, unsigned needs, struct arena *a,
                     struct kube_objects *objs, struct err *e)
{
    struct kube_conn_opts co = { in->kubeconfig, in->context, in->master,
                                 NULL };
    struct kube_client_opts cl = { 0 };
    struct kube_conn conn;

    if (!co.kubeconfig && !co.master)
        co.kubeconfig = default_kubeconfig(a);
    if (kube_conn_resolve(&co, &conn, e) < 0)
        return -1;
    if (!in->namespace && conn.namespace)
        in->namespace = arena_strdup(a, conn.namespace);
    cl.user_agent = "kube-policy-extender/whatif";
    cl.request_timeout_ms =
        (long)((in->timeout_s > 0 ? in->timeout_s : DEFAULT_TIMEOUT_S) * 1000);
    in->client = kube_client_new(&conn, &cl, e);
    if (!in->client)
        return -1;
    in->source = arena_strdup(a, in->client->conn.server);
    return whatif_list_live(
        in->client, whatif_kinds_for(needs),
        in->timeout_s > 0 ? in->timeout_s : DEFAULT_TIMEOUT_S, a, objs, e);
}

int whatif_inputs_load(struct whatif_inputs *in, unsigned needs,
                       struct arena *a, struct kube_objects *objs,
                       struct err *e)
{
    if (in->n_clusters && (in->kubeconfig || in->master || in->context))
        return err_set(e, "--cluster reads a snapshot: give it or "
                          "--kubeconfig/--context/--master, not both");
    if (!in->n_clusters)
        return load_live(in, needs, a, objs, e);
    in->source = in->clusters[0];
    return kube_snapshot_load_files(a, in->clusters, in->n_clusters, objs, e);
}

void whatif_inputs_free(struct whatif_inputs *in)
{
    kube_client_free(in->client);
    in->client = NULL;
}

const char *whatif_inputs_namespace(const struct whatif_inputs *in)
{
    return in->namespace ? in->namespace : "default";
}

static int pod_from_file(const char *path, struct arena *a,
                         const struct kube_pod **out, struct err *e)
{
    struct kube_pod *pod = arena_calloc(a, 1, sizeof(*pod));
    size_t len;
    char *text;

    if (!pod)
        return err_set(e, "out of memory");
    text = kube_read_file(a, path, KUBE_SNAPSHOT_MAX_FILE, &len, e);
    if (!text)
        return -1;
    if (kube_parse_pod_text(a, text, len, pod, e) < 0)
        return err_prefix(e, "%s: ", path);
    *out = pod;
    return 0;
}

int whatif_inputs_pod(const struct whatif_inputs *in, const char *spec,
                      const struct kube_objects *objs, struct arena *a,
                      const struct kube_pod **out, bool *from_file,
                      struct err *e)
{
    const char *ns = whatif_inputs_namespace(in), *name = spec, *slash;
    size_t i, ns_len;

    *from_file = is_file(spec);
    if (*from_file)
        return pod_from_file(spec, a, out, e);
    if (!strncmp(spec, "pod/", 4) || !strncmp(spec, "pods/", 5))
        name = strchr(spec, '/') + 1;
    slash = strchr(name, '/');
    ns_len = strlen(ns);
    if (slash) {
        ns = name;
        ns_len = (size_t)(slash - name);
        name = slash + 1;
    }
    if (!*name || !ns_len || strchr(name, '/'))
        return err_set(e,
                       "--pod \"%s\": neither a file nor a pod reference "
                       "(NAMESPACE/NAME, pod/NAME or NAME)",
                       spec);
    for (i = 0; i < objs->n_pods; i++) {
        const struct kube_pod *p = objs->pods[i];

        if (!strcmp(p->name, name) && strlen(p->namespace) == ns_len &&
            !strncmp(p->namespace, ns, ns_len)) {
            *out = p;
            return 0;
        }
    }
    return err_set(e, "--pod \"%s\": no pod %.*s/%s in the cluster (%s)", spec,
                   (int)ns_len, ns, name, in->source ? in->source : "?");
}
