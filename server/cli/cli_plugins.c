/*
 * cli_plugins.c: `--plugin FILE.so` for every subcommand and `plugin =`
 * in the config file of serve and schedule: loaded once, at start, before
 * any policy is read and before any thread runs (engine/plugin_load.c).
 */
#include <stdio.h>
#include <string.h>

#include "engine/plugin_load.h"
#include "server/cli/cli.h"

int cli_load_plugins(const char *cmd, const char *const *files, size_t n)
{
    struct err e = { "" };
    size_t i;

    for (i = 0; i < n; i++) {
        if (engine_plugin_load(files[i], &e) < 0) {
            fprintf(stderr, "kube-policy-extender %s: --config: plugin %s\n",
                    cmd, e.msg);
            return 1;
        }
    }
    return 0;
}

int cli_take_plugin_flags(int *argc, char **argv)
{
    struct err e = { "" };
    const char *file;
    int i, out = 1;

    for (i = 1; i < *argc; i++) {
        const char *a = argv[i];

        a += a[0] == '-' && a[1] == '-' ? 2 : a[0] == '-' ? 1 : 0;
        if (a == argv[i] || (strcmp(a, "plugin") && strncmp(a, "plugin=", 7))) {
            argv[out++] = argv[i];
            continue;
        }
        if (a[6] == '=')
            file = a + 7;
        else if (i + 1 < *argc)
            file = argv[++i];
        else
            file = "";
        if (!*file) {
            fprintf(stderr, "kube-policy-extender: --plugin: missing value "
                            "(FILE.so)\n");
            return 2;
        }
        if (engine_plugin_load(file, &e) < 0) {
            fprintf(stderr, "kube-policy-extender: --plugin %s\n", e.msg);
            return 1;
        }
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}
