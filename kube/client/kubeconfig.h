/*
 * kubeconfig.h: where the API server is and how to authenticate to it, from
 * a kubeconfig file (libyaml), from the in-cluster service account, or from
 * --master alone, as client-go's clientcmd.BuildConfigFromFlags decides.
 * Every file the config names is read here, so a bad path or bad base64
 * fails at start-up with a message naming the file and the entry.
 */
#ifndef KUBE_CLIENT_KUBECONFIG_H
#define KUBE_CLIENT_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/err.h"

#define KUBE_SA_TOKEN_FILE "/var/run/secrets/kubernetes.io/serviceaccount/token"
#define KUBE_SA_CA_FILE    "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"

/*
 * A resolved connection. Every pointer is malloc'd and owned by the
 * struct (kube_conn_free); blobs are PEM text as read or base64-decoded,
 * not NUL-terminated in general (use the lengths).
 */
struct kube_conn {
    char *server; /* base URL, no trailing '/' ("https://10.0.0.1:443") */
    char *ca;     /* CA bundle PEM; NULL: the system store */
    size_t ca_len;
    bool insecure;    /* insecure-skip-tls-verify */
    char *token;      /* static bearer token; NULL: none */
    char *token_file; /* bearer token re-read when the file changes */
    char *cert;       /* client certificate PEM; NULL: none */
    size_t cert_len;
    char *key; /* client key PEM */
    size_t key_len;
    char *namespace; /* context namespace; NULL when unset */
    char *origin;    /* for messages: "kubeconfig PATH" or "in-cluster" */
};

/* Where in-cluster configuration comes from; NULL members: the defaults. */
struct kube_in_cluster_paths {
    const char *host;       /* default: $KUBERNETES_SERVICE_HOST */
    const char *port;       /* default: $KUBERNETES_SERVICE_PORT */
    const char *token_file; /* default: KUBE_SA_TOKEN_FILE */
    const char *ca_file;    /* default: KUBE_SA_CA_FILE */
};

/* What the command line said (all optional). */
struct kube_conn_opts {
    const char *kubeconfig; /* --kubeconfig PATH */
    const char *context;    /* --context NAME: instead of current-context */
    const char *master;     /* --master URL: overrides the server URL */
    const struct kube_in_cluster_paths *in_cluster; /* NULL: defaults */
};

/*
 * Resolve a connection as BuildConfigFromFlags does: with a kubeconfig,
 * read it (master, if given, overrides its server); with only master, use
 * that URL with no credentials; with neither, the in-cluster config.
 * out is overwritten. Returns 0, or -1 with e set, e.g.
 *   kubeconfig /root/.kube/config: context "x" not found
 *   kubeconfig k.yaml: user "u": client-key-data: invalid base64
 */
int kube_conn_resolve(const struct kube_conn_opts *o, struct kube_conn *out,
                      struct err *e);

/*
 * Read a kubeconfig file. context NULL uses current-context. Relative
 * file paths inside resolve against the file's directory (as kubectl
 * does). Returns 0, or -1 with e set ("kubeconfig PATH: ...").
 */
int kube_kubeconfig_load(const char *path, const char *context,
                         struct kube_conn *out, struct err *e);

/* The same from text already in memory; path is used for messages. */
int kube_kubeconfig_parse(const char *text, size_t len, const char *path,
                          const char *context, struct kube_conn *out,
                          struct err *e);

/*
 * The in-cluster config: https://HOST:PORT (IPv6 hosts bracketed), the
 * service account token file (which must be readable now and is re-read
 * whenever it changes) and its CA. paths may be NULL.
 */
int kube_conn_in_cluster(const struct kube_in_cluster_paths *paths,
                         struct kube_conn *out, struct err *e);

/*
 * An API server URL as we take it: no control character or space, no
 * user name or password (`user:pass@host`: basic auth is refused, and a
 * password in the URL would be printed with every message that names the
 * server), no query or fragment (they would swallow the API paths
 * appended to the URL). what names the field for messages ("cluster
 * \"k\": server", "--master"); the URL itself is never quoted. Returns 0,
 * or -1 with e set.
 */
int kube_server_url_check(const char *what, const char *url, struct err *e);

/*
 * A value that goes into an HTTP request header (token, user agent):
 * control characters (C0, including CR, LF, NUL and tab, and DEL) are
 * refused, so that no value can end its header and start another. v[0..n)
 * may hold NULs. what names the field ("user \"u\": token"); the value is
 * never quoted. Returns 0, or -1 with e set.
 */
int kube_header_value_check(const char *what, const char *v, size_t n,
                            struct err *e);

/* Free what out owns and zero it. NULL and zeroed structs are fine. */
void kube_conn_free(struct kube_conn *c);

/*
 * Standard base64 with padding (Go's base64.StdEncoding), whitespace
 * ignored. Returns a malloc'd buffer (NUL-terminated, *out_len bytes
 * before the NUL) or NULL when the input is not valid base64 or memory
 * ran out (then *bad tells which: 1 invalid, 0 out of memory).
 */
char *kube_base64_decode(const char *in, size_t len, size_t *out_len, int *bad);

/* Read a whole file into a malloc'd NUL-terminated buffer; NULL, e set. */
char *kube_slurp_file(const char *path, size_t max, size_t *len, struct err *e);

#endif
