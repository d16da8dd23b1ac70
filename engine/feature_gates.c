/*
 * feature_gates.c: --feature-gates (see feature_gates.h).
 */
#include "engine/feature_gates.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

/* The gates v1.22 consults on the paths we reproduce. */
static const char *const known[] = {
    "DefaultPodTopologySpread",
    "CSIMigration",
    "CSIMigrationAWS",
    "CSIMigrationGCE",
    "CSIMigrationAzureDisk",
    "CSIMigrationOpenStack",
    NULL,
};

static int check_one(const char *item, size_t len, bool *value, size_t *klen,
                     struct err *e)
{
    const char *eq = memchr(item, '=', len);
    const char *v;
    size_t i, vlen;

    if (!eq)
        return err_set(e, "--feature-gates: missing bool value for %.*s",
                       (int)len, item);
    *klen = (size_t)(eq - item);
    v = eq + 1;
    vlen = len - *klen - 1;
    if (vlen == 4 && !strncmp(v, "true", 4))
        *value = true;
    else if (vlen == 5 && !strncmp(v, "false", 5))
        *value = false;
    else
        return err_set(e,
                       "--feature-gates: invalid value of %.*s: %.*s, "
                       "want true or false",
                       (int)*klen, item, (int)vlen, v);
    for (i = 0; known[i]; i++) {
        if (strlen(known[i]) == *klen && !strncmp(known[i], item, *klen))
            return 0;
    }
    return err_set(e, "--feature-gates: unrecognized feature gate: %.*s",
                   (int)*klen, item);
}

int feature_gates_apply(const char *spec, unsigned *policy_gates, struct err *e)
{
    const char *p = spec;
    char volume[512] = "";

    *policy_gates = 0;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p), klen = 0;
        bool on = false;

        if (len && check_one(p, len, &on, &klen, e) < 0)
            return -1;
        if (len && klen == strlen("DefaultPodTopologySpread") &&
            !strncmp(p, "DefaultPodTopologySpread", klen)) {
            if (on)
                *policy_gates &= ~POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF;
            else
                *policy_gates |= POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF;
        } else if (len) {
            size_t used = strlen(volume);

            if (used + len + 2 > sizeof(volume))
                return err_set(e, "--feature-gates: too long");
            if (used)
                strcat(volume, ",");
            strncat(volume, p, len);
        }
        p = end ? end + 1 : NULL;
    }
    if (*volume && setenv("KPE_FEATURE_GATES", volume, 1) != 0)
        return err_set(e, "--feature-gates: cannot export the gates");
    return 0;
}
