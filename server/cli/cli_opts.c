/*
 * cli_opts.c: the option parser and --help of every read-only command
 * (cli_opts.h).
 */
#include "server/cli/cli_opts.h"

#include <stdarg.h>
#include <string.h>

const struct cli_opt cli_policy_opts[] = {
    { "compat", 0, "MODE", false,
      "none (default), or legacy: accept the predicates and priorities "
      "v1.22 dropped (CheckNodeCondition, ...)" },
    { "format", 0, "FORMAT", false,
      "json, yaml or ini: how to read the Policy (default: from its file "
      "name and contents)" },
    { "semantics", 0, "VERSION", false,
      "1.20, 1.21 or 1.22 (default): evaluate as that kube-scheduler "
      "version does (docs/VERSION-SEMANTICS.md)" },
    { "feature-gates", 0, "LIST", false,
      "v1.22 gates as Name=bool,... (DefaultPodTopologySpread, "
      "CSIMigration, ...) (default: v1.22's)" },
    { NULL, 0, NULL, false, NULL },
};

const struct cli_opt cli_inputs_opts[] = {
    { "cluster", 0, "FILE", false,
      "objects (`kubectl get nodes,pods,... -o json`), JSON or YAML; "
      "repeat for more files" },
    { "kubeconfig", 0, "FILE", false,
      "list the live cluster once (no watch) (default: $KUBECONFIG, "
      "~/.kube/config, then the in-cluster service account)" },
    { "context", 0, "NAME", false,
      "kubeconfig context instead of its current-context" },
    { "master", 0, "URL", false, "API server URL, over the kubeconfig's" },
    { "request-timeout", 0, "SECONDS", false,
      "give up listing after this long (default: 60)" },
    { "namespace", 'n', "NS", false,
      "the namespace of pods named without one" },
    { NULL, 0, NULL, false, NULL },
};

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'kube-policy-extender %s --help')\n", cmd);
    return 2;
}

/* Options of one command at most (their `seen` marks). */
#define CLI_MAX_OPTS 128

/* The row arg names ("--name", "--name=...", "-x"), or NULL. */
static const struct cli_opt *find(const struct cli_spec *s, const char *arg,
                                  size_t *name_len)
{
    const struct cli_opt *const *t;
    const struct cli_opt *o;
    size_t n;

    if (arg[1] != '-') {
        *name_len = strcspn(arg, "=");
        if (*name_len != 2)
            return NULL;
        for (t = s->tables; *t; t++)
            for (o = *t; o->name; o++)
                if (o->short_name && o->short_name == arg[1])
                    return o;
        return NULL;
    }
    n = strcspn(arg + 2, "=");
    *name_len = n + 2;
    for (t = s->tables; *t; t++)
        for (o = *t; o->name; o++)
            if (strlen(o->name) == n && !strncmp(o->name, arg + 2, n))
                return o;
    return NULL;
}

bool cli_opts_takes_value(const struct cli_spec *s, const char *arg)
{
    const struct cli_opt *o;
    size_t len;

    if (arg[0] != '-' || !arg[1])
        return false;
    o = find(s, arg, &len);
    return o && o->metavar && arg[len] != '=';
}

/* Whether a required option of s was not given (printed). */
static int check_required(const struct cli_spec *s, const bool *seen)
{
    const struct cli_opt *const *t;
    const struct cli_opt *o;
    size_t k = 0;

    for (t = s->tables; *t; t++)
        for (o = *t; o->name; o++, k++)
            if (o->required && k < CLI_MAX_OPTS && !seen[k])
                return cli_usage_error(s->cmd, "missing required option '--%s'",
                                       o->name);
    return 0;
}

/* Index of o over all of s's tables, for the `seen` marks. */
static size_t index_of(const struct cli_spec *s, const struct cli_opt *o)
{
    const struct cli_opt *const *t;
    const struct cli_opt *r;
    size_t k = 0;

    for (t = s->tables; *t; t++)
        for (r = *t; r->name; r++, k++)
            if (r == o)
                return k;
    return 0;
}

int cli_opts_parse(const struct cli_spec *s, int argc, char **argv,
                   cli_take_fn *take, void *ctx)
{
    bool seen[CLI_MAX_OPTS] = { false }, positional = false;
    char name[80];
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        const struct cli_opt *o;
        size_t len, k;

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cli_opts_usage(s, stdout);
            return 1;
        }
        if (a[0] != '-' || !a[1]) {
            if (!s->positional)
                return cli_usage_error(s->cmd, "unexpected argument '%s'", a);
            if (positional)
                return cli_usage_error(s->cmd, "one %s, got '%s' too",
                                       s->positional, a);
            positional = true;
            if (take(ctx, NULL, a) < 0)
                return 2;
            continue;
        }
        o = find(s, a, &len);
        if (!o)
            return cli_usage_error(s->cmd, "unknown option '%.*s'", (int)len,
                                   a);
        snprintf(name, sizeof(name), "--%s", o->name);
        if (a[len] == '=') {
            if (!o->metavar)
                return cli_usage_error(s->cmd, "option '%s' takes no value",
                                       name);
            v = a + len + 1;
        } else if (o->metavar) {
            if (i + 1 >= argc)
                return cli_usage_error(s->cmd, "option '%s' needs a value (%s)",
                                       name, o->metavar);
            v = argv[++i];
        }
        k = index_of(s, o);
        if (k < CLI_MAX_OPTS)
            seen[k] = true;
        if (take(ctx, name, v) < 0)
            return 2;
    }
    if (s->positional && s->positional_required && !positional)
        return cli_usage_error(s->cmd, "missing %s", s->positional);
    return check_required(s, seen);
}

/* Print text as a paragraph indented by `ind` columns, 79 wide. */
static void wrap(FILE *f, const char *text, int ind)
{
    int col = 0;

    while (*text) {
        size_t w = strcspn(text, " ");

        if (col && col + 1 + (int)w > 79) {
            fputc('\n', f);
            col = 0;
        }
        if (!col)
            col = fprintf(f, "%*s", ind, "");
        else
            col += fprintf(f, " ");
        col += fprintf(f, "%.*s", (int)w, text);
        text += w;
        while (*text == ' ')
            text++;
    }
    fputc('\n', f);
}

void cli_opts_usage(const struct cli_spec *s, FILE *f)
{
    const struct cli_opt *const *t;
    const struct cli_opt *o;

    fprintf(f, "Usage: kube-policy-extender %s %s\n\n", s->cmd, s->synopsis);
    wrap(f, s->about, 0);
    fprintf(f, "\nOptions:\n");
    for (t = s->tables; *t; t++) {
        for (o = *t; o->name; o++) {
            char head[96];

            if (o->short_name)
                snprintf(head, sizeof(head), "  -%c, --%s", o->short_name,
                         o->name);
            else
                snprintf(head, sizeof(head), "  --%s", o->name);
            if (o->metavar) {
                strncat(head, " ", sizeof(head) - strlen(head) - 1);
                strncat(head, o->metavar, sizeof(head) - strlen(head) - 1);
            }
            fprintf(f, "%s%s\n", head, o->required ? "  (required)" : "");
            wrap(f, o->help, 6);
        }
    }
    fprintf(f, "  -h, --help\n      show this help\n");
    if (s->footer) {
        fputc('\n', f);
        fputs(s->footer, f);
    }
}
