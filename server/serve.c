/*
 * serve.c: the `serve` subcommand: parse the options (flags and --config),
 * configure logging, start the HTTP server and run until SIGTERM/SIGINT.
 * Loading the policy and the cluster, registering the extender verbs and
 * marking the server ready are wired in here by the extender work.
 */
#include <stdio.h>

#include "server/cli.h"
#include "server/http.h"
#include "server/log.h"
#include "server/options.h"

int cli_serve(int argc, char **argv)
{
    struct srv_options o;
    struct server *s = NULL;
    struct arena a;
    struct err e = { "" };
    int rc = 1;

    arena_init(&a, 0);
    if (opts_parse(&o, &a, argc, argv, &e) != 0) {
        fprintf(stderr, "kube-policy-extender serve: %s\n", e.msg);
        fprintf(stderr, "Run `kube-policy-extender serve --help` for the "
                        "options.\n");
        arena_destroy(&a);
        return 2;
    }
    if (o.help) {
        opts_usage(stdout);
        arena_destroy(&a);
        return 0;
    }
    log_configure(stderr,
                  o.log_format == OPTS_LOG_JSON ? LOG_FORMAT_JSON
                                                : LOG_FORMAT_TEXT,
                  o.verbosity);
    s = srv_new(&o, &e);
    if (!s)
        goto out;
    /* Not ready until the policy and the cluster are loaded. */
    srv_set_ready(s, 0, "policy and cluster not loaded");
    if (srv_start(s, &e) != 0 || srv_run(s, &e) != 0)
        goto out;
    rc = 0;
out:
    if (rc)
        LOG_ERROR("%s", e.msg);
    srv_free(s);
    arena_destroy(&a);
    return rc;
}
