/*
 * cmd_check.c: `kube-policy-extender check POLICY [--compat legacy]
 * [-o json] [--format json|yaml|ini] [--feature-gates LIST] [--semantics V]
 * [--scheduler-config FILE [--kube-version 1.x] [--url-prefix PATH]]`: load
 * the Policy as that kube-scheduler version would and print the effective
 * configuration, or with --scheduler-config run the wiring doctor
 * (doctor.h). Exit 0 valid, 1 invalid, 2 usage. Warnings go to stderr; the
 * configuration (or the JSON verdict) to stdout.
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_buf.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"
#include "server/cli/doctor.h"

/* The wiring doctor's options (doctor.h). */
static const struct cli_opt doctor_opts[] = {
    { "scheduler-config", 0, "FILE", false,
      "kube-scheduler's side (a Policy with extenders, or a "
      "KubeSchedulerConfiguration v1beta1..v1): whether it calls `serve "
      "--policy POLICY` correctly; 0 yes, 1 each problem named" },
    { "kube-version", 0, "1.x", false,
      "with --scheduler-config: the kube-scheduler version that reads it "
      "(default: any that can)" },
    { "url-prefix", 0, "PATH", false,
      "with --scheduler-config: serve's --url-prefix (default: none)" },
    { NULL, 0, NULL, false, NULL },
};

static const struct cli_opt *const check_tables[] = { cli_output_opts,
                                                      cli_policy_opts,
                                                      doctor_opts, NULL };

const struct cli_spec cli_check_spec = {
    "check",
    "POLICY [OPTIONS]",
    "Validate a kube-scheduler Policy (JSON, YAML or INI) as kube-scheduler "
    "does (--semantics) and print the effective configuration.",
    "POLICY",
    true,
    check_tables,
    "Exit status: 0 valid, 1 invalid, 2 usage error.\n",
};

struct check_args {
    const char *path;
    bool json;
    struct policy_load_opts load;
    struct doctor_opts doctor;
};

static int check_take(void *ctx, const char *a, const char *v)
{
    struct check_args *c = ctx;

    if (!a) {
        c->path = v;
        return 0;
    }
    if (!strcmp(a, "--output"))
        return cli_output_value("check", v, &c->json);
    if (!strcmp(a, "--scheduler-config")) {
        c->doctor.sched_path = v;
        return 0;
    }
    if (!strcmp(a, "--kube-version")) {
        c->doctor.kube_version = v;
        return 0;
    }
    if (!strcmp(a, "--url-prefix")) {
        c->doctor.url_prefix = v;
        return 0;
    }
    return cli_policy_take("check", &c->load, a, v) < 0 ? -1 : 0;
}

int cli_check(int argc, char **argv)
{
    struct check_args c = { NULL,
                            false,
                            { .format = POLICY_FORMAT_AUTO,
                              .warnings = stderr },
                            { NULL, NULL, "", NULL } };
    const char *path;
    struct policy *p = NULL;
    struct err e;
    int json, rc;

    rc = cli_opts_parse(&cli_check_spec, argc, argv, check_take, &c);
    if (rc)
        return rc == 1 ? 0 : rc;
    path = c.path;
    json = c.json;
    c.doctor.load = &c.load;
    if (!c.doctor.sched_path &&
        (c.doctor.kube_version || *c.doctor.url_prefix)) {
        fprintf(stderr, "check: --kube-version and --url-prefix go with "
                        "--scheduler-config\n");
        return 2;
    }
    if (c.doctor.sched_path && json) {
        fprintf(stderr, "check: --scheduler-config prints text only (no "
                        "--output json)\n");
        return 2;
    }
    err_clear(&e);
    if (policy_load_file(path, &c.load, &p, &e)) {
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
    if (c.doctor.sched_path)
        rc = doctor_run(stdout, p, &c.doctor);
    else
        rc = policy_print_check(stdout, p, json) ? 1 : 0;
    policy_free(p);
    return rc;
}
