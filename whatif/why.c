/*
 * why.c: FailedScheduling events and the agreement of two FitError
 * summaries (why.h).
 */
#include "whatif/why.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/json_parse.h"

#define MAX_REASONS 64

/* v1.20's wording -> v1.22's (pkg/scheduler/framework/plugins). */
static const struct {
    const char *v120, *v122;
} rewording[] = {
    { "node(s) didn't match the requested hostname",
      "node(s) didn't match the requested node name" },
    { "node(s) didn't match Pod's node affinity",
      "node(s) didn't match Pod's node affinity/selector" },
    { "node(s) didn't match pod affinity/anti-affinity",
      "node(s) didn't match pod affinity/anti-affinity rules" },
};

static const char *s_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* Percent-encode s for a query value. */
static void esc(const char *s, char *out, size_t sz)
{
    size_t n = 0;

    for (; *s && n + 4 < sz; s++) {
        unsigned char c = (unsigned char)*s;

        if (isalnum(c) || strchr("-._~", c))
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, sz - n, "%%%02X", c);
    }
    out[n] = '\0';
}

static const char *event_time(const cJSON *ev)
{
    const char *t = s_of(ev, "lastTimestamp");

    if (!t)
        t = s_of(cJSON_GetObjectItemCaseSensitive(ev, "series"),
                 "lastObservedTime");
    if (!t)
        t = s_of(ev, "eventTime");
    if (!t)
        t = s_of(cJSON_GetObjectItemCaseSensitive(ev, "metadata"),
                 "creationTimestamp");
    return t ? t : "";
}

/* Keep ev when it is its pod's latest; 0 or -1 (out of memory). */
static int keep(struct whatif_events *out, size_t *cap, struct arena *a,
                const cJSON *ev)
{
    const cJSON *io = cJSON_GetObjectItemCaseSensitive(ev, "involvedObject");
    struct whatif_event x;
    size_t i;

    x.namespace = s_of(io, "namespace");
    x.name = s_of(io, "name");
    x.uid = s_of(io, "uid");
    x.message = s_of(ev, "message");
    x.time = event_time(ev);
    if (!x.namespace || !x.name || !x.message)
        return 0;
    for (i = 0; i < out->n; i++) {
        struct whatif_event *o = &out->v[i];

        if (strcmp(o->namespace, x.namespace) || strcmp(o->name, x.name) ||
            (o->uid && x.uid && strcmp(o->uid, x.uid)))
            continue;
        if (strcmp(x.time, o->time) < 0)
            return 0;
        break;
    }
    if (i == out->n && out->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        struct whatif_event *v = arena_alloc(a, nc * sizeof(*v));

        if (!v)
            return -1;
        if (out->n)
            memcpy(v, out->v, out->n * sizeof(*v));
        out->v = v;
        *cap = nc;
    }
    x.namespace = arena_strdup(a, x.namespace);
    x.name = arena_strdup(a, x.name);
    x.uid = x.uid ? arena_strdup(a, x.uid) : NULL;
    x.message = arena_strdup(a, x.message);
    x.time = arena_strdup(a, x.time);
    if (!x.namespace || !x.name || !x.message || !x.time)
        return -1;
    out->v[i] = x;
    if (i == out->n)
        out->n++;
    return 0;
}

