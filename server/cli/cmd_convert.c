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

static void convert_usage(FILE *f)
{
    fprintf(f,
            "Usage: kube-policy-extender convert POLICY --to "
            "json|ini|kubeschedulerconfiguration|scheduler-policy|"
            "extender-policy\n"
            "         [--api-version kubescheduler.config.k8s.io/v1beta2|"
            "kubescheduler.config.k8s.io/v1]\n"
            "         [--extender-url URL] [--compat legacy] "
            "[--format json|yaml|ini]\n"
            "         [--semantics 1.20|1.21|1.22]\n\n"
            "Print the Policy as canonical JSON, as INI, or as the "
            "KubeSchedulerConfiguration\nprofile kube-scheduler v1.22 builds "
            "from it (default API version v1beta2;\nthe extender URL "
            "defaults to http://127.0.0.1:8888).\n\n"
            "The split deployment for kube-scheduler v1.13-v1.22 "
            "(--policy-config-file):\n"
            "  scheduler-policy  kube-scheduler's Policy: every predicate "
            "and priority it has\n"
            "                    in-tree, and an extenders entry calling "
            "this server for the rest\n"
            "                    (weight = the sum of their weights)\n"
            "  extender-policy   this server's Policy: only what "
            "kube-scheduler lacks\n");
}

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

int cli_convert(int argc, char **argv)
{
    struct policy_load_opts o = { .format = POLICY_FORMAT_AUTO,
                                  .warnings = stderr };
    enum policy_ksc_version ver = POLICY_KSC_V1BETA2;
    enum target to = TO_NONE;
    const char *path = NULL, *url = NULL;
    struct policy *p = NULL;
    struct err e;
    int i, rc = 0;
    char *text;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            convert_usage(stdout);
            return 0;
        }
        if (a[0] != '-' || !a[1]) {
            if (path) {
                fprintf(stderr, "convert: one POLICY file, got \"%s\" too\n",
                        a);
                return 2;
            }
            path = a;
            continue;
        }
        v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            fprintf(stderr, "convert: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--to")) {
            if (!strcmp(v, "json"))
                to = TO_JSON;
            else if (!strcmp(v, "ini"))
                to = TO_INI;
            else if (!strcasecmp(v, "kubeschedulerconfiguration"))
                to = TO_KSC;
            else if (!strcmp(v, "scheduler-policy"))
                to = TO_SCHED_POLICY;
            else if (!strcmp(v, "extender-policy"))
                to = TO_EXT_POLICY;
            else {
                fprintf(stderr,
                        "convert: --to: expected json, ini, "
                        "kubeschedulerconfiguration, scheduler-policy or "
                        "extender-policy, got \"%s\"\n",
                        v);
                return 2;
            }
        } else if (!strcmp(a, "--api-version")) {
            if (!strcmp(v, "kubescheduler.config.k8s.io/v1beta2"))
                ver = POLICY_KSC_V1BETA2;
            else if (!strcmp(v, "kubescheduler.config.k8s.io/v1"))
                ver = POLICY_KSC_V1;
            else {
                fprintf(stderr,
                        "convert: --api-version: expected "
                        "kubescheduler.config.k8s.io/v1beta2 or "
                        "kubescheduler.config.k8s.io/v1, got \"%s\"\n",
                        v);
                return 2;
            }
        } else if (!strcmp(a, "--extender-url")) {
            url = v;
        } else if ((rc = cli_policy_option(a, v, &o, &e)) != 0) {
            if (rc > 0)
                fprintf(stderr, "convert: unknown option %s\n", a);
            else
                fprintf(stderr, "convert: %s\n", e.msg);
            convert_usage(stderr);
            return 2;
        }
    }
    if (!path || to == TO_NONE) {
        fprintf(stderr, "convert: %s\n",
                path ? "--to is required" : "a POLICY file is required");
        convert_usage(stderr);
        return 2;
    }
    err_clear(&e);
    if (policy_load_file(path, &o, &p, &e)) {
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
