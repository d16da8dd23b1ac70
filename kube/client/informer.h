/*
 * informer.h: list+watch of the kinds the predicates read, as client-go's
 * reflector does it: a paginated list (limit/continue), then a watch from
 * the list's resourceVersion with bookmarks, a fresh list when the server
 * says 410 Gone or sends what we cannot read, relists and reconnects with
 * capped exponential backoff and jitter (kube/client/backoff.h). One
 * thread drives every informer through libcurl's multi interface, so
 * request handling never waits on the network.
 *
 * What the API server sends is bounded: a list page (before and after
 * decompression), a watch event, and all the API data held at once by
 * every informer (texts being received and the trees parsed from them)
 * against one budget; past a bound the transfer fails, is logged with the
 * resource and the size, and is retried after the backoff.
 *
 * Objects reach a sink (the cache, kube/client/cache.h) as parsed JSON in
 * batches; the sink decodes what it keeps.
 */
#ifndef KUBE_CLIENT_INFORMER_H
#define KUBE_CLIENT_INFORMER_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/client/client.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

struct cJSON;

enum kube_event_type {
    KUBE_EVENT_ADDED,
    KUBE_EVENT_MODIFIED,
    KUBE_EVENT_DELETED,
    KUBE_EVENT_BOOKMARK, /* never passed to a sink */
    KUBE_EVENT_ERROR,    /* never passed to a sink */
};

/* One watch event, or one list item (as ADDED). */
struct kube_watch_event {
    enum kube_event_type type;
    const struct cJSON *object; /* valid during the sink call only */
};

/*
 * Where events go. All three run on the informer thread. A list of kind
 * starts with list_begin (objects of that kind not delivered again before
 * list_end are gone: a relist replaces), delivers pages through apply,
 * and ends with list_end. A failed apply (-1, e set: objects that did
 * not decode) is logged and the stream goes on: a relist would not make
 * them decode.
 */
struct kube_informer_sink {
    void (*list_begin)(void *arg, enum kube_kind kind);
    int (*apply)(void *arg, enum kube_kind kind,
                 const struct kube_watch_event *ev, size_t n, struct err *e);
    void (*list_end)(void *arg, enum kube_kind kind);
    void *arg;
};

/* A watchable collection. */
struct kube_resource {
    enum kube_kind kind;
    const char *name; /* "pods" */
    const char *path; /* "/api/v1/pods": cluster-wide, all namespaces */
};

/* The row for kind, or NULL when kind is not watched. */
const struct kube_resource *kube_resource_for(enum kube_kind kind);

/* A bit per kind for kube_informer_opts.kinds. */
#define KUBE_KIND_BIT(k) (1u << (unsigned)(k))
/* The eleven kinds every cache keeps: all but KUBE_KIND_UNKNOWN and
 * KUBE_KIND_PDB. */
#define KUBE_KINDS_ALL 0xffeu
/* schedule's: those and PodDisruptionBudgets (preemption counts them). */
#define KUBE_KINDS_SCHEDULE (KUBE_KINDS_ALL | KUBE_KIND_BIT(KUBE_KIND_PDB))

/* Log levels for kube_log_fn. */
#define KUBE_LOG_INFO  0
#define KUBE_LOG_WARN  1
#define KUBE_LOG_ERROR 2

typedef void kube_log_fn(void *arg, int level, const char *msg);

/* The largest watch event line: client-go's streaming decoder's limit
 * (apimachinery runtime/serializer/streaming: maxBytes 16 MiB). */
#define KUBE_WATCH_EVENT_MAX ((size_t)16 << 20)
/* All API data the informers hold at once: texts received and not yet
 * parsed, and the trees parsed from them. */
#define KUBE_INFORMER_MEMORY ((size_t)64 << 20)

