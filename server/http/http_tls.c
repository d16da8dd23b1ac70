/*
 * http_tls.c: TLS for the HTTP server: the server context (TLS 1.2 or
 * newer, ECDHE with AEAD ciphers, optional client certificates) and
 * evhttp's bufferevent factory, plain or over OpenSSL.
 */
#include "server/http/http_tls.h"

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include "server/http/http_conns.h"
#include "server/http/http_worker.h"

/* evhttp's bufferevent factory: one per accepted connection. */
struct bufferevent *srv_make_bev(struct event_base *base, void *arg)
{
    struct srv_worker *w = arg;
    struct bufferevent *bev;
    SSL *ssl;

    if (!w->srv->ssl_ctx) {
        bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    } else {
        ssl = SSL_new(w->srv->ssl_ctx);
        if (!ssl)
            return NULL;
        bev = bufferevent_openssl_socket_new(
            base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
        if (!bev) {
            SSL_free(ssl);
            return NULL;
        }
        /* Clients that close without close_notify are not an error. */
        bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    }
    if (bev)
        srv_conns_accepted(&w->conns, bev);
    return bev;
}

int srv_tls_answer_plaintext(struct bufferevent *bev)
{
    static const char answer[] =
        "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; "
        "charset=utf-8\r\nConnection: close\r\n\r\nClient sent an HTTP "
        "request to an HTTPS server.\n";
    unsigned long code;
    int plain = 0;
    evutil_socket_t fd;
    char buf[4096];
    size_t drained = 0;
    ssize_t got;

    while ((code = bufferevent_get_openssl_error(bev)) != 0) {
        int why = ERR_GET_REASON(code);

        plain |= why == SSL_R_HTTP_REQUEST || why == SSL_R_HTTPS_PROXY_REQUEST;
    }
    if (!plain)
        return 0;
    fd = bufferevent_getfd(bev);
    if (send(fd, answer, sizeof(answer) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        return 0;
    /* The rest of the request, read now, does not turn the close that
     * follows into a reset that could destroy the answer. */
    while (drained < (64 << 10) &&
           (got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
        drained += (size_t)got;
    shutdown(fd, SHUT_WR);
    return 1;
}

static int ssl_error(struct err *e, const char *what, const char *path)
{
    char buf[256] = "unknown error";
    char q[160];
    unsigned long code = ERR_get_error();

    if (code)
        ERR_error_string_n(code, buf, sizeof(buf));
    ERR_clear_error();
    return err_set(e, "%s: cannot load %s: %s", what,
                   err_quote(q, sizeof(q), path, 120), buf);
}

/* TLS 1.2 or newer, ECDHE with AEAD ciphers (TLS 1.3 suites as default). */
int srv_tls_setup(struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;
    SSL_CTX *ctx;

    if (!o->tls_cert_file)
        return 0;
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return err_set(e, "TLS: cannot create a context");
    s->ssl_ctx = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (!SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20:"
                                      "!aNULL:!eNULL:!MD5:!SHA1"))
        return err_set(e, "TLS: cannot set the cipher list");
    if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert_file) != 1)
        return ssl_error(e, "--tls-cert-file", o->tls_cert_file);
    if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key_file, SSL_FILETYPE_PEM) !=
        1)
        return ssl_error(e, "--tls-key-file", o->tls_key_file);
    if (SSL_CTX_check_private_key(ctx) != 1)
        return ssl_error(e, "--tls-key-file (does not match the certificate)",
                         o->tls_key_file);
    if (o->tls_client_ca_file) {
        STACK_OF(X509_NAME) * names;

        if (SSL_CTX_load_verify_locations(ctx, o->tls_client_ca_file, NULL) !=
            1)
            return ssl_error(e, "--tls-client-ca-file", o->tls_client_ca_file);
        names = SSL_load_client_CA_file(o->tls_client_ca_file);
        if (!names)
            return ssl_error(e, "--tls-client-ca-file", o->tls_client_ca_file);
        SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(
            ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return 0;
}
