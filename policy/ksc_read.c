/*
 * ksc_read.c: a KubeSchedulerConfiguration profile as a Policy (see
 * ksc_read.h; ksc_scores.c holds the score half): the document, its
 * version and profile, each extension point's plugin set, the filters.
 * Default filters after kube-scheduler v1.20's algorithmprovider
 * getDefaultConfig (the same in v1.22's v1beta2); merging after
 * mergePlugins: "*" disabled drops every default of an extension point,
 * an enabled default keeps its place with the new weight.
 */
#include "policy/ksc_read.h"

#include "policy/ksc_read_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/doc_format.h"
#include "kube/base/json_parse.h"
#include "kube/base/yaml_reader.h"

#define KSC_GROUP     "kubescheduler.config.k8s.io/"
#define KSC_MAX_FILE  ((size_t)16 << 20)
#define DEFAULT_SCHED "default-scheduler"
#define KSC_WIRING    0x100u /* policy_ksc_wiring_text */

static const struct plugin_w default_filters[] = {
    { "NodeUnschedulable", 0, NULL },  { "NodeName", 0, NULL },
    { "TaintToleration", 0, NULL },    { "NodeAffinity", 0, NULL },
    { "NodePorts", 0, NULL },          { "NodeResourcesFit", 0, NULL },
    { "VolumeRestrictions", 0, NULL }, { "EBSLimits", 0, NULL },
    { "GCEPDLimits", 0, NULL },        { "NodeVolumeLimits", 0, NULL },
    { "AzureDiskLimits", 0, NULL },    { "VolumeBinding", 0, NULL },
    { "VolumeZone", 0, NULL },         { "PodTopologySpread", 0, NULL },
    { "InterPodAffinity", 0, NULL },   { NULL, 0, NULL },
};

const char *ksc_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *ksc_get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsNull(v) ? NULL : v;
}

/* ---- the plugin set of one extension point ---- */

static int set_put(struct kctx *k, struct pset *s, const char *name,
                   int64_t weight, const char *where)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        if (!strcmp(s->v[i].name, name)) {
            s->v[i].weight = weight;
            s->v[i].where = where;
            return 0;
        }
    }
    if (s->n == KSC_MAX_SET)
        return err_set(k->e, "%s: more than %d plugins", where, KSC_MAX_SET);
    s->v[s->n].name = name;
    s->v[s->n].weight = weight;
    s->v[s->n++].where = where;
    return 0;
}

static int read_list(struct kctx *k, const cJSON *set, const char *key,
                     const char *point, const cJSON **out)
{
    const cJSON *l = ksc_get(set, key);

    *out = l;
    if (l && !cJSON_IsArray(l))
        return err_set(k->e, "profiles[%zu].plugins.%s.%s: expected a list",
                       k->profile_index, point, key);
    return 0;
}

/* The defaults of a point merged with the profile's lists into s. */
int ksc_point_set(struct kctx *k, const char *point,
                  const struct plugin_w *defaults, struct pset *s)
{
    const cJSON *set = ksc_get(ksc_get(k->profile, "plugins"), point), *en,
                *dis, *it;
    bool all_off = false;
    size_t i, j;

    s->n = 0;
    if (read_list(k, set, "enabled", point, &en) < 0 ||
        read_list(k, set, "disabled", point, &dis) < 0)
        return -1;
    for (it = dis ? dis->child : NULL; it; it = it->next)
        all_off = all_off ||
                  (ksc_str(it, "name") && !strcmp(ksc_str(it, "name"), "*"));
    for (i = 0; !all_off && defaults[i].name; i++) {
        bool off = false;

        for (it = dis ? dis->child : NULL; it; it = it->next)
            off = off || (ksc_str(it, "name") &&
                          !strcmp(ksc_str(it, "name"), defaults[i].name));
        if (!off && set_put(k, s, defaults[i].name, defaults[i].weight,
                            "(default)") < 0)
            return -1;
    }
    for (it = en ? en->child : NULL, j = 0; it; it = it->next, j++) {
        const char *name = ksc_str(it, "name");
        const cJSON *w = ksc_get(it, "weight");
        char *where =
            arena_sprintf(k->a, "profiles[%zu].plugins.%s.enabled[%zu]",
                          k->profile_index, point, j);

        if (!where)
            return err_set(k->e, "out of memory");
        if (!name)
            return err_set(k->e, "%s.name: expected a plugin name", where);
        if (w && (!cJSON_IsNumber(w) || w->valuedouble < 0 ||
                  w->valuedouble > INT32_MAX ||
                  w->valuedouble != (double)(int64_t)w->valuedouble))
            return err_set(k->e, "%s.weight: expected a whole number from 0",
                           where);
        if (set_put(k, s, name, w ? (int64_t)w->valuedouble : 0, where) < 0)
            return -1;
    }
    return 0;
}

