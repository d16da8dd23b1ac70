/*
 * test_plugin_call.c: the plugin call a thread is in (engine/plugin_call.h,
 * issue 26): the record around a call, its description, and the fatal
 * signal handler, which names the call on stderr and then lets the process
 * die of the same signal (checked in a child process).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/plugin_call.h"
#include "kube/cluster/cluster.h"
#include "kube/model/types.h"

static struct kube_pod pod = { .name = "web-1", .namespace = "prod" };
static struct kube_node node = { .name = "rdma-2" };
static struct node_info ni = { .node = &node };

static void enter_and_leave_should_mark_the_call(void **state)
{
    struct plugin_call *c = plugin_call_self();
    unsigned long before = plugin_call_seq(c);
    char buf[256];

    (void)state;
    assert_int_equal(before & 1, 0);
    assert_int_equal(plugin_call_describe(c, buf, sizeof(buf)), -1);
    plugin_call_enter("RdmaAware", "filter", &pod, &ni);
    assert_int_equal(plugin_call_seq(c), before + 1);
    assert_int_equal(plugin_call_describe(c, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "plugin \"RdmaAware\" (filter) for pod "
                             "prod/web-1 on node rdma-2");
    plugin_call_leave();
    assert_int_equal(plugin_call_seq(c), before + 2);
    plugin_call_enter("Spread", "prescore", &pod, NULL);
    plugin_call_describe(c, buf, sizeof(buf));
    assert_string_equal(buf, "plugin \"Spread\" (prescore) for pod prod/web-1");
    plugin_call_leave();
}

/* Run fn in a child with the handler installed; its stderr and status. */
static int in_child(void (*fn)(void), char *err, size_t n)
{
    int fds[2], status = 0;
    pid_t pid;
    ssize_t got, total = 0;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        plugin_call_install_fault_handler();
        fn();
        _exit(0);
    }
    close(fds[1]);
    while ((got = read(fds[0], err + total, n - 1 - (size_t)total)) > 0)
        total += got;
    err[total] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* An address in the unmapped first page (not NULL itself: UBSan would
 * stop at a null store before the fault). */
static volatile uintptr_t bad_address = 8;

static void null_deref_in_a_filter(void)
{
    plugin_call_enter("Crashy", "filter", &pod, &ni);
    *(volatile int *)bad_address = 1;
}

static void abort_in_a_score(void)
{
    plugin_call_enter("Aborts", "score", &pod, &ni);
    abort();
}

static void segv_outside_any_call(void)
{
    raise(SIGSEGV);
}

static void faults_should_name_the_call_and_die_of_the_signal(void **state)
{
    char err[2048];
    int st;

    (void)state;
    st = in_child(null_deref_in_a_filter, err, sizeof(err));
    if (!WIFSIGNALED(st))
        fail_msg("status 0x%x, stderr: %s", st, err);
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    assert_non_null(strstr(err, "fatal SIGSEGV in plugin \"Crashy\" (filter) "
                                "for pod prod/web-1 on node rdma-2\n"));
    st = in_child(abort_in_a_score, err, sizeof(err));
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
    assert_non_null(strstr(err, "fatal SIGABRT in plugin \"Aborts\" (score) "
                                "for pod prod/web-1 on node rdma-2\n"));
    /* Outside a plugin call: no line, the same death. */
    st = in_child(segv_outside_any_call, err, sizeof(err));
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    assert_null(strstr(err, "fatal SIGSEGV in plugin"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(enter_and_leave_should_mark_the_call),
        cmocka_unit_test(faults_should_name_the_call_and_die_of_the_signal),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
