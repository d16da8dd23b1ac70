/*
 * serve.c: the `serve` subcommand (minimal first cut): listens on
 * --listen and answers /healthz and /version. The extender verbs, the
 * policy and the cluster source are wired in by later work.
 */
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/cli.h"
#include "server/version.h"

static void reply_text(struct evhttp_request *req, int code, const char *reason,
                       const char *ctype, const char *body)
{
    struct evbuffer *b = evbuffer_new();

    if (!b) {
        evhttp_send_error(req, HTTP_INTERNAL, NULL);
        return;
    }
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      ctype);
    evbuffer_add(b, body, strlen(body));
    evhttp_send_reply(req, code, reason, b);
    evbuffer_free(b);
}

static void on_healthz(struct evhttp_request *req, void *arg)
{
    (void)arg;
    reply_text(req, HTTP_OK, "OK", "text/plain; charset=utf-8", "ok\n");
}

static void on_version(struct evhttp_request *req, void *arg)
{
    char body[256];

    (void)arg;
    snprintf(body, sizeof(body), "{\"version\":\"%s\",\"gitCommit\":\"%s\"}\n",
             kpe_version(), kpe_git_revision());
    reply_text(req, HTTP_OK, "OK", "application/json", body);
}

static void on_other(struct evhttp_request *req, void *arg)
{
    (void)arg;
    reply_text(req, HTTP_NOTFOUND, "Not Found", "text/plain; charset=utf-8",
               "404 page not found\n");
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopexit(arg, NULL);
}

int cli_serve(int argc, char **argv)
{
    const char *listen = "127.0.0.1:8888";
    char host[256];
    const char *colon;
    struct event_base *base = NULL;
    struct evhttp *http = NULL;
    struct event *sigterm = NULL, *sigint = NULL;
    int i, port, rc = 1;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--listen") && i + 1 < argc)
            listen = argv[++i];
        else if ((!strcmp(argv[i], "--policy") ||
                  !strcmp(argv[i], "--cluster")) &&
                 i + 1 < argc)
            i++;
    }
    colon = strrchr(listen, ':');
    if (!colon || (size_t)(colon - listen) >= sizeof(host)) {
        fprintf(stderr, "serve: --listen: want HOST:PORT, got \"%s\"\n",
                listen);
        return 2;
    }
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    port = atoi(colon + 1);

    signal(SIGPIPE, SIG_IGN);
    base = event_base_new();
    if (!base)
        goto out;
    http = evhttp_new(base);
    if (!http)
        goto out;
    evhttp_set_cb(http, "/healthz", on_healthz, NULL);
    evhttp_set_cb(http, "/version", on_version, NULL);
    evhttp_set_gencb(http, on_other, NULL);
    if (evhttp_bind_socket(http, host, (ev_uint16_t)port) != 0) {
        fprintf(stderr, "serve: cannot listen on %s\n", listen);
        goto out;
    }
    sigterm = evsignal_new(base, SIGTERM, on_signal, base);
    sigint = evsignal_new(base, SIGINT, on_signal, base);
    if (!sigterm || !sigint)
        goto out;
    event_add(sigterm, NULL);
    event_add(sigint, NULL);
    fprintf(stderr, "serving on http://%s\n", listen);
    event_base_dispatch(base);
    rc = 0;
out:
    if (sigterm)
        event_free(sigterm);
    if (sigint)
        event_free(sigint);
    if (http)
        evhttp_free(http);
    if (base)
        event_base_free(base);
    return rc;
}
