/*
 * semantics.c: the names of the kube-scheduler releases a Policy can be
 * evaluated as (semantics.h).
 */
#include "framework/semantics.h"

#include <string.h>

static const struct {
    const char *name;
    enum kpe_semantics value;
} sem_names[] = {
    { "1.20", KPE_SEM_1_20 },
    { "1.21", KPE_SEM_1_21 },
    { "1.22", KPE_SEM_1_22 },
};

#define N_SEM (sizeof(sem_names) / sizeof(sem_names[0]))

const char *kpe_semantics_name(enum kpe_semantics s)
{
    size_t i;

    for (i = 0; i < N_SEM; i++) {
        if (sem_names[i].value == s)
            return sem_names[i].name;
    }
    return "1.22";
}

int kpe_semantics_parse(const char *where, const char *s,
                        enum kpe_semantics *out, struct err *e)
{
    const char *v = s && s[0] == 'v' ? s + 1 : s;
    char q[64];
    size_t i;

    for (i = 0; v && i < N_SEM; i++) {
        if (!strcmp(v, sem_names[i].name)) {
            *out = sem_names[i].value;
            return 0;
        }
    }
    return err_set(e, "%s: invalid value %s: expected " KPE_SEM_ACCEPTED, where,
                   err_quote(q, sizeof(q), s ? s : "", 40));
}

const struct kube_label_selector *
kpe_term_namespace_selector(const struct kube_pod_affinity_term *t,
                            enum kpe_semantics s)
{
    return s >= KPE_SEM_1_22 ? t->namespace_selector : NULL;
}
