/*
 * client.h: the Kubernetes API client over libcurl. Holds the resolved
 * connection (kubeconfig.h), prepares easy handles with TLS, credentials
 * and timeouts for the informers (informer.h), and performs the few
 * writes the extender makes (Binding, Event, pod status) synchronously,
 * through one token bucket shared by all writes (kube-scheduler's
 * --kube-api-qps=50 / --kube-api-burst=100).
 *
 * Thread safety: a client may be used from several threads at once (the
 * informer thread and request handlers); the token-file cache and the
 * rate limiter have their own locks. curl_global_init is the caller's
 * (main's) business.
 */
#ifndef KUBE_CLIENT_CLIENT_H
#define KUBE_CLIENT_CLIENT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/base/clock.h"
#include "kube/base/err.h"
#include "kube/client/kubeconfig.h"

#define KUBE_CLIENT_DEFAULT_QPS   50.0
#define KUBE_CLIENT_DEFAULT_BURST 100

/* kube_client_bind: the pod is bound already (HTTP 409 Conflict). */
#define KUBE_CLIENT_ALREADY_BOUND (-2)

/* kube_client_create_event, kube_client_bind: no HTTP answer at all (the
 * server could not be reached or dropped the connection): worth trying
 * again, and the request may or may not have taken effect. */
#define KUBE_CLIENT_UNREACHABLE (-3)

/* kube_client_create_event: HTTP 403. A kube-apiserver that has just
 * started answers 403 until its RBAC authorizer has synced its roles
 * (before /readyz says informer-sync ok), so this can pass too. */
#define KUBE_CLIENT_FORBIDDEN (-4)
/* A pod to delete is gone already, or is another pod by now (UID). */
#define KUBE_CLIENT_GONE (-5)

/*
 * A token bucket as golang.org/x/time/rate: `burst` tokens, refilled at
 * `qps` per second; a reservation may drive the bucket negative and
 * returns how long the caller must wait.
 */
struct kube_ratelimit {
    pthread_mutex_t lock;
    double qps;
    double burst;
    double tokens;
    double last; /* monotonic seconds of the last update */
};

/* qps <= 0 disables limiting; burst < 1 counts as 1. */
void kube_ratelimit_init(struct kube_ratelimit *rl, double qps, int burst);
void kube_ratelimit_destroy(struct kube_ratelimit *rl);

/* Take one token at time now (seconds); returns the wait in seconds. */
double kube_ratelimit_reserve(struct kube_ratelimit *rl, double now);

/* Take one token, sleeping as long as needed. */
void kube_ratelimit_wait(struct kube_ratelimit *rl);

struct kube_client_opts {
    double qps;              /* writes per second; 0: 50, < 0: no limit */
    int burst;               /* 0: 100 */
    long connect_timeout_ms; /* 0: 10 s */
    long request_timeout_ms; /* lists and writes; 0: 60 s */
    const char *user_agent;  /* NULL: "kube-policy-extender" */
};

/*
 * The largest answer taken from the API server, as sent and decompressed:
 * a list page of 500 objects (the page size we ask for, as client-go's
 * pager does) of 64 KiB each on average, where a full Node (50 images, 30
 * labels, managedFields) is about 15 KiB and a Pod with managedFields 5
 * to 20 KiB. Synchronous requests and the informers' list pages are
 * refused past it.
 */
#define KUBE_LIST_PAGE_MAX ((size_t)32 << 20)

/* Idle request handles (and so connections) a client keeps. */
#define KUBE_CLIENT_POOL 32

struct kube_client {
    struct kube_conn conn; /* owned */
    struct kube_client_opts opts;
    struct kube_ratelimit writes;

    pthread_mutex_t token_lock; /* guards the token file cache */
    char *file_token;           /* last token read from conn.token_file */
    long long token_mtime_ns;
    unsigned long long token_ino;
    long long token_size;

    /* Idle easy handles of kube_client_request, kept with their open
     * connections (HTTP keep-alive, as client-go's transport does). */
    pthread_mutex_t pool_lock;
    CURL *pool[KUBE_CLIENT_POOL];
    int n_pool;
};

