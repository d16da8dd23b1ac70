/*
 * cmd_list.c: `kube-policy-extender list [--output text|json]`: every
 * predicate and priority of the registries (predicates/registry.c,
 * priorities/registry.c) with their flags, default weights, arguments and
 * the v1.22 plugins they map to, plus the aliases. The Policy reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/json_writer.h"
#include "predicates/predicates.h"
#include "priorities/priorities.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"

/*
 * The argument rows of list: every schema a descriptor names (its argument
 * as written, or values no argument sets), each once, predicates first,
 * in registry order.
 */
struct list_arg {
    int prio; /* 0: predicate, 1: priority */
    const struct kpe_arg_schema *schema;
};

#define LIST_MAX_ARGS 32

static void add_arg(struct list_arg *out, size_t *n, int prio,
                    const struct kpe_arg_schema *s)
{
    size_t i;

    if (!s || *n == LIST_MAX_ARGS)
        return;
    for (i = 0; i < *n; i++) {
        if (out[i].prio == prio && out[i].schema == s)
            return;
    }
    out[*n].prio = prio;
    out[(*n)++].schema = s;
}

static size_t list_args(struct list_arg *out)
{
    const struct pred_def *const *pd;
    const struct prio_def *const *rd;
    size_t i, n, k = 0;

    pd = pred_registry(&n);
    for (i = 0; i < n; i++)
        add_arg(out, &k, 0, pd[i]->args);
    rd = prio_registry(&n);
    for (i = 0; i < n; i++) {
        add_arg(out, &k, 1, rd[i]->args);
        add_arg(out, &k, 1, rd[i]->values);
    }
    return k;
}

struct list_flag {
    unsigned bit;
    const char *word;
};

static const struct list_flag pred_flag_words[] = {
    { PRED_MANDATORY, "mandatory" },
    { PRED_DEFAULT, "default" },
    { PRED_LEGACY, "legacy" },
    { PRED_EXTENSION, "ours" },
    { PRED_CUSTOM_ONLY, "custom-only" },
    { PRED_PLUGIN, "plugin" },
    { 0, NULL },
};

static const struct list_flag prio_flag_words[] = {
    { PRIO_DEFAULT, "default" },
    { PRIO_SKIPPED, "skipped" },
    { PRIO_LEGACY, "legacy" },
    { PRIO_EXTENSION, "ours" },
    { PRIO_CUSTOM_ONLY, "custom-only" },
    { PRIO_WEIGHT_LABELS, "weight-per-label" },
    { PRIO_PLUGIN, "plugin" },
    { 0, NULL },
};

static const char *const ep_words[] = { "preFilter", "filter",  "preScore",
                                        "score",     "reserve", "preBind" };

static const char *const need_words[] = {
    "podsOnNode", "allPods",        "services", "controllers", "pvs",
    "pvcs",       "storageClasses", "csiNodes", "namespaces",
};

/* What one registry row shows, predicate or priority alike. */
struct list_row {
    const char *name;
    unsigned flags;
    const struct list_flag *words;
    int64_t weight; /* priorities only */
    unsigned needs;
    const struct kpe_plugin_ref *plugins[KPE_MAX_PLUGINS];
    size_t n_plugins;
    const struct kpe_arg_schema *arg; /* as written, or values */
    const char *no_plugin;            /* why there is no v1.22 plugin */
    const char *doc;
};

#define NO_PLUGIN_OURS    "served by this extender only"
#define NO_PLUGIN_LEGACY  "dropped before v1.22, needs --compat legacy"
#define NO_PLUGIN_SKIPPED "validated, then dropped"

static struct list_row pred_row(const struct pred_def *d)
{
    struct list_row r = { .name = d->name,
                          .flags = d->flags,
                          .words = pred_flag_words,
                          .needs = d->needs,
                          .arg = d->args,
                          .no_plugin = (d->flags & PRED_EXTENSION)
                                           ? NO_PLUGIN_OURS
                                           : NO_PLUGIN_LEGACY,
                          .doc = d->doc };

    r.n_plugins = pred_def_refs(d, r.plugins);
    return r;
}

