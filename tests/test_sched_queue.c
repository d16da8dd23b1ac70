/*
 * test_sched_queue.c: the standalone scheduler's queue
 * (server/scheduler/sched_queue.c) against kube-scheduler v1.22's
 * PriorityQueue: pop order, backoff durations, where a failed pod waits, what a
 * cluster event and an update move, the 60 s leftover flush, deletes while in
 * flight, and payload ownership (every payload released exactly once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/scheduler/sched_queue.h"

/* Payloads are counted: each add makes one, the queue releases each. */
static int live_payloads;

static void *payload_new(void)
{
    live_payloads++;
    return malloc(1);
}

static void payload_free(void *p)
{
    live_payloads--;
    free(p);
}

struct qpod {
    const char *key;
    int32_t priority;
    int64_t created;
    double added; /* queue time */
};

/* Ported from TestPriorityQueue_Add / TestPrioritySort (v1.22
 * internal/queue/scheduling_queue_test.go, plugins/queuesort): higher
 * priority first, then earlier queue time; ours adds creation time and
 * arrival as the last tie-breaks. */
static const struct {
    const char *name;
    struct qpod pods[5];
    const char *want[5];
} order_cases[] = {
    { "higher priority first",
      { { "ns/low", 0, 10, 1 },
        { "ns/high", 100, 20, 2 },
        { "ns/mid", 50, 30, 3 } },
      { "ns/high", "ns/mid", "ns/low" } },
    { "equal priority: earlier queue time first",
      { { "ns/b", 5, 10, 2 }, { "ns/a", 5, 20, 1 }, { "ns/c", 5, 0, 3 } },
      { "ns/a", "ns/b", "ns/c" } },
    { "same queue time: older creation first",
      { { "ns/young", 0, 300, 1 },
        { "ns/old", 0, 100, 1 },
        { "ns/mid", 0, 200, 1 } },
      { "ns/old", "ns/mid", "ns/young" } },
    { "all equal: arrival order",
      { { "ns/1", 0, 0, 1 }, { "ns/2", 0, 0, 1 }, { "ns/3", 0, 0, 1 } },
      { "ns/1", "ns/2", "ns/3" } },
    { "negative priorities after zero",
      { { "ns/neg", -10, 0, 1 },
        { "ns/zero", 0, 5, 2 },
        { "ns/big", 2000000000, 9, 3 } },
      { "ns/big", "ns/zero", "ns/neg" } },
};

static void queue_should_pop_by_priority_then_age(void **state)
{
    size_t c, i;

    (void)state;
    for (c = 0; c < sizeof(order_cases) / sizeof(order_cases[0]); c++) {
        struct sched_queue q;

        sched_queue_init(&q, payload_free);
        for (i = 0; i < 5 && order_cases[c].pods[i].key; i++) {
            const struct qpod *p = &order_cases[c].pods[i];

            if (sched_queue_add(&q, p->key, payload_new(), p->priority,
                                p->created, 0, p->added) != SCHED_QADD_NEW)
                fail_msg("%s: add %s", order_cases[c].name, p->key);
        }
        for (i = 0; i < 5 && order_cases[c].want[i]; i++) {
            struct sched_qitem *it = sched_queue_pop(&q);

            if (!it || strcmp(it->key, order_cases[c].want[i]))
                fail_msg("%s: pop %zu: got %s, want %s", order_cases[c].name, i,
                         it ? it->key : "nothing", order_cases[c].want[i]);
            sched_queue_done(&q, it);
        }
        if (sched_queue_pop(&q))
            fail_msg("%s: queue not empty", order_cases[c].name);
        sched_queue_destroy(&q);
        if (live_payloads)
            fail_msg("%s: %d payloads leaked", order_cases[c].name,
                     live_payloads);
    }
}

/* Ported from TestPriorityQueue_calculateBackoffDuration (v1.22):
 * initial 1 s doubling per attempt, capped at 10 s. */