/*
 * Make a client that takes over conn's contents (conn is zeroed). opts
 * may be NULL. Returns NULL with e set on failure (conn is freed then).
 */
struct kube_client *kube_client_new(struct kube_conn *conn,
                                    const struct kube_client_opts *opts,
                                    struct err *e);
void kube_client_free(struct kube_client *c);

/*
 * Point the easy handle h at server + path (path starts with '/', query
 * included) with TLS settings, client certificate, timeouts and an error
 * buffer left to the caller. *headers receives the Authorization and
 * Accept headers (the caller appends more and frees the list after the
 * transfer). The token file, if any, is re-read when it changed since the
 * last call. Returns 0, or -1 with e set (unreadable token file).
 */
int kube_client_prepare(struct kube_client *c, CURL *h, const char *path,
                        struct curl_slist **headers, struct err *e);

/* The bearer token in effect now (malloc'd copy), or NULL when none. */
char *kube_client_token(struct kube_client *c, struct err *e);

/* A finished synchronous request. body is malloc'd, NUL-terminated. */
struct kube_response {
    long status; /* HTTP status; 0 when the transfer failed */
    char *body;
    size_t len;
};

void kube_response_free(struct kube_response *r);

/*
 * Perform method (GET, POST, PATCH, ...) on path with an optional body,
 * blocking up to the request timeout. Writes (everything but GET) first
 * wait for the rate limiter. Returns 0 when an HTTP answer arrived (any
 * status; see out->status), -1 with e set when none did or when it was
 * larger than KUBE_LIST_PAGE_MAX (as sent or decompressed). The writes
 * below (bind, events, status patches) keep only the first 64 KiB of
 * their answers, which they read for the status message.
 */
int kube_client_request(struct kube_client *c, const char *method,
                        const char *path, const char *content_type,
                        const char *body, size_t len, struct kube_response *out,
                        struct err *e);

/*
 * The message of a failed API answer: the Status object's "message" when
 * the body is one, else the body's start. Writes into buf and returns it.
 */
const char *kube_status_message(const struct kube_response *r, char *buf,
                                size_t sz);

/*
 * POST a v1 Binding of pod ns/name (uid may be NULL) to node, as the
 * default binder does. Returns 0 when bound (201), KUBE_CLIENT_ALREADY_BOUND
 * on 409 Conflict, KUBE_CLIENT_UNREACHABLE when no answer came (the pod
 * may be bound or not), -1 on any other failure; e is set unless 0.
 */
int kube_client_bind(struct kube_client *c, const char *ns, const char *name,
                     const char *uid, const char *node, struct err *e);

/* What a v1 Event is about. */
struct kube_event_ref {
    const char *kind; /* "Pod" */
    const char *namespace;
    const char *name;
    const char *uid;
    const char *api_version; /* "v1" when NULL */
};

/*
 * Create a v1 Event in ref->namespace (type "Normal" or "Warning"),
 * from component (e.g. "kube-policy-extender"). Returns 0 or -1, e set.
 */
/* (Returns KUBE_CLIENT_UNREACHABLE instead of -1 when no answer came,
 * KUBE_CLIENT_FORBIDDEN when the answer was HTTP 403.) */
int kube_client_create_event(struct kube_client *c,
                             const struct kube_event_ref *ref, const char *type,
                             const char *reason, const char *message,
                             const char *component, struct err *e);

/*
 * Strategic-merge PATCH of pod ns/name's status subresource with the JSON
 * patch text (e.g. a PodScheduled condition). Returns 0 or -1, e set.
 */
int kube_client_patch_pod_status(struct kube_client *c, const char *ns,
                                 const char *name, const char *patch,
                                 struct err *e);

/*
 * DELETE pod ns/name with a UID precondition (preemption's victims): only
 * that incarnation of the pod goes. Returns 0 when deleted (200/202),
 * KUBE_CLIENT_GONE when it is gone already or was replaced (404, or 409
 * from the precondition), -1 on any other failure; e is set unless 0.
 */
int kube_client_delete_pod(struct kube_client *c, const char *ns,
                           const char *name, const char *uid, struct err *e);

#endif
