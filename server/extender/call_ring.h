/*
 * call_ring.h: the last calls kube-scheduler made to the extender (verb,
 * pod, node count, answer, latency), for GET /debug/calls with
 * --debug-endpoints: "is the extender even called?". A fixed ring of
 * CALL_RING_SIZE records under one mutex; adding copies a few bounded
 * strings into the slot and allocates nothing. Thread-safe.
 */
#ifndef SERVER_EXTENDER_CALL_RING_H
#define SERVER_EXTENDER_CALL_RING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define CALL_RING_SIZE 256

struct call_rec {
    uint64_t seq;     /* 1, 2, ... over the server's life */
    double at;        /* kube_now() when it ended */
    char verb[16];    /* filter, prioritize, preempt, bind */
    char pod[160];    /* namespace/name ("" when unknown), cut at 159 */
    size_t nodes;     /* nodes in the request */
    char answer[96];  /* "2 of 6 passed", "error: ...", cut at 95 */
    double latency_s; /* time in the handler */
};

struct call_ring {
    pthread_mutex_t mu;
    uint64_t next; /* seq of the next record - 1 */
    struct call_rec r[CALL_RING_SIZE];
};

void call_ring_init(struct call_ring *c);
void call_ring_destroy(struct call_ring *c);

/* Record one call; pod_ns and pod_name may be NULL. */
void call_ring_add(struct call_ring *c, const char *verb, const char *pod_ns,
                   const char *pod_name, size_t nodes, const char *answer,
                   double latency_s);

/*
 * The ring as JSON (malloc'd, length in *len; NULL when out of memory):
 * {"total": N, "calls": [newest first: {"seq", "verb", "pod", "nodes",
 * "answer", "latencySeconds", "ageSeconds"}]}.
 */
char *call_ring_json(struct call_ring *c, size_t *len);

#endif
