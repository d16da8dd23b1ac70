/*
 * policy_internal.h: functions shared between the policy/ files only.
 */
#ifndef POLICY_POLICY_INTERNAL_H
#define POLICY_POLICY_INTERNAL_H

#include "policy/policy.h"

/*
 * "predicates[3].name" for JSON (field may be NULL), "line 12" for INI;
 * memory from p->arena.
 */
const char *policy_loc_field(struct policy *p, const struct policy_loc *loc,
                             const char *field);

/*
 * Resolve p->doc through the registries as v1.22's createFromPolicy does:
 * names, argument counts, folding of custom entries, defaults and
 * mandatory predicates, weights. Fills p->preds, p->prios, p->entries,
 * p->extenders. Returns 0 or -1 with e set (no file prefix).
 */
int policy_resolve(struct policy *p, struct err *e);

/*
 * Decode a parsed Policy tree (JSON, or YAML turned into the same tree)
 * into p->doc. Returns 0 or -1 with e set (the JSON path, no file).
 */
struct cJSON;
int policy_decode_tree(struct policy *p, const struct cJSON *root,
                       struct err *e);

#endif
