/*
 * sched_lost_bind.c: Bindings whose answer was lost (sched_lost_bind.h),
 * kept in a small array searched in order: records are rare (an API
 * server restart leaves a handful), and an empty array costs one test.
 */
#include "server/scheduler/sched_lost_bind.h"

#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "server/common/log.h"
#include "server/scheduler/sched_events.h"
#include "server/scheduler/scheduler.h"

static void record_free(struct sched_lost_bind *r)
{
    free(r->key);
    free(r->uid);
    free(r->node);
}

static void remove_at(struct scheduler *s, size_t i)
{
    record_free(&s->lost[i]);
    memmove(&s->lost[i], &s->lost[i + 1],
            (s->n_lost - i - 1) * sizeof(*s->lost));
    s->n_lost--;
}

static ssize_t find(const struct scheduler *s, const char *key)
{
    size_t i;

    for (i = 0; i < s->n_lost; i++)
        if (!strcmp(s->lost[i].key, key))
            return (ssize_t)i;
    return -1;
}

int sched_lost_bind_note(struct scheduler *s, const char *key, const char *uid,
                         const char *node)
{
    struct sched_lost_bind r = { strdup(key), strdup(uid ? uid : ""),
                                 strdup(node) };
    ssize_t at = find(s, key);

    if (!r.key || !r.uid || !r.node) {
        record_free(&r);
        return -1;
    }
    if (at >= 0)
        remove_at(s, (size_t)at);
    else if (s->n_lost == SCHED_LOST_BIND_MAX)
        remove_at(s, 0);
    if (s->n_lost == s->cap_lost) {
        size_t cap = s->cap_lost ? s->cap_lost * 2 : 8;
        struct sched_lost_bind *p = realloc(s->lost, cap * sizeof(*p));

        if (!p) {
            record_free(&r);
            return -1;
        }
        s->lost = p;
        s->cap_lost = cap;
    }
    s->lost[s->n_lost++] = r;
    return 0;
}

bool sched_lost_bind_take(struct scheduler *s, const char *key,
                          const char *node, char **uid)
{
    ssize_t at;
    bool ours;

    if (!s->n_lost || (at = find(s, key)) < 0)
        return false;
    ours = node && !strcmp(s->lost[at].node, node);
    if (ours && uid) {
        *uid = s->lost[at].uid;
        s->lost[at].uid = NULL;
    }
    remove_at(s, (size_t)at);
    return ours;
}

void sched_lost_bind_report(struct scheduler *s, const char *key,
                            const char *uid, const char *node)
{
    const char *slash = strchr(key, '/');
    struct kube_pod pod = { 0 };
    char ns[256], msg[1024];

    if (!slash || (size_t)(slash - key) >= sizeof(ns))
        return;
    memcpy(ns, key, (size_t)(slash - key));
    ns[slash - key] = '\0';
    pod.namespace = ns;
    pod.name = (char *)(slash + 1);
    pod.uid = (char *)(uid ? uid : "");
    LOG_INFO("pod %s is bound to node %s, as our Binding asked: its answer "
             "was lost",
             key, node);
    snprintf(msg, sizeof(msg), "Successfully assigned %s to %s", key, node);
    sched_event_post(s, &pod, "Normal", "Scheduled", msg);
}

size_t sched_lost_bind_count(const struct scheduler *s)
{
    return s->n_lost;
}

void sched_lost_bind_free(struct scheduler *s)
{
    size_t i;

    for (i = 0; i < s->n_lost; i++)
        record_free(&s->lost[i]);
    free(s->lost);
    s->lost = NULL;
    s->n_lost = s->cap_lost = 0;
}