static void queue_should_back_off_exponentially_to_the_cap(void **state)
{
    static const struct {
        int attempts;
        double want;
    } cases[] = {
        { 1, 1 },  { 2, 2 },  { 3, 4 },   { 4, 8 },
        { 5, 10 }, { 6, 10 }, { 32, 10 }, { 0, 1 },
    };
    struct sched_queue q;
    size_t i;

    (void)state;
    sched_queue_init(&q, NULL);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double got = sched_queue_backoff(&q, cases[i].attempts);

        if (got != cases[i].want)
            fail_msg("attempts %d: backoff %g, want %g", cases[i].attempts, got,
                     cases[i].want);
    }
    sched_queue_destroy(&q);
}

/* Steps of a scripted scenario. */
enum op {
    OP_END,
    OP_ADD,      /* key, priority, hash, now */
    OP_POP,      /* want key (NULL: empty), now */
    OP_FAIL,     /* requeue the last popped item at now */
    OP_DONE,     /* the last popped item is finished */
    OP_MOVE_ALL, /* cluster event at now */
    OP_FLUSH,    /* at now; want due (NAN: don't check) */
    OP_DELETE,   /* key */
    OP_STATE,    /* key is in state (want_state), or absent (-1) */
    OP_LEN,      /* len of want_state == n */
    OP_ADD_WANT, /* like OP_ADD, checks the result (n) */
};

struct step {
    enum op op;
    const char *key;
    int32_t priority;
    uint64_t hash;
    double now;
    int want_state;
    size_t n;
    double due;
};

#define ADD(k, p, h, t)                                                        \
    {                                                                          \
        OP_ADD, k, p, h, t, 0, 0, 0                                            \
    }
#define ADDW(k, h, t, r)                                                       \
    {                                                                          \
        OP_ADD_WANT, k, 0, h, t, 0, r, 0                                       \
    }
#define POP(k, t)                                                              \
    {                                                                          \
        OP_POP, k, 0, 0, t, 0, 0, 0                                            \
    }
#define FAIL(t)                                                                \
    {                                                                          \
        OP_FAIL, NULL, 0, 0, t, 0, 0, 0                                        \
    }
#define DONE()                                                                 \
    {                                                                          \
        OP_DONE, NULL, 0, 0, 0, 0, 0, 0                                        \
    }
#define MOVE(t)                                                                \
    {                                                                          \
        OP_MOVE_ALL, NULL, 0, 0, t, 0, 0, 0                                    \
    }
#define FLUSH(t, d)                                                            \
    {                                                                          \
        OP_FLUSH, NULL, 0, 0, t, 0, 0, d                                       \
    }
#define DEL(k)                                                                 \
    {                                                                          \
        OP_DELETE, k, 0, 0, 0, 0, 0, 0                                         \
    }
#define STATE(k, s)                                                            \
    {                                                                          \
        OP_STATE, k, 0, 0, 0, s, 0, 0                                          \
    }
#define LEN(s, n)                                                              \
    {                                                                          \
        OP_LEN, NULL, 0, 0, 0, s, n, 0                                         \
    }
#define END                                                                    \
    {                                                                          \
        OP_END, NULL, 0, 0, 0, 0, 0, 0                                         \
    }

/* Scenarios after TestPriorityQueue_AddUnschedulableIfNotPresent*,
 * TestPriorityQueue_MoveAllToActiveOrBackoffQueue, TestPriorityQueue_Update,
 * TestPriorityQueue_Delete, TestHighPriorityFlushUnschedulableQLeftover and
 * TestBackOffFlow (v1.22 scheduling_queue_test.go). */
