/*
 * plugin_call.c: the plugin call a thread is in, named by the fatal-signal
 * handler and by watchdogs (see plugin_call.h).
 */
#include "engine/plugin_call.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/cluster/cluster.h"
#include "kube/model/types.h"

_Thread_local struct plugin_call plugin_call_current;

/* Each thread's alternate signal stack (plugin_call_thread_stack). */
static _Thread_local void *alt_stack;

struct plugin_call *plugin_call_self(void)
{
    return &plugin_call_current;
}

unsigned long plugin_call_seq(const struct plugin_call *c)
{
    return atomic_load_explicit(&c->seq, memory_order_acquire);
}

/* The pieces of a call's description, any of them NULL when unknown. */
struct call_names {
    const char *plugin, *verb, *ns, *pod, *node;
};

static int call_names(const struct plugin_call *c, struct call_names *n)
{
    const struct kube_pod *pod;
    const struct node_info *ni;

    memset(n, 0, sizeof(*n));
    if (!(plugin_call_seq(c) & 1))
        return -1;
    n->plugin = atomic_load_explicit(&c->plugin, memory_order_relaxed);
    n->verb = atomic_load_explicit(&c->verb, memory_order_relaxed);
    pod = atomic_load_explicit(&c->pod, memory_order_relaxed);
    ni = atomic_load_explicit(&c->node, memory_order_relaxed);
    if (pod) {
        n->ns = pod->namespace;
        n->pod = pod->name;
    }
    if (ni && ni->node)
        n->node = ni->node->name;
    return 0;
}

int plugin_call_describe(const struct plugin_call *c, char *buf, size_t n)
{
    struct call_names k;

    if (call_names(c, &k) < 0) {
        snprintf(buf, n, "no plugin call");
        return -1;
    }
    snprintf(buf, n, "plugin \"%s\" (%s) for pod %s/%s%s%s",
             k.plugin ? k.plugin : "?", k.verb ? k.verb : "?",
             k.ns ? k.ns : "?", k.pod ? k.pod : "?", k.node ? " on node " : "",
             k.node ? k.node : "");
    return 0;
}

/* ---- the fatal-signal handler ------------------------------------- */

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT";
    }
    return "signal";
}

/* Async-signal-safe: append s (at most up to 200 bytes) at *p. */
static void put(char **p, const char *end, const char *s)
{
    size_t i;

    for (i = 0; s && s[i] && i < 200 && *p < end; i++)
        *(*p)++ = s[i];
}

/*
 * A fatal signal: in a plugin call, one line naming it on stderr; then
 * die of the same signal. SA_RESETHAND has put the default action back,
 * so re-raising (delivered once the handler returns) or returning to the
 * faulting instruction ends the process with that signal.
 */
static void on_fatal(int sig)
{
    struct call_names k;
    char line[1024], *p = line;
    const char *end = line + sizeof(line) - 1;

    if (call_names(&plugin_call_current, &k) == 0) {
        put(&p, end, "F kube-policy-extender: fatal ");
        put(&p, end, signal_name(sig));
        put(&p, end, " in plugin \"");
        put(&p, end, k.plugin);
        put(&p, end, "\" (");
        put(&p, end, k.verb);
        put(&p, end, ") for pod ");
        put(&p, end, k.ns);
        put(&p, end, "/");
        put(&p, end, k.pod);
        if (k.node) {
            put(&p, end, " on node ");
            put(&p, end, k.node);
        }
        *p++ = '\n';
        if (write(STDERR_FILENO, line, (size_t)(p - line)) < 0)
            p = line; /* nothing more can be done */
    }
    raise(sig);
}

static void install(void)
{
    struct sigaction sa;
    size_t i;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
        sigaction(fatal_signals[i], &sa, NULL);
}

void plugin_call_install_fault_handler(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, install);
    plugin_call_thread_stack();
}

void plugin_call_thread_stack(void)
{
    stack_t st;

    if (alt_stack)
        return;
    alt_stack = malloc(SIGSTKSZ * 4);
    if (!alt_stack)
        return;
    memset(&st, 0, sizeof(st));
    st.ss_sp = alt_stack;
    st.ss_size = SIGSTKSZ * 4;
    if (sigaltstack(&st, NULL) != 0) {
        free(alt_stack);
        alt_stack = NULL;
    }
}

void plugin_call_thread_stack_free(void)
{
    stack_t st;

    if (!alt_stack)
        return;
    memset(&st, 0, sizeof(st));
    st.ss_flags = SS_DISABLE;
    sigaltstack(&st, NULL);
    free(alt_stack);
    alt_stack = NULL;
}
