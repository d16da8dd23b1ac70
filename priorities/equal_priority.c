/*
 * equal_priority.c: EqualPriority, which gives every node the same score.
 * v1.22 validates the name and then drops it (legacy_registry.go), so it
 * has no code: the descriptor is all there is.
 */
#include "priorities/priorities.h"

#define PRIO_NAME_EQUAL "EqualPriority"

const struct prio_def prio_equal_priority = {
    .name = PRIO_NAME_EQUAL,
    .aliases = NULL,
    .flags = PRIO_SKIPPED,
    .default_weight = 0,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = NULL,
    .gate_off = NULL,
    .doc = "every node scores the same: validated, then dropped as v1.22 does",
};
