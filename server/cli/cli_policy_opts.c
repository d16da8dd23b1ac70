/*
 * cli_policy_opts.c: the values of the options several commands share:
 * how to load a Policy (--compat, --format, --semantics, --feature-gates) and
 * --output text|json.
 */
#include <stdio.h>
#include <string.h>

#include "engine/feature_gates.h"
#include "framework/semantics.h"
#include "policy/policy.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"

const struct cli_opt cli_output_opts[] = {
    { "output", 'o', "FORMAT", false, "text (default) or json" },
    { NULL, 0, NULL, false, NULL },
};

/* --compat / --format: 0 ok, -1 bad value, 1 not one of them. */
static int policy_option(const char *opt, const char *val,
                         struct policy_load_opts *o)
{
    if (!strcmp(opt, "--compat")) {
        if (!strcmp(val, "legacy"))
            o->compat |= POLICY_COMPAT_LEGACY;
        else if (strcmp(val, "none"))
            return -1;
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
            return -1;
        return 0;
    }
    return 1;
}

int cli_policy_take(const char *cmd, struct policy_load_opts *o,
                    const char *opt, const char *val)
{
    struct err e;
    int rc;

    if (!strcmp(opt, "--semantics")) {
        if (kpe_semantics_parse(opt, val, &o->semantics, &e) < 0) {
            fprintf(stderr, "%s: %s\n", cmd, e.msg);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "--feature-gates")) {
        if (feature_gates_apply(val, &o->gates, &e) < 0) {
            fprintf(stderr, "%s: %s\n", cmd, e.msg);
            return -1;
        }
        return 1;
    }
    rc = policy_option(opt, val, o);
    if (rc < 0) {
        fprintf(
            stderr, "%s: %s: invalid value \"%s\" (want %s)\n", cmd, opt, val,
            !strcmp(opt, "--compat") ? "none or legacy" : "json, yaml or ini");
        return -1;
    }
    return rc == 0;
}

int cli_output_value(const char *cmd, const char *v, bool *json)
{
    if (strcmp(v, "json") && strcmp(v, "text")) {
        fprintf(stderr, "%s: --output: expected text or json, got \"%s\"\n",
                cmd, v);
        return -1;
    }
    *json = !strcmp(v, "json");
    return 0;
}