static const struct {
    const char *name;
    struct step steps[24];
} scenarios[] = {
    { "a failed pod waits as unschedulable, not in backoff",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), FAIL(0.5),
        STATE("ns/p", SCHED_Q_UNSCHEDULABLE), FLUSH(30, NAN),
        STATE("ns/p", SCHED_Q_UNSCHEDULABLE), POP(NULL, 30), END } },
    { "a cluster event during backoff: backoff queue, then active",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), FAIL(10), MOVE(10.4),
        STATE("ns/p", SCHED_Q_BACKOFF), POP(NULL, 10.4), FLUSH(10.5, 11),
        STATE("ns/p", SCHED_Q_BACKOFF), FLUSH(11, NAN),
        STATE("ns/p", SCHED_Q_ACTIVE), POP("ns/p", 11), END } },
    { "a cluster event after the backoff: straight to active",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), FAIL(10), MOVE(12),
        STATE("ns/p", SCHED_Q_ACTIVE), POP("ns/p", 12), END } },
    { "backoff doubles with each attempt (TestBackOffFlow)",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), FAIL(100), MOVE(100),
        FLUSH(100, 101), POP("ns/p", 101), FAIL(200), MOVE(200),
        FLUSH(201, 202), POP(NULL, 201), FLUSH(202, NAN), POP("ns/p", 202),
        FAIL(300), MOVE(300), FLUSH(300, 304), END } },
    { "a move request while in flight sends the failure to backoff",
      { ADD("ns/a", 0, 1, 0), ADD("ns/b", 0, 1, 0), POP("ns/a", 1), MOVE(1.5),
        FAIL(2), STATE("ns/a", SCHED_Q_BACKOFF), POP("ns/b", 2), FAIL(2.5),
        STATE("ns/b", SCHED_Q_UNSCHEDULABLE), END } },
    { "unschedulable leftovers move after 60 s",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), FAIL(5), FLUSH(64.9, 65),
        STATE("ns/p", SCHED_Q_UNSCHEDULABLE), FLUSH(65, NAN),
        STATE("ns/p", SCHED_Q_ACTIVE), END } },
    { "an update that changes nothing keeps an unschedulable pod waiting",
      { ADD("ns/p", 0, 7, 0), POP("ns/p", 0), FAIL(1),
        ADDW("ns/p", 7, 2, SCHED_QADD_UPDATED),
        STATE("ns/p", SCHED_Q_UNSCHEDULABLE), END } },
    { "a spec update moves an unschedulable pod (backoff, then active)",
      { ADD("ns/p", 0, 7, 0), POP("ns/p", 0), FAIL(1),
        ADDW("ns/p", 8, 1.5, SCHED_QADD_MOVED), STATE("ns/p", SCHED_Q_BACKOFF),
        ADDW("ns/q", 1, 1.5, SCHED_QADD_NEW), POP("ns/q", 1.5), FAIL(1.6),
        ADDW("ns/q", 2, 9, SCHED_QADD_MOVED), STATE("ns/q", SCHED_Q_ACTIVE),
        END } },
    { "an update in flight does not queue the pod twice",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0),
        ADDW("ns/p", 2, 0.1, SCHED_QADD_UPDATED),
        STATE("ns/p", SCHED_Q_IN_FLIGHT), POP(NULL, 0.2), DONE(),
        STATE("ns/p", -1), END } },
    { "a priority update reorders the active queue",
      { ADD("ns/a", 0, 1, 0), ADD("ns/b", 0, 1, 1), ADD("ns/b", 10, 1, 2),
        POP("ns/b", 3), DONE(), POP("ns/a", 3), DONE(), END } },
    { "delete removes a waiting pod wherever it is",
      { ADD("ns/a", 0, 1, 0), ADD("ns/b", 0, 1, 0), ADD("ns/c", 0, 1, 0),
        POP("ns/a", 0), FAIL(0), MOVE(0.1), POP("ns/b", 0.1), FAIL(0.2),
        DEL("ns/a"), DEL("ns/b"), DEL("ns/c"), LEN(SCHED_Q_ACTIVE, 0),
        LEN(SCHED_Q_BACKOFF, 0), LEN(SCHED_Q_UNSCHEDULABLE, 0),
        STATE("ns/a", -1), END } },
    { "a pod deleted in flight is dropped when it fails",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), DEL("ns/p"),
        STATE("ns/p", SCHED_Q_IN_FLIGHT), FAIL(1), STATE("ns/p", -1),
        LEN(SCHED_Q_IN_FLIGHT, 0), END } },
    { "re-adding a bound pod's key starts afresh",
      { ADD("ns/p", 0, 1, 0), POP("ns/p", 0), DONE(), ADD("ns/p", 0, 1, 5),
        STATE("ns/p", SCHED_Q_ACTIVE), POP("ns/p", 5), END } },
};

