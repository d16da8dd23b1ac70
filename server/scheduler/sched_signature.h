/*
 * sched_signature.h: hashes of what a watched object's update must change
 * to matter to the standalone scheduler, and the node signatures seen
 * last.
 */
#ifndef SERVER_SCHEDULER_SCHED_SIGNATURE_H
#define SERVER_SCHEDULER_SCHED_SIGNATURE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/scheduler/scheduler.h"

/* One entry of struct scheduler's node signature table. */
struct sched_node_sig {
    char *name;
    uint64_t sig;
};

/* o's string member k, or NULL. */
const char *sched_jstr(const cJSON *o, const char *k);

/* h extended by s and a 0xff separator (no JSON text has that byte). */
uint64_t sched_hash_add(uint64_t h, const char *s);

/* Hash of parts[0..n)'s JSON (NULL parts count as "-"). */
uint64_t sched_hash_json(const cJSON *const *parts, size_t n);

/* A node's scheduling-relevant fields: labels, unschedulable, taints,
 * allocatable, preferAvoidPods, conditions by type and status. */
uint64_t sched_node_sig(const cJSON *obj);

/* Record name's signature in s's table; true when it is new or changed
 * (or the table cannot grow). */
bool sched_node_sig_changed(struct scheduler *s, const char *name,
                            uint64_t sig);

#endif
