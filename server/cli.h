/*
 * cli.h: subcommands of the kube-policy-extender binary. Each takes argv
 * with argv[0] the subcommand's name and returns the process exit status
 * (0 success, 1 failure, 2 usage error).
 */
#ifndef SERVER_CLI_H
#define SERVER_CLI_H

#include <stdio.h>

typedef int cli_fn(int argc, char **argv);

struct cli_command {
    const char *name;
    cli_fn *fn;
    const char *summary;
};

cli_fn cli_serve;

/* "kube-policy-extender 0.1.0 (git abc123)" and the libraries' versions. */
void cli_print_version(FILE *f);

#endif
