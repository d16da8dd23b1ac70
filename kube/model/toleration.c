/*
 * toleration.c: v1.Toleration.ToleratesTaint as core/v1 toleration.go has
 * it in v1.22 (no Gt/Lt operators yet), for PodToleratesNodeTaints,
 * CheckNodeUnschedulable and TaintTolerationPriority.
 */
#include "kube/model/labels.h"

#include <string.h>

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/*
 * Tolerated when the toleration's effect is empty or equal, its key empty
 * or equal, and its operator Exists, or Equal/empty with equal values.
 * Any other operator tolerates nothing.
 */
bool kube_toleration_tolerates(const struct kube_toleration *t,
                               const struct kube_taint *taint)
{
    const char *effect, *key, *op;

    if (!t || !taint)
        return false;
    effect = or_empty(t->effect);
    key = or_empty(t->key);
    op = or_empty(t->op);
    if (effect[0] && strcmp(effect, or_empty(taint->effect)) != 0)
        return false;
    if (key[0] && strcmp(key, or_empty(taint->key)) != 0)
        return false;
    if (strcmp(op, "Exists") == 0)
        return true;
    if (op[0] == '\0' || strcmp(op, "Equal") == 0)
        return strcmp(or_empty(t->value), or_empty(taint->value)) == 0;
    return false;
}

bool kube_tolerations_tolerate(const struct kube_toleration *t, size_t n,
                               const struct kube_taint *taint)
{
    for (size_t i = 0; t && i < n; i++)
        if (kube_toleration_tolerates(&t[i], taint))
            return true;
    return false;
}