int whatif_events_list(struct kube_client *c, const char *ns, const char *name,
                       struct arena *a, struct whatif_events *out,
                       struct err *e)
{
    struct kube_response r = { 0 };
    char path[1024], sel[512], q[600], msg[300];
    cJSON *root;
    const cJSON *it;
    size_t cap = 0;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    snprintf(sel, sizeof(sel), "reason=FailedScheduling%s%s",
             name ? ",involvedObject.name=" : "", name ? name : "");
    esc(sel, q, sizeof(q));
    if (ns)
        snprintf(path, sizeof(path),
                 "/api/v1/namespaces/%s/events?fieldSelector=%s", ns, q);
    else
        snprintf(path, sizeof(path), "/api/v1/events?fieldSelector=%s", q);
    if (kube_client_request(c, "GET", path, NULL, NULL, 0, &r, e) < 0)
        return err_prefix(e, "events: ");
    if (r.status != 200) {
        err_set(e, "events: HTTP %ld: %s", r.status,
                kube_status_message(&r, msg, sizeof(msg)));
        goto out;
    }
    if (json_arena_parse(a, r.body, r.len, 0, &root, e) < 0) {
        err_prefix(e, "events: ");
        goto out;
    }
    it = cJSON_GetObjectItemCaseSensitive(root, "items");
    for (it = cJSON_IsArray(it) ? it->child : NULL; it; it = it->next) {
        if (keep(out, &cap, a, it) < 0) {
            err_set(e, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    kube_response_free(&r);
    return rc;
}

const struct whatif_event *whatif_events_for(const struct whatif_events *ev,
                                             const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < ev->n; i++) {
        const struct whatif_event *x = &ev->v[i];

        if (!strcmp(x->namespace, pod->namespace) &&
            !strcmp(x->name, pod->name) &&
            (!x->uid || !pod->uid || !strcmp(x->uid, pod->uid)))
            return x;
    }
    return NULL;
}

/* A parsed summary: N and the counted reasons, v1.22 wording. */
struct summary {
    long n_nodes;
    size_t n;
    long count[MAX_REASONS];
    char reason[MAX_REASONS][160];
};

static void reword(char *r, size_t sz)
{
    size_t i;

    for (i = 0; i < sizeof(rewording) / sizeof(rewording[0]); i++) {
        if (!strcmp(r, rewording[i].v120)) {
            snprintf(r, sz, "%s", rewording[i].v122);
            return;
        }
    }
}

/* Parse "0/N nodes are available: C R, C R." into s; 0 or -1. */
static int parse_summary(const char *m, struct summary *s)
{
    const char *p, *end;
    char *stop;

    memset(s, 0, sizeof(*s));
    if (strncmp(m, "0/", 2))
        return -1;
    s->n_nodes = strtol(m + 2, &stop, 10);
    if (strncmp(stop, " nodes are available: ", 22))
        return -1;
    p = stop + 22;
    end = strstr(p, ".");
    while (end && end[1] && strncmp(end + 1, " preemption:", 12))
        end = strstr(end + 1, ".");
    if (!end)
        end = p + strlen(p);
    while (p < end && s->n < MAX_REASONS) {
        const char *next = p;
        size_t len;

        s->count[s->n] = strtol(p, &stop, 10);
        if (stop == p || *stop != ' ')
            return -1;
        p = stop + 1;
        /* The next item starts after ", " and a count. */
        for (next = p; next < end; next++) {
            if (next[0] == ',' && next[1] == ' ' &&
                isdigit((unsigned char)next[2]))
                break;
        }
        len = (size_t)(next - p);
        if (len >= sizeof(s->reason[0]))
            len = sizeof(s->reason[0]) - 1;
        memcpy(s->reason[s->n], p, len);
        s->reason[s->n][len] = '\0';
        reword(s->reason[s->n], sizeof(s->reason[0]));
        s->n++;
        p = next < end ? next + 2 : end;
    }
    return 0;
}

bool whatif_fit_messages_agree(const char *ours, const char *theirs)
{
    struct summary a, b;
    bool used[MAX_REASONS] = { false };
    size_t i, j;

    if (!ours || !theirs || parse_summary(ours, &a) < 0 ||
        parse_summary(theirs, &b) < 0)
        return ours && theirs && !strcmp(ours, theirs);
    if (a.n_nodes != b.n_nodes || a.n != b.n)
        return false;
    for (i = 0; i < a.n; i++) {
        for (j = 0; j < b.n; j++) {
            if (!used[j] && a.count[i] == b.count[j] &&
                !strcmp(a.reason[i], b.reason[j]))
                break;
        }
        if (j == b.n)
            return false;
        used[j] = true;
    }
    return true;
}
