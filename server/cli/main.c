/*
 * main.c: the kube-policy-extender command line. Dispatches to one
 * subcommand; `serve` is the default when the first argument is an option.
 */
#include <curl/curl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/plugin_load.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"
#include "server/common/version.h"

static const struct cli_command commands[] = {
    { "serve", cli_serve, "serve the scheduler-extender HTTP API (default)",
      NULL },
    { "check", cli_check, "validate a Policy and print what it enables",
      &cli_check_spec },
    { "convert", cli_convert,
      "convert a Policy (JSON, YAML, INI, KubeSchedulerConfiguration)",
      &cli_convert_spec },
    { "explain", cli_explain,
      "show how a Policy filters and scores one pod on a cluster",
      &cli_explain_spec },
    { "simulate", cli_simulate,
      "place pods in order as the scheduler would (capacity, what-if)",
      &cli_simulate_spec },
    { "diff", cli_diff,
      "compare where pods land under two Policies (or a Policy and a "
      "KubeSchedulerConfiguration)",
      &cli_diff_spec },
    { "list", cli_list, "list every predicate and priority a Policy may name",
      &cli_list_spec },
    { "schedule", cli_schedule,
      "schedule pending pods with a Policy and bind them (a scheduler)", NULL },
    { NULL, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
    const struct cli_command *c;

    fprintf(f, "Usage: kube-policy-extender [COMMAND] [OPTIONS]\n\n"
               "Serve a legacy kube-scheduler Policy (predicates and "
               "weighted priorities)\nas a scheduler extender.\n\n"
               "Commands:\n");
    for (c = commands; c->name; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\nRun `kube-policy-extender COMMAND --help` for a command's "
               "options.\n"
               "  -h, --help     show this help\n"
               "  -V, --version  show the version\n"
               "  --help-man     print the manual page kube-policy-extender(1) "
               "(roff)\n"
               "  --plugin FILE.so\n"
               "                 load predicates and priorities from a plugin "
               "(any command,\n"
               "                 repeatable; at start only: SIGHUP reloads the "
               "policy, not plugins)\n");
}

static int run(int argc, char **argv);

/* As `kubectl policy ...` (kubectl_plugin.c). */
static int run_kubectl(int argc, char **argv)
{
    char **args = calloc((size_t)argc * 2 + 4, sizeof(*args));
    char policy[4096];
    int n = 0, rc;

    if (!args) {
        fprintf(stderr, "kubectl-policy: out of memory\n");
        return 1;
    }
    rc = cli_kubectl_args(argc, argv, args, &n, policy, sizeof(policy));
    if (rc == 0)
        rc = run(n, args);
    free(args);
    return rc;
}

int main(int argc, char **argv)
{
    int rc;

    /* Once, before any thread: libcurl (the API client) needs it. */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    /*
     * Request-sized buffers (a 1,000-node body is 10 MB, its parse more)
     * come and go with every request. Serve them from the heap and keep
     * freed memory there, rather than mmap'ing fresh zeroed pages (and
     * faulting them in) each time: glibc's own threshold only rises after
     * such a chunk is freed, so without this the speed of a server would
     * depend on what it happened to allocate while loading.
     */
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    /*
     * One malloc arena for every thread. A big request's body is copied on
     * its worker's thread and parsed on an offload thread: with an arena
     * per thread its pieces and their free space were split across two,
     * which kept more memory resident (6.9 x the body instead of 5.8, and
     * 311 MB against the shipped 256Mi limit under a stream of 16 MiB
     * bodies) and had pages faulted in again for each request (a
     * 1,000-node full-object filter took 135 ms instead of 80).
     */
    mallopt(M_ARENA_MAX, 1);
    rc = cli_take_plugin_flags(&argc, argv);
    if (rc == 0 && argc > 0 && cli_is_kubectl_plugin(argv[0]))
        rc = run_kubectl(argc, argv);
    else if (rc == 0)
        rc = run(argc, argv);
    engine_plugins_unload();
    return rc;
}

static int run(int argc, char **argv)
{
    const struct cli_command *c;

    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 &&
            (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
            usage(stdout);
            return 0;
        }
        if (argc >= 2 && !strcmp(argv[1], "--help-man")) {
            cli_man(stdout, commands);
            return 0;
        }
        if (argc >= 2 &&
            (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
            kpe_print_version(stdout);
            return 0;
        }
        return cli_serve(argc, argv);
    }
    if (!strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "version")) {
        kpe_print_version(stdout);
        return 0;
    }
    for (c = commands; c->name; c++) {
        if (!strcmp(argv[1], c->name))
            return c->fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "kube-policy-extender: unknown command \"%s\"\n\n",
            argv[1]);
    usage(stderr);
    return 2;
}
