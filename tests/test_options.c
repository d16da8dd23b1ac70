/*
 * test_options.c: `serve` flags and the INI file, as a table of argv to
 * either a check on the parsed options or an exact error message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/common/options.h"

/* Error rows leave the trailing field/want columns out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define MAX_ARGS 12

struct opt_case {
    const char *name;
    const char *argv[MAX_ARGS]; /* after "serve", NULL-terminated */
    const char *want_err;       /* NULL: parsing succeeds */
    const char *field;          /* which field to check (see check()) */
    const char *want;           /* its expected value, as text */
};

/* The field's value as text, so one table column can hold every type. */
static void field_text(const struct srv_options *o, const char *field,
                       char *buf, size_t n)
{
    size_t i;

    if (!strcmp(field, "listen"))
        snprintf(buf, n, "%s|%s|%d", o->listen, o->listen_host, o->listen_port);
    else if (!strcmp(field, "url_prefix"))
        snprintf(buf, n, "%s", o->url_prefix);
    else if (!strcmp(field, "workers"))
        snprintf(buf, n, "%d", o->workers);
    else if (!strcmp(field, "verbosity"))
        snprintf(buf, n, "%d", o->verbosity);
    else if (!strcmp(field, "max_body_bytes"))
        snprintf(buf, n, "%lld", o->max_body_bytes);
    else if (!strcmp(field, "max_inflight_bytes"))
        snprintf(buf, n, "%lld", o->max_inflight_bytes);
    else if (!strcmp(field, "timeouts"))
        snprintf(buf, n, "%d|%d|%d", o->read_timeout, o->idle_timeout,
                 o->shutdown_grace);
    else if (!strcmp(field, "enums"))
        snprintf(buf, n, "%d|%d|%d", o->compat, o->score_scale, o->log_format);
    else if (!strcmp(field, "files"))
        snprintf(buf, n, "%s|%s|%s", o->policy_file ? o->policy_file : "-",
                 o->kubeconfig ? o->kubeconfig : "-",
                 o->master ? o->master : "-");
    else if (!strcmp(field, "tls"))
        snprintf(buf, n, "%s|%s|%s", o->tls_cert_file ? o->tls_cert_file : "-",
                 o->tls_key_file ? o->tls_key_file : "-",
                 o->tls_client_ca_file ? o->tls_client_ca_file : "-");
    else if (!strcmp(field, "semantics"))
        snprintf(buf, n, "%d", o->semantics);
    else if (!strcmp(field, "help"))
        snprintf(buf, n, "%d", o->help);
    else if (!strcmp(field, "clusters")) {
        buf[0] = '\0';
        for (i = 0; i < o->n_cluster_files; i++) {
            strncat(buf, i ? "|" : "", n - strlen(buf) - 1);
            strncat(buf, o->cluster_files[i], n - strlen(buf) - 1);
        }
    } else
        fail_msg("unknown field %s", field);
}

static void run_cases(const struct opt_case *cases, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const struct opt_case *c = &cases[i];
        char *argv[MAX_ARGS + 1];
        struct srv_options o;
        struct arena a;
        struct err e = { "" };
        char got[512];
        int argc = 0, rc;

        argv[argc++] = "serve";
        while (c->argv[argc - 1])
            argv[argc] = (char *)c->argv[argc - 1], argc++;
        argv[argc] = NULL;
        arena_init(&a, 0);
        rc = opts_parse(&o, &a, argc, argv, &e);
        if (c->want_err) {
            if (rc != -1 || strcmp(e.msg, c->want_err))
                fail_msg("%s: got rc %d \"%s\", want error \"%s\"", c->name, rc,
                         e.msg, c->want_err);
        } else {
            if (rc != 0)
                fail_msg("%s: unexpected error \"%s\"", c->name, e.msg);
            field_text(&o, c->field, got, sizeof(got));
            if (strcmp(got, c->want))
                fail_msg("%s: %s is \"%s\", want \"%s\"", c->name, c->field,
                         got, c->want);
        }
        arena_destroy(&a);
    }
}

#define N(t) (sizeof(t) / sizeof((t)[0]))

