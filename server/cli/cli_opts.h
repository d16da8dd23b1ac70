/*
 * cli_opts.h: one option table per command, walked by one parser, so
 * that every command reads `--name value`, `--name=value` and short
 * aliases (-o, -n) alike, and says the same thing about an unknown
 * option, a missing value or a missing required option. The same tables
 * print --help and the man page (cli_man.c).
 */
#ifndef SERVER_CLI_CLI_OPTS_H
#define SERVER_CLI_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

/* One option: a row of a command's table. */
struct cli_opt {
    const char *name;    /* "policy", given as --policy */
    char short_name;     /* 'o' for -o, or 0 */
    const char *metavar; /* "FILE"; NULL: a flag, takes no value */
    bool required;
    const char *help; /* what it does; "(default: X)" written in it */
};

/* A command: its usage text around the options its tables list. */
struct cli_spec {
    const char *cmd;        /* "explain" */
    const char *synopsis;   /* after "Usage: kube-policy-extender CMD " */
    const char *about;      /* what the command does, a paragraph */
    const char *positional; /* "POLICY" when it takes one word, else NULL */
    bool positional_required;
    /* Option tables, each ending with a row whose name is NULL; the
     * list ends with NULL. */
    const struct cli_opt *const *tables;
    const char *footer; /* exit status and notes, or NULL */
};

/* The read-only commands, each described by its tables. */
extern const struct cli_spec cli_check_spec, cli_convert_spec, cli_list_spec,
    cli_explain_spec, cli_simulate_spec, cli_diff_spec;

/* The options every command that loads a Policy takes. */
extern const struct cli_opt cli_policy_opts[];
/* --output / -o text|json. */
extern const struct cli_opt cli_output_opts[];
/* The cluster inputs of explain, simulate and diff (whatif/inputs.h). */
extern const struct cli_opt cli_inputs_opts[];

/*
 * A command's option `name` ("--policy", long form whatever was typed)
 * with its value v (NULL for a flag), or its positional word (name
 * NULL). Returns 0, or -1 after printing "CMD: why".
 */
typedef int cli_take_fn(void *ctx, const char *name, const char *v);

/*
 * Walk argv[1..argc) of command s: -h/--help prints usage and returns 1;
 * every option of s's tables goes to take. Returns 0, 1 (help) or 2 (a
 * usage error, printed as "CMD: ... (see 'kube-policy-extender CMD
 * --help')").
 */
int cli_opts_parse(const struct cli_spec *s, int argc, char **argv,
                   cli_take_fn *take, void *ctx);

/*
 * Whether argument arg is an option of s whose value is the next word
 * ("--policy", "-n"; not "--policy=x", a flag, or an unknown option).
 */
bool cli_opts_takes_value(const struct cli_spec *s, const char *arg);

/* Print "CMD: MSG (see 'kube-policy-extender CMD --help')" and return 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Write s's --help: usage, about, every option of its tables. */
void cli_opts_usage(const struct cli_spec *s, FILE *f);

/*
 * The man page kube-policy-extender(1) in roff, on f: every command (the
 * NULL-name-terminated list), every option of its tables (serve's and
 * schedule's from their own tables). `kube-policy-extender --help-man`.
 */
struct cli_command;
void cli_man(FILE *f, const struct cli_command *commands);

#endif