static struct list_row prio_row(const struct prio_def *d)
{
    struct list_row r = { .name = d->name,
                          .flags = d->flags,
                          .words = prio_flag_words,
                          .weight = d->default_weight,
                          .needs = d->needs,
                          .arg = d->args ? d->args : d->values,
                          .no_plugin =
                              (d->flags & PRIO_EXTENSION) ? NO_PLUGIN_OURS
                              : (d->flags & PRIO_SKIPPED) ? NO_PLUGIN_SKIPPED
                                                          : NO_PLUGIN_LEGACY,
                          .doc = d->doc };

    r.n_plugins = prio_def_refs(d, r.plugins);
    return r;
}

/* ---- text ---- */

static void text_row(FILE *f, const struct list_row *r, int prio)
{
    const struct list_flag *w;
    size_t i, j, k;

    fprintf(f, "  %s", r->name);
    k = 0;
    for (w = r->words; w->word; w++) {
        if (r->flags & w->bit)
            fprintf(f, "%s%s", k++ ? " " : " [", w->word);
    }
    fprintf(f, "%s\n", k ? "]" : "");
    fprintf(f, "      %s\n", r->doc);
    if (prio && r->weight)
        fprintf(f, "      default weight: %lld\n", (long long)r->weight);
    fprintf(f, "      v1.22:");
    if (!r->n_plugins)
        fprintf(f, " (none: %s)", r->no_plugin);
    for (i = 0; i < r->n_plugins; i++) {
        fprintf(f, " %s(", r->plugins[i]->name);
        for (j = 0, k = 0; j < sizeof(ep_words) / sizeof(ep_words[0]); j++) {
            if (r->plugins[i]->points & (1u << j))
                fprintf(f, "%s%s", k++ ? "," : "", ep_words[j]);
        }
        fputc(')', f);
    }
    fputc('\n', f);
    if (r->arg)
        fprintf(f, "      argument: %s\n", r->arg->key);
    fprintf(f, "      reads: nodes");
    for (i = 0; i < sizeof(need_words) / sizeof(need_words[0]); i++) {
        if (r->needs & (1u << i))
            fprintf(f, " %s", need_words[i]);
    }
    fputc('\n', f);
}

/* The descriptors that name an argument schema, into names[]. */
static size_t arg_users(const struct list_arg *la, const char **names,
                        size_t max)
{
    size_t i, n, k = 0;

    if (la->prio) {
        const struct prio_def *const *r = prio_registry(&n);

        for (i = 0; i < n && k < max; i++) {
            if (r[i]->args == la->schema || r[i]->values == la->schema)
                names[k++] = r[i]->name;
        }
    } else {
        const struct pred_def *const *r = pred_registry(&n);

        for (i = 0; i < n && k < max; i++) {
            if (r[i]->args == la->schema)
                names[k++] = r[i]->name;
        }
    }
    return k;
}

static void text_args(FILE *f)
{
    struct list_arg la[LIST_MAX_ARGS];
    const char *users[64];
    size_t i, j, n = list_args(la), nu;

    fprintf(f, "\nArguments\n");
    for (i = 0; i < n; i++) {
        const struct kpe_arg_schema *s = la[i].schema;

        fprintf(f, "  %s (%s %s)\n      for:", s->key,
                la[i].prio ? "priority" : "predicate",
                s->not_in_policy ? "values, not in an argument" : "argument");
        nu = arg_users(&la[i], users, 64);
        for (j = 0; j < nu; j++)
            fprintf(f, " %s", users[j]);
        fputc('\n', f);
        for (j = 0; j < s->n_fields; j++)
            fprintf(f, "      %s: %s, %s%s\n", s->fields[j].name,
                    s->fields[j].type_doc,
                    s->fields[j].def ? "default " : "required",
                    s->fields[j].def ? s->fields[j].def : "");
        fprintf(f, "      %s\n", s->note);
    }
}