static void flags_should_parse_into_options(void **state)
{
    static const struct opt_case cases[] = {
        { "default listen",
          { NULL },
          NULL,
          "listen",
          "127.0.0.1:8888|127.0.0.1|8888" },
        { "default workers mean auto", { NULL }, NULL, "workers", "0" },
        /* issue 25: --semantics, default 1.22 */
        { "default semantics is 1.22", { NULL }, NULL, "semantics", "2" },
        { "--semantics 1.20",
          { "--semantics", "1.20", NULL },
          NULL,
          "semantics",
          "0" },
        { "--semantics=1.21",
          { "--semantics=1.21", NULL },
          NULL,
          "semantics",
          "1" },
        { "default body limit is 16 MiB (fits the shipped 256Mi)",
          { NULL },
          NULL,
          "max_body_bytes",
          "16777216" },
        { "default memory in flight is 128 MiB",
          { NULL },
          NULL,
          "max_inflight_bytes",
          "134217728" },
        { "--max-inflight-bytes takes a size",
          { "--max-inflight-bytes", "64Mi", NULL },
          NULL,
          "max_inflight_bytes",
          "67108864" },
        { "default timeouts", { NULL }, NULL, "timeouts", "30|120|10" },
        { "default enums", { NULL }, NULL, "enums", "0|2|0" },
        { "default prefix is empty", { NULL }, NULL, "url_prefix", "" },
        { "ipv6 listen",
          { "--listen", "[::1]:9000", NULL },
          NULL,
          "listen",
          "[::1]:9000|::1|9000" },
        { "every address",
          { "--listen=:7000", NULL },
          NULL,
          "listen",
          ":7000||7000" },
        { "ephemeral port",
          { "--listen", "localhost:0", NULL },
          NULL,
          "listen",
          "localhost:0|localhost|0" },
        { "prefix trailing slash",
          { "--url-prefix", "/scheduler/", NULL },
          NULL,
          "url_prefix",
          "/scheduler" },
        { "prefix root", { "--url-prefix=/", NULL }, NULL, "url_prefix", "" },
        { "workers", { "--workers", "4", NULL }, NULL, "workers", "4" },
        { "-v N", { "-v", "3", NULL }, NULL, "verbosity", "3" },
        { "--v=N", { "--v=4", NULL }, NULL, "verbosity", "4" },
        { "-v=N", { "-v=5", NULL }, NULL, "verbosity", "5" },
        { "body Mi",
          { "--max-body-bytes", "1Mi", NULL },
          NULL,
          "max_body_bytes",
          "1048576" },
        { "body plain",
          { "--max-body-bytes", "2048", NULL },
          NULL,
          "max_body_bytes",
          "2048" },
        { "timeouts with s",
          { "--read-timeout", "5s", "--idle-timeout", "7", "--shutdown-grace",
            "0", NULL },
          NULL,
          "timeouts",
          "5|7|0" },
        { "enums",
          { "--compat", "legacy", "--score-scale", "raw", "--log-format",
            "json", NULL },
          NULL,
          "enums",
          "1|1|1" },
        { "files",
          { "--policy", "p.json", "--kubeconfig", "k", "--master",
            "https://10.0.0.1:6443", NULL },
          NULL,
          "files",
          "p.json|k|https://10.0.0.1:6443" },
        { "repeated cluster",
          { "--cluster", "a.json", "--cluster=b.json", NULL },
          NULL,
          "clusters",
          "a.json|b.json" },
        { "tls",
          { "--tls-cert-file", "c", "--tls-key-file", "k",
            "--tls-client-ca-file", "ca", NULL },
          NULL,
          "tls",
          "c|k|ca" },
        { "help", { "--help", NULL }, NULL, "help", "1" },
        { "-h", { "-h", NULL }, NULL, "help", "1" },
        { "later flag wins",
          { "--workers", "2", "--workers", "3", NULL },
          NULL,
          "workers",
          "3" },
    };

    (void)state;
    run_cases(cases, N(cases));
}

