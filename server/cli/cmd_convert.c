/*
 * cmd_convert.c: `kube-policy-extender convert POLICY --to
 * json|ini|kubeschedulerconfiguration|scheduler-policy|extender-policy
 * [--api-version
 * kubescheduler.config.k8s.io/v1beta2|kubescheduler.config.k8s.io/v1]
 * [--extender-url URL] [--compat legacy] [--format json|yaml|ini]`: the Policy
 * (validated first) in another form, on stdout. Exit 0, 1 invalid, 2 usage.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "policy/policy.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"

enum target {
    TO_NONE,
    TO_JSON,
    TO_INI,
    TO_KSC,
    TO_SCHED_POLICY,
    TO_EXT_POLICY
};

/* One half of the split deployment, as canonical JSON on stdout. */
static int write_split(struct policy *p, bool sched, const char *url,
                       struct err *e)
{
    struct policy_split_opts o = {
        .url = url ? url : "http://127.0.0.1:8888",
        .http_timeout_ns = 5000000000LL,
        .node_cache_capable = true,
    };
    struct policy_doc s, x;
    int64_t weight;
    char *text;

    if (policy_split(p, &p->arena, &o, &s, &x, &weight, e))
        return -1;
    text = policy_write_json(sched ? &s : &x, &p->arena, e);
    return text && fputs(text, stdout) >= 0 ? 0 : -1;
}

static const struct cli_opt convert_opts[] = {
    { "to", 0, "FORMAT", true,
      "json or ini: the Policy itself; kubeschedulerconfiguration: the "
      "profile kube-scheduler v1.22 builds from it; scheduler-policy: "
      "kube-scheduler's half of the split deployment (v1.13-v1.22, "
      "--policy-config-file), every predicate and priority it has in-tree "
      "and an extenders entry calling this server for the rest (weight = "
      "the sum of their weights); extender-policy: this server's half, only "
      "what kube-scheduler lacks" },
    { "api-version", 0, "VERSION", false,
      "of --to kubeschedulerconfiguration: kubescheduler.config.k8s.io/"
      "v1beta2 (default) or kubescheduler.config.k8s.io/v1" },
    { "extender-url", 0, "URL", false,
      "this server's URL in what is written (default: "
      "http://127.0.0.1:8888)" },
    { NULL, 0, NULL, false, NULL },
};

static const struct cli_opt *const convert_tables[] = { convert_opts,
                                                        cli_policy_opts, NULL };

const struct cli_spec cli_convert_spec = {
    "convert",
    "POLICY --to FORMAT [OPTIONS]",
    "Print the Policy (validated first; JSON, YAML or INI) as canonical "
    "JSON, as INI, as the KubeSchedulerConfiguration profile kube-scheduler "
    "v1.22 builds from it, or as one half of the split deployment.",
    "POLICY",
    true,
    convert_tables,
    "Exit status: 0 converted, 1 invalid, 2 usage error.\n",
};

struct convert_args {
    const char *path, *url;
    enum target to;
    enum policy_ksc_version ver;
    struct policy_load_opts load;
};

static int convert_take(void *ctx, const char *a, const char *v)
{
    struct convert_args *c = ctx;

    if (!a) {
        c->path = v;
    } else if (!strcmp(a, "--to")) {
        if (!strcmp(v, "json"))
            c->to = TO_JSON;
        else if (!strcmp(v, "ini"))
            c->to = TO_INI;
        else if (!strcasecmp(v, "kubeschedulerconfiguration"))
            c->to = TO_KSC;
        else if (!strcmp(v, "scheduler-policy"))
            c->to = TO_SCHED_POLICY;
        else if (!strcmp(v, "extender-policy"))
            c->to = TO_EXT_POLICY;
        else {
            fprintf(stderr,
                    "convert: --to: expected json, ini, "
                    "kubeschedulerconfiguration, scheduler-policy or "
                    "extender-policy, got \"%s\"\n",
                    v);
            return -1;
        }
    } else if (!strcmp(a, "--api-version")) {
        if (!strcmp(v, "kubescheduler.config.k8s.io/v1beta2"))
            c->ver = POLICY_KSC_V1BETA2;
        else if (!strcmp(v, "kubescheduler.config.k8s.io/v1"))
            c->ver = POLICY_KSC_V1;
        else {
            fprintf(stderr,
                    "convert: --api-version: expected "
                    "kubescheduler.config.k8s.io/v1beta2 or "
                    "kubescheduler.config.k8s.io/v1, got \"%s\"\n",
                    v);
            return -1;
        }
    } else if (!strcmp(a, "--extender-url")) {
        c->url = v;
    } else if (cli_policy_take("convert", &c->load, a, v) < 0) {
        return -1;
    }
    return 0;
}

int cli_convert(int argc, char **argv)
{
    struct convert_args c = { NULL,
                              NULL,
                              TO_NONE,
                              POLICY_KSC_V1BETA2,
                              { .format = POLICY_FORMAT_AUTO,
                                .warnings = stderr } };
    enum policy_ksc_version ver;
    enum target to;
    const char *path, *url;
    struct policy *p = NULL;
    struct err e;
    int rc;
    char *text;

    rc = cli_opts_parse(&cli_convert_spec, argc, argv, convert_take, &c);
    if (rc)
        return rc == 1 ? 0 : rc;
    path = c.path;
    url = c.url;
    to = c.to;
    ver = c.ver;
    err_clear(&e);
    if (policy_load_file(path, &c.load, &p, &e)) {
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    if (to == TO_KSC) {
        rc = policy_write_ksc(stdout, p, ver, url, &e);
    } else if (to == TO_SCHED_POLICY || to == TO_EXT_POLICY) {
        rc = write_split(p, to == TO_SCHED_POLICY, url, &e);
    } else {
        text = to == TO_JSON ? policy_write_json(&p->doc, &p->arena, &e)
                             : policy_write_ini(&p->doc, &p->arena, &e);
        rc = text && fputs(text, stdout) >= 0 ? 0 : -1;
    }
    if (rc)
        fprintf(stderr, "error: %s: %s\n", path, e.msg);
    policy_free(p);
    return rc ? 1 : 0;
}