static void text_out(FILE *f)
{
    const struct pred_def *const *pd;
    const struct prio_def *const *rd;
    const char *const *al;
    size_t i, n;

    fprintf(f, "Predicates (Policy \"predicates\"), in run order\n");
    pd = pred_registry(&n);
    for (i = 0; i < n; i++) {
        struct list_row r = pred_row(pd[i]);

        text_row(f, &r, 0);
    }
    fprintf(f, "\nPriorities (Policy \"priorities\"), in score-plugin "
               "order\n");
    rd = prio_registry(&n);
    for (i = 0; i < n; i++) {
        struct list_row r = prio_row(rd[i]);

        text_row(f, &r, 1);
    }
    text_args(f);
    fprintf(f, "\nAliases\n");
    pd = pred_registry(&n);
    for (i = 0; i < n; i++) {
        for (al = pd[i]->aliases; al && *al; al++)
            fprintf(f, "  %s -> %s (predicate)\n", *al, pd[i]->name);
    }
    rd = prio_registry(&n);
    for (i = 0; i < n; i++) {
        for (al = rd[i]->aliases; al && *al; al++)
            fprintf(f, "  %s -> %s (priority)\n", *al, rd[i]->name);
    }
    fprintf(f, "\nFlags: mandatory = always added; default = in the set used "
               "when the key is absent;\nlegacy = dropped before v1.22 "
               "(--compat legacy); ours = not in kube-scheduler;\n"
               "custom-only = reached through an argument under another "
               "name; skipped = accepted,\nthen ignored (as v1.22 does); "
               "weight-per-label = plugin weight x label count.\n");
    if (pred_registry_runtime() || prio_registry_runtime())
        fprintf(f, "plugin = loaded from a shared object (--plugin).\n");
}

/* ---- JSON ---- */

static void json_row(struct jsonw *w, const struct list_row *r, int prio)
{
    const struct list_flag *fw;
    size_t i, j;

    jsonw_begin_object(w);
    jsonw_key(w, "name");
    jsonw_string(w, r->name);
    jsonw_key(w, "flags");
    jsonw_begin_array(w);
    for (fw = r->words; fw->word; fw++) {
        if (r->flags & fw->bit)
            jsonw_string(w, fw->word);
    }
    jsonw_end_array(w);
    if (prio) {
        jsonw_key(w, "defaultWeight");
        jsonw_int(w, r->weight);
    }
    jsonw_key(w, "doc");
    jsonw_string(w, r->doc);
    jsonw_key(w, "argument");
    if (r->arg && !r->arg->not_in_policy)
        jsonw_string(w, r->arg->key);
    else
        jsonw_null(w);
    jsonw_key(w, "plugins");
    jsonw_begin_array(w);
    for (i = 0; i < r->n_plugins; i++) {
        jsonw_begin_object(w);
        jsonw_key(w, "name");
        jsonw_string(w, r->plugins[i]->name);
        jsonw_key(w, "extensionPoints");
        jsonw_begin_array(w);
        for (j = 0; j < sizeof(ep_words) / sizeof(ep_words[0]); j++) {
            if (r->plugins[i]->points & (1u << j))
                jsonw_string(w, ep_words[j]);
        }
        jsonw_end_array(w);
        jsonw_end_object(w);
    }
    jsonw_end_array(w);
    jsonw_key(w, "withoutPlugin");
    jsonw_string(w, r->n_plugins ? NULL : r->no_plugin);
    jsonw_key(w, "reads");
    jsonw_begin_array(w);
    jsonw_string(w, "nodes");
    for (i = 0; i < sizeof(need_words) / sizeof(need_words[0]); i++) {
        if (r->needs & (1u << i))
            jsonw_string(w, need_words[i]);
    }
    jsonw_end_array(w);
    jsonw_end_object(w);
}