static void bad_flags_should_name_the_flag_and_value(void **state)
{
    static const struct opt_case cases[] = {
        { "unknown flag", { "--bogus", NULL }, "unknown option '--bogus'" },
        { "positional", { "extra", NULL }, "unexpected argument \"extra\"" },
        { "missing value",
          { "--policy", NULL },
          "option '--policy' needs a value (FILE)" },
        { "workers not a number",
          { "--workers", "abc", NULL },
          "--workers: invalid value \"abc\": want an integer from 1 to "
          "1024" },
        { "workers zero",
          { "--workers=0", NULL },
          "--workers: invalid value \"0\": want an integer from 1 to 1024" },
        { "negative verbosity",
          { "-v", "-1", NULL },
          "--v: invalid value \"-1\": want an integer from 0 to 10" },
        { "ipv6 without brackets",
          { "--listen", "::1:80", NULL },
          "--listen: invalid value \"::1:80\": want HOST:PORT; write IPv6 "
          "addresses in brackets, [::1]:8888" },
        { "no port",
          { "--listen", "localhost", NULL },
          "--listen: invalid value \"localhost\": want HOST:PORT" },
        { "port too big",
          { "--listen", "h:65536", NULL },
          "--listen: invalid value \"h:65536\": want a port from 0 to "
          "65535" },
        { "relative prefix",
          { "--url-prefix", "scheduler", NULL },
          "--url-prefix: invalid value \"scheduler\": want a path starting "
          "with '/'" },
        { "prefix with query",
          { "--url-prefix", "/a?b", NULL },
          "--url-prefix: invalid value \"/a?b\": want a plain path without "
          "'?', '#', '%' or spaces" },
        { "log format",
          { "--log-format", "xml", NULL },
          "--log-format: invalid value \"xml\": want one of text, json" },
        { "score scale",
          { "--score-scale", "Raw", NULL },
          "--score-scale: invalid value \"Raw\": want one of scaled, raw, "
          "auto, "
          "rank" },
        { "semantics",
          { "--semantics", "1.19", NULL },
          "--semantics: invalid value \"1.19\": want one of 1.20, 1.21, "
          "1.22" },
        { "compat",
          { "--compat=v1.19", NULL },
          "--compat: invalid value \"v1.19\": want one of none, legacy" },
        { "body suffix",
          { "--max-body-bytes", "10X", NULL },
          "--max-body-bytes: invalid value \"10X\": want bytes from 1024 to "
          "17179869184, optionally with a Ki, Mi or Gi suffix" },
        { "timeout zero",
          { "--read-timeout", "0", NULL },
          "--read-timeout: invalid value \"0\": want an integer from 1 to "
          "86400 (seconds)" },
        { "master scheme",
          { "--master", "10.0.0.1:6443", NULL },
          "--master: invalid value \"10.0.0.1:6443\": want an http:// or "
          "https:// URL" },
        { "cert without key",
          { "--tls-cert-file", "c", NULL },
          "--tls-cert-file and --tls-key-file go together (only one was "
          "given)" },
        { "client ca without cert",
          { "--tls-client-ca-file", "ca", NULL },
          "--tls-client-ca-file needs --tls-cert-file and --tls-key-file" },
        { "help with value", { "--help=1", NULL }, "--help takes no value" },
        { "missing config",
          { "--config", "/nonexistent/kpe.ini", NULL },
          "/nonexistent/kpe.ini: cannot open: No such file or directory" },
    };

    (void)state;
    run_cases(cases, N(cases));
}

