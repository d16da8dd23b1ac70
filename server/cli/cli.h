/*
 * cli.h: subcommands of the kube-policy-extender binary. Each takes argv
 * with argv[0] the subcommand's name and returns the process exit status
 * (0 success, 1 failure, 2 usage error).
 */
#ifndef SERVER_CLI_CLI_H
#define SERVER_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef int cli_fn(int argc, char **argv);

struct cli_spec;
struct cli_command {
    const char *name;
    cli_fn *fn;
    const char *summary;
    /* its options (cli_opts.h); NULL for serve and schedule, whose
     * tables are their own (options.c, cmd_schedule.c) */
    const struct cli_spec *spec;
};

cli_fn cli_serve;
/* `check POLICY`: validate and print the effective configuration. */
cli_fn cli_check;
/* `convert POLICY --to FORMAT`: JSON, INI or KubeSchedulerConfiguration. */
cli_fn cli_convert;

/* `explain --policy P --cluster C --pod POD`: the what-if tool. */
cli_fn cli_explain;

/* `simulate --policy P --pod POD [--replicas N | --until-unschedulable]`. */
cli_fn cli_simulate;

/* `diff --policy A (--policy B | --config KSC)`: exit 1 on a difference. */
cli_fn cli_diff;

/* `list [--output json]`: the registries, as a Policy reference. */
cli_fn cli_list;

/* `schedule --scheduler-name N --policy P`: a standalone scheduler. */
cli_fn cli_schedule;

/* Row i of schedule's own option table (its other options are serve's):
 * 0, or -1 past the last. */
struct opts_doc;
int cli_schedule_doc_row(size_t i, struct opts_doc *d);

struct policy_load_opts;

/*
 * A Policy load option (a row of cli_policy_opts: --compat, --format,
 * --semantics, --feature-gates) of command cmd: 1 taken, 0 not one of them, -1
 * a bad value (printed as "CMD: ...").
 */
int cli_policy_take(const char *cmd, struct policy_load_opts *o,
                    const char *opt, const char *val);

/* --output's value v: text or json into *json; -1 (printed) otherwise. */
int cli_output_value(const char *cmd, const char *v, bool *json);

/*
 * Load the plugins a config file names (`plugin = FILE.so`, after the
 * --plugin flags main() loaded). Returns 0, or 1 after printing
 * "kube-policy-extender CMD: --config: plugin PATH: why" to stderr.
 */
int cli_load_plugins(const char *cmd, const char *const *files, size_t n);

/*
 * Take every `--plugin FILE` and `--plugin=FILE` out of argv (any
 * subcommand: main() reads them before it dispatches) and load them, in
 * order. Returns 0, 2 when a value is missing, 1 when a plugin is refused
 * ("kube-policy-extender: --plugin PATH: why" printed to stderr).
 */
int cli_take_plugin_flags(int *argc, char **argv);

/* Whether the binary runs as kubectl's plugin `kubectl-policy`. */
bool cli_is_kubectl_plugin(const char *argv0);

/*
 * argv of `kubectl policy CMD ARGS...` in this binary's terms, into out
 * (room for 2 * argc + 3): bare words become --pod, the installed Policy
 * (into policy_buf[sz]) is added when none is given. 0, or 2 when a
 * Policy is needed and cannot be found (printed).
 */
int cli_kubectl_args(int argc, char **argv, char **out, int *out_argc,
                     char *policy_buf, size_t sz);

#endif
