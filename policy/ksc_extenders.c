/*
 * ksc_extenders.c: a KubeSchedulerConfiguration's `extenders` written as
 * the Policy's (for `check --scheduler-config`, the wiring doctor). Since
 * v1beta1 the extenders are decoded case-sensitively and `enableHttps` is
 * spelled `enableHTTPS` (kubernetes PR #91420's release note), so a key
 * that is not one of the v1beta1..v1 Extender fields is refused by name.
 * Carried: urlPrefix, the four verbs, weight, enableHTTPS (as the Policy's
 * enableHttps), tlsConfig, nodeCacheCapable, ignorable; httpTimeout and
 * managedResources are checked for their key only.
 */
#include "policy/ksc_read_internal.h"

#include <string.h>
#include <strings.h>

static const char *const ext_keys[] = {
    "urlPrefix",   "filterVerb",       "preemptVerb",      "prioritizeVerb",
    "weight",      "bindVerb",         "enableHTTPS",      "tlsConfig",
    "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable",
    NULL,
};

/* The Policy key of a carried Extender field, or NULL. */
static const char *policy_key(const char *key)
{
    static const char *const carried[] = {
        "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb",
        "weight",    "bindVerb",   "tlsConfig",   "nodeCacheCapable",
        "ignorable", NULL,
    };
    size_t i;

    if (!strcmp(key, "enableHTTPS"))
        return "enableHttps";
    for (i = 0; carried[i]; i++) {
        if (!strcmp(carried[i], key))
            return carried[i];
    }
    return NULL;
}

static int check_keys(struct kctx *k, const cJSON *x, size_t i)
{
    const cJSON *it;

    if (!cJSON_IsObject(x))
        return err_set(k->e, "extenders[%zu]: expected an object", i);
    for (it = x->child; it; it = it->next) {
        size_t j;
        const char *hint = NULL;

        for (j = 0; ext_keys[j] && strcmp(ext_keys[j], it->string); j++) {
            if (!strcasecmp(ext_keys[j], it->string))
                hint = ext_keys[j];
        }
        if (ext_keys[j])
            continue;
        return err_set(k->e,
                       "extenders[%zu].%s: not a field of "
                       "KubeSchedulerConfiguration extenders (decoded "
                       "case-sensitively since v1beta1)%s%s%s",
                       i, it->string, hint ? "; did you mean " : "",
                       hint ? hint : "", hint ? "?" : "");
    }
    return 0;
}

int ksc_write_extenders(struct kctx *k, const cJSON *ext)
{
    const cJSON *x, *it;
    size_t i;

    if (!ext)
        return 0;
    if (!cJSON_IsArray(ext))
        return err_set(k->e, "extenders: expected a list");
    for (x = ext->child, i = 0; x; x = x->next, i++) {
        if (check_keys(k, x, i) < 0)
            return -1;
    }
    jsonw_key(k->w, "extenders");
    jsonw_begin_array(k->w);
    for (x = ext->child; x; x = x->next) {
        jsonw_begin_object(k->w);
        for (it = x->child; it; it = it->next) {
            const char *key = policy_key(it->string);
            char *v;

            if (!key)
                continue;
            v = cJSON_PrintUnformatted(it);
            if (!v)
                return err_set(k->e, "out of memory");
            jsonw_key(k->w, key);
            jsonw_raw(k->w, v, strlen(v));
            cJSON_free(v);
        }
        jsonw_end_object(k->w);
    }
    jsonw_end_array(k->w);
    return 0;
}