static void run_step(const char *name, size_t i, struct sched_queue *q,
                     const struct step *s, struct sched_qitem **last)
{
    struct sched_qitem *it;
    double due;
    enum sched_qadd r;

    switch (s->op) {
    case OP_ADD:
    case OP_ADD_WANT:
        r = sched_queue_add(q, s->key, payload_new(), s->priority, 0, s->hash,
                            s->now);
        if (s->op == OP_ADD_WANT && r != (enum sched_qadd)s->n)
            fail_msg("%s: step %zu: add %s gave %d, want %zu", name, i, s->key,
                     (int)r, s->n);
        break;
    case OP_POP:
        sched_queue_flush(q, s->now);
        it = sched_queue_pop(q);
        if (!s->key != !it || (it && strcmp(it->key, s->key)))
            fail_msg("%s: step %zu: pop gave %s, want %s", name, i,
                     it ? it->key : "nothing", s->key ? s->key : "nothing");
        if (it)
            *last = it;
        break;
    case OP_FAIL:
        sched_queue_requeue(q, *last, s->now);
        break;
    case OP_DONE:
        sched_queue_done(q, *last);
        break;
    case OP_MOVE_ALL:
        sched_queue_move_all(q, s->now);
        break;
    case OP_FLUSH:
        due = sched_queue_flush(q, s->now);
        if (!isnan(s->due) && due != s->due)
            fail_msg("%s: step %zu: next due %g, want %g", name, i, due,
                     s->due);
        break;
    case OP_DELETE:
        sched_queue_delete(q, s->key);
        break;
    case OP_STATE:
        it = sched_queue_find(q, s->key);
        if ((s->want_state < 0) != !it ||
            (it && (int)it->state != s->want_state))
            fail_msg("%s: step %zu: %s in state %d, want %d", name, i, s->key,
                     it ? (int)it->state : -1, s->want_state);
        break;
    case OP_LEN:
        if (sched_queue_len(q, (enum sched_qstate)s->want_state) != s->n)
            fail_msg("%s: step %zu: %zu in state %d, want %zu", name, i,
                     sched_queue_len(q, (enum sched_qstate)s->want_state),
                     s->want_state, s->n);
        break;
    case OP_END:
        break;
    }
}

static void queue_should_follow_the_upstream_scenarios(void **state)
{
    size_t c, i;

    (void)state;
    for (c = 0; c < sizeof(scenarios) / sizeof(scenarios[0]); c++) {
        struct sched_queue q;
        struct sched_qitem *last = NULL;

        sched_queue_init(&q, payload_free);
        for (i = 0; scenarios[c].steps[i].op != OP_END; i++)
            run_step(scenarios[c].name, i, &q, &scenarios[c].steps[i], &last);
        sched_queue_destroy(&q);
        if (live_payloads)
            fail_msg("%s: %d payloads leaked", scenarios[c].name,
                     live_payloads);
    }
}

/* Many pods through random failures: heaps stay ordered, nothing leaks. */
static void queue_should_stay_ordered_under_churn(void **state)
{
    struct sched_queue q;
    unsigned seed = 12345;
    double now = 0;
    int i, popped = 0;

    (void)state;
    sched_queue_init(&q, payload_free);
    for (i = 0; i < 2000; i++) {
        char key[32];

        snprintf(key, sizeof(key), "ns/p%d", i);
        seed = seed * 1103515245u + 12345u;
        sched_queue_add(&q, key, payload_new(), (int32_t)(seed >> 24) % 7, 0, 0,
                        now);
    }
    while (popped < 5000) {
        struct sched_qitem *it;
        int32_t prev = INT32_MAX;

        sched_queue_flush(&q, now);
        while ((it = sched_queue_pop(&q))) {
            if (it->priority > prev)
                fail_msg("popped priority %d after %d", it->priority, prev);
            prev = it->priority;
            popped++;
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 3 == 0)
                sched_queue_done(&q, it);
            else
                sched_queue_requeue(&q, it, now);
        }
        if (!q.n_items)
            break;
        now += 5;
        sched_queue_move_all(&q, now);
    }
    sched_queue_destroy(&q);
    assert_int_equal(live_payloads, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queue_should_pop_by_priority_then_age),
        cmocka_unit_test(queue_should_back_off_exponentially_to_the_cap),
        cmocka_unit_test(queue_should_follow_the_upstream_scenarios),
        cmocka_unit_test(queue_should_stay_ordered_under_churn),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
