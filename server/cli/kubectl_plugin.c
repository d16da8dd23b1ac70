/*
 * kubectl_plugin.c: the binary installed as `kubectl-policy` (a link made
 * by `make install`) follows kubectl's plugin conventions: `kubectl
 * policy explain pod/web -n shop`, `kubectl policy simulate deploy.yaml
 * --replicas 3`, `kubectl policy diff --policy new.json`. A bare word is
 * the pod (--pod); without --policy the installed Policy is used
 * (../share/kube-policy-extender/policy.json beside the binary, or
 * $KUBECTL_POLICY_FILE); a diff given one side compares the installed
 * Policy (A) with it (B).
 */
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN_NAME   "kubectl-policy"
#define INSTALLED_REL "/../share/kube-policy-extender/policy.json"

bool cli_is_kubectl_plugin(const char *argv0)
{
    const char *base = strrchr(argv0, '/');

    return !strcmp(base ? base + 1 : argv0, PLUGIN_NAME);
}

/* The options of command cmd, as its parser reads them. */
static const struct cli_spec *spec_of(const char *cmd)
{
    static const struct cli_spec *const specs[] = {
        &cli_explain_spec, &cli_simulate_spec, &cli_diff_spec,
        &cli_check_spec,   &cli_convert_spec,  &cli_list_spec,
    };
    size_t i;

    for (i = 0; cmd && i < sizeof(specs) / sizeof(specs[0]); i++)
        if (!strcmp(specs[i]->cmd, cmd))
            return specs[i];
    return NULL;
}

/* Whether argument a is option `name` ("--policy" or "--policy=..."). */
static bool is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);

    return !strncmp(a, name, n) && (!a[n] || a[n] == '=');
}

/* The installed Policy: $KUBECTL_POLICY_FILE, else beside the binary. */
static const char *installed_policy(char *buf, size_t sz)
{
    const char *env = getenv("KUBECTL_POLICY_FILE");
    char exe[PATH_MAX];
    ssize_t n;
    char *slash;

    if (env && *env)
        return env;
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    if ((size_t)snprintf(buf, sz, "%s" INSTALLED_REL, exe) >= sz)
        return NULL;
    return buf;
}

int cli_kubectl_args(int argc, char **argv, char **out, int *out_argc,
                     char *policy_buf, size_t sz)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    const struct cli_spec *spec = spec_of(cmd);
    int i, n = 0, sides = 0;
    bool has_policy = false, help = false;

    for (i = 2; i < argc; i++) {
        has_policy = has_policy || is_opt(argv[i], "--policy");
        sides += is_opt(argv[i], "--policy") || is_opt(argv[i], "--config");
        help = help || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
    }
    out[n++] = argv[0];
    out[n++] = cmd ? argv[1] : "--help";
    if (cmd && !help &&
        ((!strcmp(cmd, "diff") && sides == 1) ||
         (strcmp(cmd, "diff") && !has_policy &&
          (!strcmp(cmd, "explain") || !strcmp(cmd, "simulate"))))) {
        const char *p = installed_policy(policy_buf, sz);

        if (!p) {
            fprintf(stderr, PLUGIN_NAME ": cannot find the installed Policy; "
                                        "give --policy or set "
                                        "KUBECTL_POLICY_FILE\n");
            return 2;
        }
        out[n++] = "--policy";
        out[n++] = (char *)p;
    }
    for (i = 2; i < argc; i++) {
        if (argv[i][0] != '-') {
            out[n++] = "--pod"; /* kubectl's positional resource */
            out[n++] = argv[i];
            continue;
        }
        out[n++] = argv[i];
        if (spec && cli_opts_takes_value(spec, argv[i]) && i + 1 < argc)
            out[n++] = argv[++i];
    }
    out[n] = NULL;
    *out_argc = n;
    return 0;
}
