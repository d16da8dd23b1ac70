/*
 * side.c: one side of a diff (side.h). With an extender's Policy, the
 * side's Policy document (read from the file, or the one the profile
 * reads as) loses its `extenders` and gains the extender Policy's
 * predicates and priorities, and that document is loaded.
 */
#include "whatif/side.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/json_parse.h"
#include "kube/base/json_writer.h"
#include "policy/ksc_read.h"

/* The side's own Policy document as JSON text (from a). */
static const char *base_text(const struct whatif_side *s,
                             const struct policy_load_opts *opts,
                             struct arena *a, const char **name, struct err *e)
{
    struct policy *p = NULL;
    const char *src = NULL, *out;
    char *buf, *text;
    size_t len;

    if (s->policy) {
        if (policy_load_file(s->policy, opts, &p, e) < 0)
            return NULL;
        out = policy_write_json(&p->doc, a, e);
        policy_free(p);
        *name = s->policy;
        return out;
    }
    buf = policy_ksc_read_file(s->ksc, &len, e);
    if (!buf)
        return NULL;
    text = policy_ksc_policy_text(s->ksc, buf, len, s->profile,
                                  POLICY_KSC_EXTENDERS, &src, e);
    free(buf);
    out = text ? arena_strdup(a, text) : NULL;
    *name = src ? arena_strdup(a, src) : NULL;
    free(text);
    free((char *)src);
    if (text && (!out || !*name)) {
        err_set(e, "out of memory");
        return NULL;
    }
    return out;
}

static void write_value(struct jsonw *w, const cJSON *v)
{
    char *t = cJSON_PrintUnformatted(v);

    if (t)
        jsonw_raw(w, t, strlen(t));
    else
        jsonw_null(w);
    free(t);
}

/* Whether base leaves list `key` to the defaults while ext adds to it. */
static bool defaults_gain(const cJSON *base, const cJSON *ext, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(ext, key);

    return !cJSON_GetObjectItemCaseSensitive(base, key) && cJSON_IsArray(x) &&
           x->child;
}

/* base's members but extenders, lists extended by ext's; text from a. */
static char *merge(const cJSON *base, const cJSON *ext, const char *name,
                   struct arena *a, struct err *e)
{
    const cJSON *m, *it;
    struct jsonw w;
    char *t, *out;

    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    for (m = base->child; m; m = m->next) {
        if (!strcmp(m->string, "extenders"))
            continue;
        jsonw_key(&w, m->string);
        if (strcmp(m->string, "predicates") &&
            strcmp(m->string, "priorities")) {
            write_value(&w, m);
            continue;
        }
        jsonw_begin_array(&w);
        for (it = m->child; it; it = it->next)
            write_value(&w, it);
        it = cJSON_GetObjectItemCaseSensitive(ext, m->string);
        for (it = cJSON_IsArray(it) ? it->child : NULL; it; it = it->next)
            write_value(&w, it);
        jsonw_end_array(&w);
    }
    jsonw_end_object(&w);
    if (defaults_gain(base, ext, "predicates") ||
        defaults_gain(base, ext, "priorities")) {
        jsonw_free(&w);
        err_set(e,
                "%s: no predicates or priorities list (the defaults): the "
                "extender's entries cannot be added to it",
                name);
        return NULL;
    }
    t = jsonw_take(&w, NULL);
    out = t ? arena_strdup(a, t) : NULL;
    free(t);
    if (!out)
        err_set(e, "out of memory");
    return out;
}

static int load_with_extender(const struct whatif_side *s,
                              const struct policy_load_opts *opts,
                              struct policy **out, struct err *e)
{
    struct arena a;
    struct policy *x = NULL;
    const char *name = NULL, *bt, *xt, *full;
    cJSON *btree, *xtree;
    char *merged;
    int rc = -1;

    arena_init(&a, 0);
    bt = base_text(s, opts, &a, &name, e);
    if (!bt || policy_load_file(s->extender_policy, opts, &x, e) < 0)
        goto out;
    xt = policy_write_json(&x->doc, &a, e);
    if (!xt || json_arena_parse(&a, bt, strlen(bt), 0, &btree, e) < 0 ||
        json_arena_parse(&a, xt, strlen(xt), 0, &xtree, e) < 0)
        goto out;
    merged = merge(btree, xtree, name, &a, e);
    full = arena_sprintf(&a, "%s + extender %s", name, s->extender_policy);
    if (!merged || !full)
        goto out;
    rc = policy_load_buffer(full, merged, strlen(merged), opts, out, e);
out:
    policy_free(x);
    arena_destroy(&a);
    return rc;
}

int whatif_side_load(const struct whatif_side *s,
                     const struct policy_load_opts *opts, struct policy **out,
                     struct err *e)
{
    if (s->extender_policy)
        return load_with_extender(s, opts, out, e);
    if (s->ksc)
        return policy_load_ksc_file(s->ksc, s->profile, opts, out, e);
    return policy_load_file(s->policy, opts, out, e);
}
