/*
 * cmd_serve.c: the `serve` subcommand: parse the options (flags and --config),
 * configure logging, set up the extender application (extender_app.c) and
 * run until SIGTERM/SIGINT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"
#include "server/http/http.h"
#include "server/common/log.h"
#include "server/common/options.h"
#include "server/extender/extender_app.h"

int cli_serve(int argc, char **argv)
{
    struct srv_options o;
    struct server *s = NULL;
    struct extender_app ctx;
    struct arena a;
    struct err e = { "" };
    int rc = 1;

    srv_block_signals();
    arena_init(&a, 0);
    if (opts_parse(&o, &a, argc, argv, &e) != 0) {
        arena_destroy(&a);
        return cli_usage_error("serve", "%s", e.msg);
    }
    if (o.help) {
        opts_usage(stdout);
        arena_destroy(&a);
        return 0;
    }
    if (!o.policy_file) {
        arena_destroy(&a);
        return cli_usage_error("serve", "missing required option '--policy'");
    }
    if (cli_load_plugins("serve", o.plugin_files, o.n_plugin_files) != 0) {
        arena_destroy(&a);
        return 1;
    }
    log_configure(stderr,
                  o.log_format == OPTS_LOG_JSON ? LOG_FORMAT_JSON
                                                : LOG_FORMAT_TEXT,
                  o.verbosity);
    memset(&ctx, 0, sizeof(ctx));
    s = srv_new(&o, &e);
    if (!s || extender_app_init(&ctx, s, &e) < 0 || srv_start(s, &e) != 0)
        goto out;
    /* Only once the port is bound: a taken port is the first complaint. */
    LOG_INFO("serving policy %s over %zu cluster file(s)", o.policy_file,
             o.n_cluster_files);
    if (srv_run(s, &e) != 0)
        goto out;
    rc = 0;
out:
    if (rc)
        LOG_ERROR("%s", e.msg);
    extender_app_stop(&ctx);
    srv_free(s);
    extender_app_destroy(&ctx);
    arena_destroy(&a);
    return rc;
}
