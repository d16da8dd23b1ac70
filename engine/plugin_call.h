/*
 * plugin_call.h: the plugin call a thread is in (issue 26: faults name
 * themselves). The engine marks each call of a plugin's prefilter,
 * filter, prescore, score or normalize with plugin_call_enter() and
 * plugin_call_leave(): a few relaxed stores into a thread-local record,
 * no clock, no lock. Two readers:
 * - the fatal-signal handler (plugin_call_install_fault_handler): a
 *   SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT inside a plugin call writes
 *   one line naming the plugin, the verb, the pod and the node
 *   (async-signal-safe: write(2) of strings already in memory), then the
 *   process dies of the same signal, as a supervisor expects;
 * - a watchdog on another thread (the HTTP server's evaluation pool): the
 *   sequence number tells whether a thread is still in the same call,
 *   plugin_call_describe() names it.
 */
#ifndef ENGINE_PLUGIN_CALL_H
#define ENGINE_PLUGIN_CALL_H

#include <stdatomic.h>
#include <stddef.h>

struct kube_pod;
struct node_info;

struct plugin_call {
    _Atomic(const char *) plugin; /* the plugin's name */
    _Atomic(const char *) verb;   /* "filter", "score", ... */
    _Atomic(const struct kube_pod *) pod;
    _Atomic(const struct node_info *) node; /* NULL for per-pod verbs */
    atomic_ulong seq; /* odd while in a call; +2 per call */
};

/* This thread's record. */
extern _Thread_local struct plugin_call plugin_call_current;

static inline void plugin_call_enter(const char *plugin, const char *verb,
                                     const struct kube_pod *pod,
                                     const struct node_info *node)
{
    struct plugin_call *c = &plugin_call_current;

    atomic_store_explicit(&c->plugin, plugin, memory_order_relaxed);
    atomic_store_explicit(&c->verb, verb, memory_order_relaxed);
    atomic_store_explicit(&c->pod, pod, memory_order_relaxed);
    atomic_store_explicit(&c->node, node, memory_order_relaxed);
    atomic_store_explicit(
        &c->seq, atomic_load_explicit(&c->seq, memory_order_relaxed) + 1,
        memory_order_release);
}

static inline void plugin_call_leave(void)
{
    struct plugin_call *c = &plugin_call_current;

    atomic_store_explicit(
        &c->seq, atomic_load_explicit(&c->seq, memory_order_relaxed) + 1,
        memory_order_release);
}

/* This thread's record, for a watchdog to read from another thread. */
struct plugin_call *plugin_call_self(void);

/* The call's sequence number: odd while the thread is in a plugin call. */
unsigned long plugin_call_seq(const struct plugin_call *c);

/*
 * Name the call c is in: `plugin "p" (filter) for pod ns/name on node n`
 * into buf (always NUL-terminated). Returns 0, or -1 when c is in no
 * call (buf then says so).
 */
int plugin_call_describe(const struct plugin_call *c, char *buf, size_t n);

/*
 * Install the fatal-signal handler (once; later calls do nothing) and an
 * alternate signal stack for the calling thread, so that a plugin
 * overflowing its stack is named too. Threads that run plugins call
 * plugin_call_thread_stack() for their own alternate stack.
 */
void plugin_call_install_fault_handler(void);
void plugin_call_thread_stack(void);
void plugin_call_thread_stack_free(void);

#endif
