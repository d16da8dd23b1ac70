/*
 * test_whatif_why.c: whether two FitError summaries agree
 * (whatif_fit_messages_agree): the same counted reasons in any order,
 * kube-scheduler v1.20's three differently worded reasons read as
 * v1.22's, a later version's " preemption: ..." tail ignored, a period
 * inside a reason kept; different counts, node totals or reasons differ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "predicates/inter_pod_affinity.h"
#include "predicates/node_affinity.h"
#include "predicates/node_name.h"
#include "whatif/why.h"

struct agree_case {
    const char *name;
    const char *ours, *theirs;
    bool want;
};

#define SUM(x) "0/3 nodes are available: " x "."

static const struct agree_case cases[] = {
    { "identical", SUM("3 Insufficient cpu"), SUM("3 Insufficient cpu"), true },
    { "any order", SUM("1 node(s) were unschedulable, 2 Insufficient cpu"),
      SUM("2 Insufficient cpu, 1 node(s) were unschedulable"), true },
    { "v1.20 hostname", SUM("3 " PRED_REASON_NODE_NAME),
      SUM("3 node(s) didn't match the requested hostname"), true },
    { "v1.20 node affinity", SUM("3 " PRED_REASON_NODE_AFFINITY),
      SUM("3 node(s) didn't match Pod's node affinity"), true },
    { "v1.20 pod affinity",
      SUM("3 " PRED_REASON_AFFINITY_NOT_MATCH
          ", 3 " PRED_REASON_ANTI_AFFINITY_RULES),
      SUM("3 node(s) didn't match pod affinity/anti-affinity, "
          "3 " PRED_REASON_ANTI_AFFINITY_RULES),
      true },
    { "a taint with a comma",
      SUM("3 node(s) had taint {a: b}, that the pod didn't tolerate"),
      SUM("3 node(s) had taint {a: b}, that the pod didn't tolerate"), true },
    { "a period in a reason", SUM("3 Insufficient example.com/gpu"),
      SUM("3 Insufficient example.com/gpu"), true },
    { "a preemption tail", SUM("3 Insufficient cpu"),
      SUM("3 Insufficient cpu") " preemption: 0/3 nodes are available: 3 "
                                "No preemption victims found.",
      true },
    { "another count", SUM("3 Insufficient cpu"), SUM("2 Insufficient cpu"),
      false },
    { "another reason", SUM("3 Insufficient cpu"), SUM("3 Insufficient memory"),
      false },
    { "another node total", SUM("3 Insufficient cpu"),
      "0/4 nodes are available: 3 Insufficient cpu.", false },
    { "one reason more", SUM("3 Insufficient cpu"),
      SUM("3 Insufficient cpu, 1 node(s) were unschedulable"), false },
    { "not a summary on one side", SUM("3 Insufficient cpu"),
      "binding rejected: timeout", false },
    { "no summary of ours", NULL, SUM("3 Insufficient cpu"), false },
};

static void fit_messages_should_agree_as_the_table_says(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool got = whatif_fit_messages_agree(cases[i].ours, cases[i].theirs);

        if (got != cases[i].want)
            fail_msg("%s: agree = %d, want %d", cases[i].name, got,
                     cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_messages_should_agree_as_the_table_says),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
