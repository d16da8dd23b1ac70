/*
 * cmd_check.c: `kube-policy-extender check POLICY [--compat legacy]
 * [--output json] [--format json|yaml|ini]`: load the Policy as v1.22 would and
 * print the effective configuration. Exit 0 valid, 1 invalid, 2 usage.
 * Warnings go to stderr; the configuration (or the JSON verdict) to stdout.
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_buf.h"
#include "server/cli/cli.h"
#include "server/cli/doctor.h"

static void check_usage(FILE *f)
{
    fprintf(f, "Usage: kube-policy-extender check POLICY [--compat legacy] "
               "[--output text|json] [--format json|yaml|ini]\n"
               "           [--semantics 1.20|1.21|1.22]\n"
               "       [--scheduler-config FILE [--kube-version 1.x] "
               "[--url-prefix PATH]]\n\n"
               "Validate a kube-scheduler Policy (JSON, YAML or INI) as v1.22 "
               "does and print the\neffective configuration. Exit status: 0 "
               "valid, 1 invalid, 2 usage error.\n"
               "With --scheduler-config (kube-scheduler's Policy with "
               "extenders, or its\nKubeSchedulerConfiguration v1beta1..v1): "
               "whether that kube-scheduler calls\n`serve --policy POLICY "
               "[--url-prefix PATH]` correctly; 0 yes, 1 each problem "
               "named.\n");
}

int cli_policy_option(const char *opt, const char *val,
                      struct policy_load_opts *o, struct err *e)
{
    char q[64];

    if (!strcmp(opt, "--semantics"))
        return kpe_semantics_parse(opt, val, &o->semantics, e);
    if (!strcmp(opt, "--compat")) {
        if (!strcmp(val, "legacy"))
            o->compat |= POLICY_COMPAT_LEGACY;
        else if (strcmp(val, "none"))
            return err_set(e, "%s: invalid value %s: expected none or legacy",
                           opt, err_quote(q, sizeof(q), val, 40));
        return 0;
    }
    if (!strcmp(opt, "--format")) {
        if (!strcmp(val, "json"))
            o->format = POLICY_FORMAT_JSON;
        else if (!strcmp(val, "ini"))
            o->format = POLICY_FORMAT_INI;
        else if (!strcmp(val, "yaml"))
            o->format = POLICY_FORMAT_YAML;
        else
            return err_set(e,
                           "%s: invalid value %s: expected json, yaml or ini",
                           opt, err_quote(q, sizeof(q), val, 40));
        return 0;
    }
    return 1;
}

int cli_check(int argc, char **argv)
{
    struct policy_load_opts o = { .format = POLICY_FORMAT_AUTO,
                                  .warnings = stderr };
    const char *path = NULL;
    struct policy *p = NULL;
    struct doctor_opts d = { NULL, NULL, "", &o };
    struct err e;
    int json = 0, i, rc;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            check_usage(stdout);
            return 0;
        }
        if (a[0] == '-' && a[1]) {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;

            if (!v) {
                fprintf(stderr, "check: %s needs a value\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--output")) {
                if (!strcmp(v, "json"))
                    json = 1;
                else if (strcmp(v, "text")) {
                    fprintf(stderr,
                            "check: --output: expected text or json, "
                            "got \"%s\"\n",
                            v);
                    return 2;
                }
                continue;
            }
            /* The wiring doctor (doctor.h). */
            if (!strcmp(a, "--scheduler-config")) {
                d.sched_path = v;
                continue;
            }
            if (!strcmp(a, "--kube-version")) {
                d.kube_version = v;
                continue;
            }
            if (!strcmp(a, "--url-prefix")) {
                d.url_prefix = v;
                continue;
            }
            rc = cli_policy_option(a, v, &o, &e);
            if (rc) {
                if (rc > 0)
                    fprintf(stderr, "check: unknown option %s\n", a);
                else
                    fprintf(stderr, "check: %s\n", e.msg);
                check_usage(stderr);
                return 2;
            }
            continue;
        }
        if (path) {
            fprintf(stderr, "check: one POLICY file, got \"%s\" too\n", a);
            return 2;
        }
        path = a;
    }
    if (!path) {
        check_usage(stderr);
        return 2;
    }
    if (!d.sched_path && (d.kube_version || *d.url_prefix)) {
        fprintf(stderr, "check: --kube-version and --url-prefix go with "
                        "--scheduler-config\n");
        return 2;
    }
    if (d.sched_path && json) {
        fprintf(stderr, "check: --scheduler-config prints text only (no "
                        "--output json)\n");
        return 2;
    }
    err_clear(&e);
    if (policy_load_file(path, &o, &p, &e)) {
        if (json) {
            struct strbuf b;

            strbuf_init(&b, PBUF_MAX);
            strbuf_add(&b, "{\n  \"source\": ");
            quote_json(&b, path);
            strbuf_add(&b, ",\n  \"valid\": false,\n  \"error\": ");
            quote_json(&b, e.msg);
            strbuf_add(&b, "\n}\n");
            if (b.s)
                fputs(b.s, stdout);
            strbuf_free(&b);
        }
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    if (d.sched_path)
        rc = doctor_run(stdout, p, &d);
    else
        rc = policy_print_check(stdout, p, json) ? 1 : 0;
    policy_free(p);
    return rc;
}