/* Write text to a fresh temporary INI file; returns its path. */
static const char *ini_file(char *path, const char *text)
{
    FILE *f;
    int fd;

    snprintf(path, 64, "/tmp/kpe-opts-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

struct ini_case {
    const char *name;
    const char *text;           /* file contents */
    const char *argv[MAX_ARGS]; /* flags besides --config */
    const char *want_err;       /* with "FILE" standing for the path */
    const char *field;
    const char *want;
};

static void ini_file_should_apply_under_the_flags(void **state)
{
    static const char long_line[] =
        "policy = /"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "\n";
    static const struct ini_case cases[] = {
        { "file values",
          "listen = [::1]:9999\nworkers = 3\n",
          { NULL },
          NULL,
          "listen",
          "[::1]:9999|::1|9999" },
        { "flag beats file",
          "workers = 3\n",
          { "--workers", "5", NULL },
          NULL,
          "workers",
          "5" },
        { "serve section and comments",
          "; options\n[serve]\nv = 2 ; inline\n",
          { NULL },
          NULL,
          "verbosity",
          "2" },
        { "semantics from the file",
          "semantics = 1.20\n",
          { NULL },
          NULL,
          "semantics",
          "0" },
        { "bad semantics in the file",
          "semantics = 1.3\n",
          { NULL },
          "FILE:1: semantics: invalid value \"1.3\": want one of 1.20, 1.21, "
          "1.22" },
        { "clusters from file",
          "cluster = a.json\ncluster = b.json\n",
          { NULL },
          NULL,
          "clusters",
          "a.json|b.json" },
        { "cluster flags replace the file's list",
          "cluster = a.json\ncluster = b.json\n",
          { "--cluster", "c.json", NULL },
          NULL,
          "clusters",
          "c.json" },
        { "bad value names file and line",
          "listen = :1\n\nworkers = x\n",
          { NULL },
          "FILE:3: workers: invalid value \"x\": want an integer from 1 to "
          "1024" },
        { "unknown key",
          "bogus = 1\n",
          { NULL },
          "FILE:1: unknown key \"bogus\"" },
        { "config is not a key",
          "config = other.ini\n",
          { NULL },
          "FILE:1: unknown key \"config\"" },
        { "unknown section",
          "[server]\nworkers = 2\n",
          { NULL },
          "FILE:2: unknown section \"server\" (want [serve] or none)" },
        { "syntax error",
          "workers\n",
          { NULL },
          "FILE:1: syntax error (want key = value)" },
        { "line too long for inih",
          long_line,
          { NULL },
          "FILE:1: line longer than 198 bytes" },
        { "bad flag still wins over a good file",
          "workers = 2\n",
          { "--workers", "0", NULL },
          "--workers: invalid value \"0\": want an integer from 1 to 1024" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < N(cases); i++) {
        const struct ini_case *c = &cases[i];
        struct opt_case oc = { c->name, { NULL }, NULL, c->field, c->want };
        char path[64], want_err[512] = "";
        const char *at;
        size_t k = 0, j;

        oc.argv[k++] = "--config";
        oc.argv[k++] = ini_file(path, c->text);
        for (j = 0; c->argv[j] && k < MAX_ARGS - 1; j++)
            oc.argv[k++] = c->argv[j];
        oc.argv[k] = NULL;
        if (c->want_err) {
            at = strstr(c->want_err, "FILE");
            if (at)
                snprintf(want_err, sizeof(want_err), "%.*s%s%s",
                         (int)(at - c->want_err), c->want_err, path, at + 4);
            else
                snprintf(want_err, sizeof(want_err), "%s", c->want_err);
            oc.want_err = want_err;
        }
        run_cases(&oc, 1);
        unlink(path);
    }
}

static void usage_should_document_every_option_with_its_default(void **state)
{
    static const char *const flags[] = {
        "--listen HOST:PORT",
        "--policy FILE",
        "--cluster FILE",
        "--kubeconfig FILE",
        "--master URL",
        "--url-prefix PATH",
        "--workers N",
        "--compat MODE",
        "--tls-cert-file FILE",
        "--tls-key-file FILE",
        "--tls-client-ca-file FILE",
        "--max-body-bytes BYTES",
        "--max-inflight-bytes BYTES",
        "--max-connections N",
        "--read-timeout SECONDS",
        "--idle-timeout SECONDS",
        "--log-format FORMAT",
        "--v N",
        "--score-scale MODE",
        "--config FILE",
        "-h, --help",
    };
    char *text = NULL;
    size_t len = 0, i;
    FILE *f = open_memstream(&text, &len);

    (void)state;
    opts_usage(f);
    fclose(f);
    for (i = 0; i < N(flags); i++) {
        if (!strstr(text, flags[i]))
            fail_msg("--help lacks %s", flags[i]);
    }
    assert_non_null(strstr(text, "(default: 127.0.0.1:8888)"));
    assert_non_null(strstr(text, "(default: 16Mi)"));
    assert_non_null(strstr(text, "(default: 128Mi)"));
    assert_non_null(strstr(text, "(default: number of online CPUs)"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_should_parse_into_options),
        cmocka_unit_test(bad_flags_should_name_the_flag_and_value),
        cmocka_unit_test(ini_file_should_apply_under_the_flags),
        cmocka_unit_test(usage_should_document_every_option_with_its_default),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
