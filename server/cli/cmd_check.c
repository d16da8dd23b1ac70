/*
 * cmd_check.c: `kube-policy-extender check POLICY [--compat legacy]
 * [-o json] [--format json|yaml|ini] [--feature-gates LIST]`: load the Policy
 * as v1.22 would and print the effective configuration. Exit 0 valid, 1
 * invalid, 2 usage. Warnings go to stderr; the configuration (or the JSON
 * verdict) to stdout.
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_buf.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"

static const struct cli_opt *const check_tables[] = { cli_output_opts,
                                                      cli_policy_opts, NULL };

const struct cli_spec cli_check_spec = {
    "check",
    "POLICY [OPTIONS]",
    "Validate a kube-scheduler Policy (JSON, YAML or INI) as v1.22 does and "
    "print the effective configuration.",
    "POLICY",
    true,
    check_tables,
    "Exit status: 0 valid, 1 invalid, 2 usage error.\n",
};

struct check_args {
    const char *path;
    bool json;
    struct policy_load_opts load;
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
    return cli_policy_take("check", &c->load, a, v) < 0 ? -1 : 0;
}

int cli_check(int argc, char **argv)
{
    struct check_args c = {
        NULL, false, { .format = POLICY_FORMAT_AUTO, .warnings = stderr }
    };
    const char *path;
    struct policy *p = NULL;
    struct err e;
    int json, rc;

    rc = cli_opts_parse(&cli_check_spec, argc, argv, check_take, &c);
    if (rc)
        return rc == 1 ? 0 : rc;
    path = c.path;
    json = c.json;
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
    rc = policy_print_check(stdout, p, json) ? 1 : 0;
    policy_free(p);
    return rc;
}