/* The args of plugin `name` in the profile's pluginConfig, or NULL. */
const cJSON *ksc_plugin_args(const struct kctx *k, const char *name)
{
    const cJSON *it, *pc = ksc_get(k->profile, "pluginConfig");

    for (it = cJSON_IsArray(pc) ? pc->child : NULL; it; it = it->next) {
        const char *n = ksc_str(it, "name");

        if (n && !strcmp(n, name))
            return ksc_get(it, "args");
    }
    return NULL;
}

/* resources absent, or exactly cpu=1 and memory=1 (the Policy's only). */
bool ksc_default_resources(const cJSON *res)
{
    const cJSON *it;
    int cpu = 0, mem = 0, other = 0;

    if (!res)
        return true;
    for (it = res->child; it; it = it->next) {
        const char *n = ksc_str(it, "name");
        const cJSON *w = ksc_get(it, "weight");
        bool one = !w || (cJSON_IsNumber(w) && w->valuedouble == 1);

        if (n && !strcmp(n, "cpu") && one)
            cpu++;
        else if (n && !strcmp(n, "memory") && one)
            mem++;
        else
            other++;
    }
    return cpu == 1 && mem == 1 && !other;
}

/* ---- filters ---- */

/* The Policy predicate whose only v1.22 plugin is filter plugin name. */
static const struct pred_def *pred_for_plugin(const char *name)
{
    const unsigned skip =
        PRED_LEGACY | PRED_EXTENSION | PRED_CUSTOM_ONLY | PRED_PLUGIN;
    const struct pred_def *const *rows;
    size_t n, i;

    rows = pred_registry(&n);
    for (i = 0; i < n; i++) {
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        if ((rows[i]->flags & skip) || pred_def_refs(rows[i], refs) != 1)
            continue;
        if ((refs[0]->points & KPE_EP_FILTER) && !strcmp(refs[0]->name, name))
            return rows[i];
    }
    return NULL;
}

static int write_filters(struct kctx *k)
{
    struct pset s;
    size_t i;

    if (ksc_point_set(k, "filter", default_filters, &s) < 0)
        return -1;
    jsonw_key(k->w, "predicates");
    jsonw_begin_array(k->w);
    for (i = 0; i < s.n; i++) {
        const struct pred_def *d = pred_for_plugin(s.v[i].name);

        if (!d)
            return err_set(k->e,
                           "%s: filter plugin \"%s\" has no Policy predicate "
                           "in this project",
                           s.v[i].where, s.v[i].name);
        jsonw_begin_object(k->w);
        jsonw_key(k->w, "name");
        jsonw_string(k->w, d->name);
        jsonw_end_object(k->w);
    }
    jsonw_end_array(k->w);
    return 0;
}

/* ---- the document ---- */

static int check_version(struct kctx *k, const cJSON *root)
{
    const char *kind = ksc_str(root, "kind"), *av = ksc_str(root, "apiVersion");

    if (!kind || strcmp(kind, "KubeSchedulerConfiguration"))
        return err_set(k->e,
                       "kind: expected KubeSchedulerConfiguration, got "
                       "%s%s%s",
                       kind ? "\"" : "", kind ? kind : "none",
                       kind ? "\"" : "");
    if (!av || strncmp(av, KSC_GROUP, strlen(KSC_GROUP)))
        return err_set(k->e,
                       "apiVersion: expected %sv1beta1 or v1beta2, got "
                       "%s%s%s",
                       KSC_GROUP, av ? "\"" : "", av ? av : "none",
                       av ? "\"" : "");
    av += strlen(KSC_GROUP);
    if (!strcmp(av, "v1beta1")) {
        k->v = KSC_V1BETA1;
        return 0;
    }
    if (!strcmp(av, "v1beta2")) {
        k->v = KSC_V1BETA2;
        return 0;
    }
    /* The wiring doctor reads their extenders, not their plugins. */
    if ((k->flags & KSC_WIRING) && !strcmp(av, "v1beta3")) {
        k->v = KSC_V1BETA3;
        return 0;
    }
    if ((k->flags & KSC_WIRING) && !strcmp(av, "v1")) {
        k->v = KSC_V1;
        return 0;
    }
    return err_set(k->e,
                   "apiVersion: %s%s is not read: this project implements the "
                   "plugins of v1beta1 and v1beta2 (kube-scheduler "
                   "v1.19-v1.22); later versions renamed and removed plugins "
                   "it does not have",
                   KSC_GROUP, av);
}

