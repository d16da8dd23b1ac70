/*
 * call_ring.c: the last calls kube-scheduler made (call_ring.h).
 */
#include "server/extender/call_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/clock.h"
#include "kube/base/json_writer.h"

void call_ring_init(struct call_ring *c)
{
    memset(c, 0, sizeof(*c));
    pthread_mutex_init(&c->mu, NULL);
}

void call_ring_destroy(struct call_ring *c)
{
    pthread_mutex_destroy(&c->mu);
}

void call_ring_add(struct call_ring *c, const char *verb, const char *pod_ns,
                   const char *pod_name, size_t nodes, const char *answer,
                   double latency_s)
{
    struct call_rec r;

    r.at = kube_now();
    snprintf(r.verb, sizeof(r.verb), "%s", verb);
    if (pod_name && *pod_name)
        snprintf(r.pod, sizeof(r.pod), "%s/%s",
                 pod_ns && *pod_ns ? pod_ns : "default", pod_name);
    else
        r.pod[0] = '\0';
    r.nodes = nodes;
    snprintf(r.answer, sizeof(r.answer), "%s", answer ? answer : "");
    r.latency_s = latency_s;
    pthread_mutex_lock(&c->mu);
    r.seq = ++c->next;
    c->r[(r.seq - 1) % CALL_RING_SIZE] = r;
    pthread_mutex_unlock(&c->mu);
}

char *call_ring_json(struct call_ring *c, size_t *len)
{
    struct call_rec *copy = malloc(sizeof(c->r));
    struct jsonw w;
    uint64_t total, n, i;
    double now = kube_now();

    if (!copy)
        return NULL;
    pthread_mutex_lock(&c->mu);
    total = c->next;
    memcpy(copy, c->r, sizeof(c->r));
    pthread_mutex_unlock(&c->mu);
    n = total < CALL_RING_SIZE ? total : CALL_RING_SIZE;
    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "total");
    jsonw_int(&w, (int64_t)total);
    jsonw_key(&w, "calls");
    jsonw_begin_array(&w);
    for (i = 0; i < n; i++) {
        const struct call_rec *r = &copy[(total - 1 - i) % CALL_RING_SIZE];
        char num[32];

        jsonw_begin_object(&w);
        jsonw_key(&w, "seq");
        jsonw_int(&w, (int64_t)r->seq);
        jsonw_key(&w, "verb");
        jsonw_string(&w, r->verb);
        jsonw_key(&w, "pod");
        jsonw_string(&w, r->pod);
        jsonw_key(&w, "nodes");
        jsonw_int(&w, (int64_t)r->nodes);
        jsonw_key(&w, "answer");
        jsonw_string(&w, r->answer);
        jsonw_key(&w, "latencySeconds");
        snprintf(num, sizeof(num), "%.6f", r->latency_s);
        jsonw_raw(&w, num, strlen(num));
        jsonw_key(&w, "ageSeconds");
        snprintf(num, sizeof(num), "%.3f", now - r->at);
        jsonw_raw(&w, num, strlen(num));
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    jsonw_end_object(&w);
    free(copy);
    return jsonw_take(&w, len);
}