/* Tuning; zero members take the defaults in brackets. */
struct kube_informer_opts {
    unsigned kinds;         /* KUBE_KIND_BIT()s [KUBE_KINDS_ALL] */
    long page_size;         /* list limit [500] */
    double backoff_base;    /* seconds before the first retry [0.8] */
    double backoff_cap;     /* longest un-jittered wait [30] */
    double backoff_reset;   /* seconds without a retry that start the
                               backoff over [120] */
    double jitter;          /* up to this fraction more, random [1.0];
                               negative: none */
    size_t list_page_max;   /* bytes [KUBE_LIST_PAGE_MAX, client.h] */
    size_t watch_event_max; /* bytes [KUBE_WATCH_EVENT_MAX] */
    size_t memory;          /* bytes [KUBE_INFORMER_MEMORY] */
    long watch_timeout_s;   /* timeoutSeconds [random 300..599] */
    long watch_idle_s;      /* low-speed limit: a watch silent this long is
                               re-established [150] */
    long list_timeout_ms;   /* per list page [the client's request timeout] */
    bool list_only;         /* list each kind once, never watch */
    kube_log_fn *log;       /* NULL: stderr */
    void *log_arg;
};

/* What /readyz and logs show about the connection. */
struct kube_informers_status {
    bool synced;           /* every informer has listed once */
    bool auth_failed;      /* the last failure was 401 or 403 */
    long last_http_status; /* of the last failed request; 0: transport */
    char last_error[512];  /* "" when the last request succeeded */
    unsigned long lists;   /* completed full lists (first lists included) */
    unsigned long relists; /* lists started after the first one */
    unsigned long watches; /* watch requests started */
    unsigned long events;  /* events delivered */
};

struct kube_informers;

/*
 * Start one informer per kind in o->kinds (o may be NULL) on a new thread,
 * delivering to sink (copied; sink->arg must outlive the informers).
 * Returns 0 with *out set, or -1 with e set.
 */
int kube_informers_start(struct kube_client *client,
                         const struct kube_informer_sink *sink,
                         const struct kube_informer_opts *o,
                         struct kube_informers **out, struct err *e);

/* Stop the thread, abort transfers and free. NULL is fine. */
void kube_informers_stop(struct kube_informers *infs);

/* A consistent copy of the status (safe from any thread). */
void kube_informers_status(struct kube_informers *infs,
                           struct kube_informers_status *out);

/* ---- the watch stream, exposed for tests ---- */

/*
 * Splits a byte stream into lines ('\n'-terminated; '\r' before it and
 * blank lines are dropped) whatever the chunk boundaries, holding a
 * partial line across calls. Lines longer than max (0:
 * KUBE_WATCH_EVENT_MAX) fail; the partial line's buffer never grows past
 * max + 1 bytes (cap says how big it is).
 */
struct kube_lines {
    char *buf; /* the partial line */
    size_t len, cap, max;
};

typedef int kube_line_fn(void *arg, const char *line, size_t len);

#define KUBE_LINES_TOO_LONG (-1)
#define KUBE_LINES_NOMEM    (-2)

/*
 * Feed n bytes; calls fn for each complete line (the text is valid only
 * during the call). Returns 0, or fn's non-zero result (which must be
 * positive), or KUBE_LINES_TOO_LONG when a line is longer than max, or
 * KUBE_LINES_NOMEM when memory ran out.
 */
int kube_lines_feed(struct kube_lines *ls, const char *p, size_t n,
                    kube_line_fn *fn, void *arg);
void kube_lines_free(struct kube_lines *ls);

/*
 * Parse one watch event line ({"type":..,"object":..}) into a tree in a.
 * Returns 0 with *type and *object set, or -1 with e set (bad JSON, an
 * unknown type, no object).
 */
int kube_watch_event_parse(struct arena *a, const char *line, size_t len,
                           enum kube_event_type *type,
                           const struct cJSON **object, struct err *e);

/* metadata.resourceVersion of an object, or NULL. */
const char *kube_object_rv(const struct cJSON *obj);

#endif