/* The profile named `want` (NULL: the first), or the default profile. */
static int pick_profile(struct kctx *k, const cJSON *root, const char *want)
{
    const cJSON *ps = ksc_get(root, "profiles"), *it;
    size_t i;
    char names[256] = "";

    if (ps && !cJSON_IsArray(ps))
        return err_set(k->e, "profiles: expected a list");
    for (it = ps ? ps->child : NULL, i = 0; it; it = it->next, i++) {
        const char *n = ksc_str(it, "schedulerName");

        n = n ? n : DEFAULT_SCHED;
        if (!want || !strcmp(n, want)) {
            k->profile = it;
            k->profile_index = i;
            return 0;
        }
        if (strlen(names) + strlen(n) + 4 < sizeof(names))
            snprintf(names + strlen(names), sizeof(names) - strlen(names),
                     "%s\"%s\"", i ? ", " : "", n);
    }
    if (!ps || !ps->child) {
        if (want && strcmp(want, DEFAULT_SCHED))
            return err_set(k->e,
                           "no profile \"%s\": the file has only the default "
                           "profile (%s)",
                           want, DEFAULT_SCHED);
        k->profile = NULL; /* every default */
        return 0;
    }
    return err_set(k->e, "no profile \"%s\" (profiles: %s)", want, names);
}

static int parse_tree(struct arena *a, const char *buf, size_t len,
                      cJSON **root, struct err *e)
{
    switch (doc_format_sniff(buf, len, e)) {
    case DOC_FORMAT_JSON:
        doc_skip_bom(&buf, &len);
        return json_arena_parse(a, buf, len, 0, root, e);
    case DOC_FORMAT_YAML:
        return yaml_parse_one(a, buf, len, root, NULL, e);
    case DOC_FORMAT_INI:
        return err_set(e, "looks like INI; expected a "
                          "KubeSchedulerConfiguration in YAML or JSON");
    default:
        return -1;
    }
}

/* "NAME (profile SCHED)", malloc'd into *out; 0 or -1. */
static int asprintf_source(const char *name, const char *sched,
                           const char **out)
{
    size_t n = strlen(name) + strlen(sched) + 16;
    char *s = malloc(n);

    if (!s)
        return -1;
    snprintf(s, n, "%s (profile %s)", name, sched);
    *out = s;
    return 0;
}

/* The Policy text of the profile, malloc'd into *text. */
static int to_policy(struct kctx *k, const cJSON *root, char **text)
{
    struct jsonw w;
    const cJSON *ext = ksc_get(root, "extenders");

    if (cJSON_IsArray(ext) && ext->child &&
        !(k->flags & (POLICY_KSC_EXTENDERS | KSC_WIRING)))
        return err_set(k->e,
                       "extenders[0]: the profile calls an extender (%s): what "
                       "it decides is not in this file; give the Policy it "
                       "serves (diff --extender-policy)",
                       ksc_str(ext->child, "urlPrefix")
                           ? ksc_str(ext->child, "urlPrefix")
                           : "no urlPrefix");
    k->w = &w;
    k->hard_weight = -1;
    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "kind");
    jsonw_string(&w, "Policy");
    jsonw_key(&w, "apiVersion");
    jsonw_string(&w, "v1");
    if (k->v >= KSC_V1BETA3) {
        /* Plugins this project does not implement: not read (wiring). */
        jsonw_key(&w, "predicates");
        jsonw_begin_array(&w);
        jsonw_end_array(&w);
        jsonw_key(&w, "priorities");
        jsonw_begin_array(&w);
        jsonw_end_array(&w);
    } else if (write_filters(k) < 0 || ksc_write_scores(k) < 0) {
        jsonw_free(&w);
        return -1;
    }
    if ((k->flags & KSC_WIRING) && ksc_write_extenders(k, ext) < 0) {
        jsonw_free(&w);
        return -1;
    }
    if (k->hard_weight >= 0) {
        jsonw_key(&w, "hardPodAffinitySymmetricWeight");
        jsonw_int(&w, k->hard_weight);
    }
    jsonw_end_object(&w);
    *text = jsonw_take(&w, NULL);
    return *text ? 0 : err_set(k->e, "out of memory");
}