static void json_args(struct jsonw *w)
{
    struct list_arg la[LIST_MAX_ARGS];
    const char *users[64];
    size_t i, j, n = list_args(la), nu;

    jsonw_begin_array(w);
    for (i = 0; i < n; i++) {
        const struct kpe_arg_schema *s = la[i].schema;

        jsonw_begin_object(w);
        jsonw_key(w, "for");
        jsonw_string(w, la[i].prio ? "priority" : "predicate");
        jsonw_key(w, "title");
        jsonw_string(w, s->key);
        jsonw_key(w, "policyKey");
        jsonw_string(w, s->not_in_policy ? NULL : s->key);
        jsonw_key(w, "usedBy");
        jsonw_begin_array(w);
        nu = arg_users(&la[i], users, 64);
        for (j = 0; j < nu; j++)
            jsonw_string(w, users[j]);
        jsonw_end_array(w);
        jsonw_key(w, "keys");
        jsonw_begin_array(w);
        for (j = 0; j < s->n_fields; j++) {
            jsonw_begin_object(w);
            jsonw_key(w, "key");
            jsonw_string(w, s->fields[j].name);
            jsonw_key(w, "type");
            jsonw_string(w, s->fields[j].type_doc);
            jsonw_key(w, "default");
            jsonw_string(w, s->fields[j].def);
            jsonw_end_object(w);
        }
        jsonw_end_array(w);
        jsonw_key(w, "note");
        jsonw_string(w, s->note);
        jsonw_end_object(w);
    }
    jsonw_end_array(w);
}

static void json_alias(struct jsonw *w, const char *name, const char *target,
                       const char *kind)
{
    jsonw_begin_object(w);
    jsonw_key(w, "name");
    jsonw_string(w, name);
    jsonw_key(w, "target");
    jsonw_string(w, target);
    jsonw_key(w, "for");
    jsonw_string(w, kind);
    jsonw_end_object(w);
}

static void json_aliases(struct jsonw *w)
{
    const struct pred_def *const *pd;
    const struct prio_def *const *rd;
    const char *const *al;
    size_t i, n;

    jsonw_begin_array(w);
    pd = pred_registry(&n);
    for (i = 0; i < n; i++) {
        for (al = pd[i]->aliases; al && *al; al++)
            json_alias(w, *al, pd[i]->name, "predicate");
    }
    rd = prio_registry(&n);
    for (i = 0; i < n; i++) {
        for (al = rd[i]->aliases; al && *al; al++)
            json_alias(w, *al, rd[i]->name, "priority");
    }
    jsonw_end_array(w);
}

/* The whole document to f; returns 0, or -1 when out of memory. */
static int json_out(FILE *f)
{
    const struct pred_def *const *pd;
    const struct prio_def *const *rd;
    struct jsonw w;
    size_t i, n;
    char *out;

    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "predicates");
    jsonw_begin_array(&w);
    pd = pred_registry(&n);
    for (i = 0; i < n; i++) {
        struct list_row r = pred_row(pd[i]);

        json_row(&w, &r, 0);
    }
    jsonw_end_array(&w);
    jsonw_key(&w, "priorities");
    jsonw_begin_array(&w);
    rd = prio_registry(&n);
    for (i = 0; i < n; i++) {
        struct list_row r = prio_row(rd[i]);

        json_row(&w, &r, 1);
    }
    jsonw_end_array(&w);
    jsonw_key(&w, "arguments");
    json_args(&w);
    jsonw_key(&w, "aliases");
    json_aliases(&w);
    jsonw_end_object(&w);
    out = jsonw_take(&w, NULL);
    if (!out)
        return -1;
    fprintf(f, "%s\n", out);
    free(out);
    return 0;
}

static const struct cli_opt *const list_tables[] = { cli_output_opts, NULL };

const struct cli_spec cli_list_spec = {
    "list",
    "[OPTIONS]",
    "Print every predicate and priority a Policy may name: flags, default "
    "weights, arguments, the v1.22 plugins they map to, and the aliases.",
    NULL,
    false,
    list_tables,
    NULL,
};

static int list_take(void *ctx, const char *a, const char *v)
{
    (void)a; /* --output is list's only option */
    return cli_output_value("list", v, ctx);
}

int cli_list(int argc, char **argv)
{
    bool json = false;
    int rc = cli_opts_parse(&cli_list_spec, argc, argv, list_take, &json);

    if (rc)
        return rc == 1 ? 0 : rc;
    if (json)
        return json_out(stdout) ? 1 : 0;
    text_out(stdout);
    return 0;
}