static char *ksc_text(const char *name, const char *buf, size_t len,
                      const char *profile, unsigned flags,
                      enum ksc_version *version, const char **source,
                      struct err *e)
{
    struct arena a;
    struct kctx k;
    cJSON *root = NULL;
    char *text = NULL;
    const char *sched;

    memset(&k, 0, sizeof(k));
    k.a = &a;
    k.e = e;
    k.flags = flags;
    arena_init(&a, 0);
    if (parse_tree(&a, buf, len, &root, e) < 0 || check_version(&k, root) < 0 ||
        pick_profile(&k, root, profile) < 0 || to_policy(&k, root, &text) < 0) {
        err_prefix(e, "%s: ", name);
        arena_destroy(&a);
        return NULL;
    }
    sched = k.profile && ksc_str(k.profile, "schedulerName")
                ? ksc_str(k.profile, "schedulerName")
                : DEFAULT_SCHED;
    *source = NULL;
    if (asprintf_source(name, sched, source) < 0) {
        free(text);
        text = NULL;
        err_set(e, "out of memory");
    }
    *version = k.v;
    arena_destroy(&a);
    return text;
}

char *policy_ksc_policy_text(const char *name, const char *buf, size_t len,
                             const char *profile, unsigned flags,
                             const char **source, struct err *e)
{
    enum ksc_version v;

    return ksc_text(name, buf, len, profile, flags & ~KSC_WIRING, &v, source,
                    e);
}

char *policy_ksc_wiring_text(const char *name, const char *buf, size_t len,
                             const char *profile, struct policy_ksc_info *info,
                             const char **source, struct err *e)
{
    static const char *const names[] = { "v1beta1", "v1beta2", "v1beta3",
                                         "v1" };
    enum ksc_version v = KSC_V1BETA1;
    char *text = ksc_text(name, buf, len, profile, KSC_WIRING, &v, source, e);

    if (text) {
        snprintf(info->version, sizeof(info->version), "%s", names[v]);
        info->plugins_read = v <= KSC_V1BETA2;
    }
    return text;
}

int policy_load_ksc_buffer(const char *name, const char *buf, size_t len,
                           const char *profile,
                           const struct policy_load_opts *opts,
                           struct policy **out, struct err *e)
{
    const char *src = NULL;
    char *text = policy_ksc_policy_text(name, buf, len, profile, 0, &src, e);
    int rc;

    if (!text)
        return -1;
    /* Its errors are named after src. */
    rc = policy_load_buffer(src, text, strlen(text), opts, out, e);
    free(text);
    free((char *)src);
    return rc;
}

bool policy_ksc_is_config(const char *buf, size_t len)
{
    struct arena a;
    struct err e;
    cJSON *root = NULL;
    const char *kind;
    bool yes;

    arena_init(&a, 0);
    err_clear(&e);
    yes = parse_tree(&a, buf, len, &root, &e) == 0 &&
          (kind = ksc_str(root, "kind")) &&
          !strcmp(kind, "KubeSchedulerConfiguration");
    arena_destroy(&a);
    return yes;
}

char *policy_ksc_read_file(const char *path, size_t *len, struct err *e)
{
    FILE *f = fopen(path, "rb");
    char *buf;

    if (!f) {
        err_set(e, "%s: %s", path, strerror(errno));
        return NULL;
    }
    buf = malloc(KSC_MAX_FILE + 1);
    if (!buf) {
        fclose(f);
        err_set(e, "%s: out of memory", path);
        return NULL;
    }
    *len = fread(buf, 1, KSC_MAX_FILE + 1, f);
    if (ferror(f) || *len > KSC_MAX_FILE) {
        err_set(e, "%s: %s", path,
                ferror(f) ? "read error" : "larger than 16 MiB");
        free(buf);
        buf = NULL;
    } else {
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

int policy_load_ksc_file(const char *path, const char *profile,
                         const struct policy_load_opts *opts,
                         struct policy **out, struct err *e)
{
    size_t len;
    char *buf = policy_ksc_read_file(path, &len, e);
    int rc;

    if (!buf)
        return -1;
    rc = policy_load_ksc_buffer(path, buf, len, profile, opts, out, e);
    free(buf);
    return rc;
}
