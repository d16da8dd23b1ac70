/*
 * fake_http.c: the scripted loopback HTTP responder (see fake_http.h). One
 * accept thread, one thread per connection; everything is joined on stop.
 */
#include "tests/support/fake_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FH_MAX_REQ  256
#define FH_MAX_CONN 256

struct fake_http {
    int lfd;
    char url[64];
    pthread_t accept_thread;
    atomic_int stop;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct fh_response *script;
    bool *used;
    size_t n_script;
    struct fh_request *reqs;
    size_t n_reqs;
    pthread_t conns[FH_MAX_CONN];
    size_t n_conns;
};

struct conn_arg {
    struct fake_http *fh;
    int fd;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep ms milliseconds, waking early when the server stops. */
static void nap(struct fake_http *fh, int ms)
{
    while (ms > 0 && !atomic_load(&fh->stop)) {
        int step = ms < 10 ? ms : 10;
        struct timespec ts = { 0, step * 1000000L };

        nanosleep(&ts, NULL);
        ms -= step;
    }
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Read the request head and body; 0, or -1 when the peer went away. */
static int read_request(struct fake_http *fh, int fd, struct fh_request *r)
{
    char buf[16384];
    size_t len = 0, body_len = 0, have;
    char *end = NULL, *cl;

    memset(r, 0, sizeof(*r));
    while (!end) {
        struct pollfd p = { fd, POLLIN, 0 };
        ssize_t got;

        if (atomic_load(&fh->stop) || len + 1 >= sizeof(buf))
            return -1;
        if (poll(&p, 1, 50) <= 0)
            continue;
        got = recv(fd, buf + len, sizeof(buf) - len - 1, 0);
        if (got <= 0)
            return -1;
        len += (size_t)got;
        buf[len] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    sscanf(buf, "%15s %2047s", r->method, r->target);
    snprintf(r->headers, sizeof(r->headers), "%.*s", (int)(end - buf), buf);
    cl = strcasestr(r->headers, "\r\ncontent-length:");
    if (cl)
        body_len = strtoul(cl + 17, NULL, 10);
    have = len - (size_t)(end + 4 - buf);
    memcpy(r->body, end + 4,
           have < sizeof(r->body) ? have : sizeof(r->body) - 1);
    while (have < body_len) {
        char tmp[4096];
        ssize_t got = recv(fd, tmp, sizeof(tmp), 0);

        if (got <= 0)
            return -1;
        if (have < sizeof(r->body) - 1)
            memcpy(r->body + have, tmp,
                   (size_t)got < sizeof(r->body) - 1 - have
                       ? (size_t)got
                       : sizeof(r->body) - 1 - have);
        have += (size_t)got;
    }
    r->body_len = have < sizeof(r->body) - 1 ? have : sizeof(r->body) - 1;
    r->at = now_s();
    return 0;
}

/* Record r and pick the first unused matching row (-1: none). */
static int take_row(struct fake_http *fh, struct fh_request *r)
{
    char line[2100];
    size_t i;
    int row = -1;

    snprintf(line, sizeof(line), "%s %s", r->method, r->target);
    pthread_mutex_lock(&fh->lock);
    for (i = 0; i < fh->n_script; i++) {
        const char *m = fh->script[i].match;

        if (!fh->used[i] && (!m || strstr(line, m))) {
            fh->used[i] = true;
            row = (int)i;
            break;
        }
    }
    r->answered_by = row;
    if (fh->n_reqs < FH_MAX_REQ)
        fh->reqs[fh->n_reqs++] = *r;
    pthread_cond_broadcast(&fh->cond);
    pthread_mutex_unlock(&fh->lock);
    return row;
}

static int send_piece(int fd, const char *p, size_t n, bool chunked)
{
    char hdr[32];

    if (!chunked)
        return send_all(fd, p, n);
    snprintf(hdr, sizeof(hdr), "%zx\r\n", n);
    if (send_all(fd, hdr, strlen(hdr)) < 0 || send_all(fd, p, n) < 0)
        return -1;
    return send_all(fd, "\r\n", 2);
}

static void respond(struct fake_http *fh, int fd, const struct fh_response *s)
{
    const char *body = s->body ? s->body : "";
    size_t len = strlen(body), off = 0;
    char head[256];

    if (s->chunked)
        snprintf(head, sizeof(head),
                 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                 "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                 s->status);
    else
        snprintf(head, sizeof(head),
                 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                 s->status, len);
    if (send_all(fd, head, strlen(head)) < 0)
        return;
    while (off < len) {
        size_t n = s->piece && s->piece < len - off ? s->piece : len - off;

        if (send_piece(fd, body + off, n, s->chunked) < 0)
            return;
        off += n;
        if (off < len && s->pause_ms)
            nap(fh, s->pause_ms);
    }
    if (s->hold_ms)
        nap(fh, s->hold_ms < 0 ? 1 << 30 : s->hold_ms);
    if (s->chunked && !s->drop)
        send_all(fd, "0\r\n\r\n", 5);
}

static void *conn_main(void *arg)
{
    struct conn_arg *ca = arg;
    struct fake_http *fh = ca->fh;
    struct fh_request r;
    int row;

    if (read_request(fh, ca->fd, &r) == 0) {
        row = take_row(fh, &r);
        if (row >= 0) {
            respond(fh, ca->fd, &fh->script[row]);
        } else {
            struct fh_response idle = { NULL, 200, "", 0, 0, true, -1, false };

            respond(fh, ca->fd, &idle);
        }
    }
    close(ca->fd);
    free(ca);
    return NULL;
}

static void *accept_main(void *arg)
{
    struct fake_http *fh = arg;

    while (!atomic_load(&fh->stop)) {
        struct pollfd p = { fh->lfd, POLLIN, 0 };
        struct conn_arg *ca;
        int fd, one = 1;

        if (poll(&p, 1, 50) <= 0)
            continue;
        fd = accept(fh->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        ca = malloc(sizeof(*ca));
        pthread_mutex_lock(&fh->lock);
        if (!ca || fh->n_conns == FH_MAX_CONN) {
            pthread_mutex_unlock(&fh->lock);
            free(ca);
            close(fd);
            continue;
        }
        ca->fh = fh;
        ca->fd = fd;
        if (pthread_create(&fh->conns[fh->n_conns], NULL, conn_main, ca) == 0)
            fh->n_conns++;
        else {
            free(ca);
            close(fd);
        }
        pthread_mutex_unlock(&fh->lock);
    }
    return NULL;
}

struct fake_http *fh_start(const struct fh_response *script, size_t n)
{
    struct fake_http *fh = calloc(1, sizeof(*fh));
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);

    if (!fh)
        abort();
    fh->script = calloc(n ? n : 1, sizeof(*fh->script));
    fh->used = calloc(n ? n : 1, sizeof(*fh->used));
    fh->reqs = calloc(FH_MAX_REQ, sizeof(*fh->reqs));
    if (!fh->script || !fh->used || !fh->reqs)
        abort();
    if (n)
        memcpy(fh->script, script, n * sizeof(*script));
    fh->n_script = n;
    pthread_mutex_init(&fh->lock, NULL);
    pthread_cond_init(&fh->cond, NULL);
    fh->lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fh->lfd < 0 || bind(fh->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fh->lfd, 64) < 0 ||
        getsockname(fh->lfd, (struct sockaddr *)&sa, &sl) < 0) {
        fprintf(stderr, "fake_http: cannot listen: %s\n", strerror(errno));
        abort();
    }
    snprintf(fh->url, sizeof(fh->url), "http://127.0.0.1:%d",
             ntohs(sa.sin_port));
    if (pthread_create(&fh->accept_thread, NULL, accept_main, fh) != 0)
        abort();
    return fh;
}

const char *fh_url(const struct fake_http *fh)
{
    return fh->url;
}

size_t fh_wait(struct fake_http *fh, size_t n, int timeout_ms)
{
    struct timespec dl;
    size_t have;

    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&fh->lock);
    while (fh->n_reqs < n &&
           pthread_cond_timedwait(&fh->cond, &fh->lock, &dl) == 0)
        ;
    have = fh->n_reqs;
    pthread_mutex_unlock(&fh->lock);
    return have;
}

bool fh_request(struct fake_http *fh, size_t i, struct fh_request *out)
{
    bool ok;

    pthread_mutex_lock(&fh->lock);
    ok = i < fh->n_reqs;
    if (ok)
        *out = fh->reqs[i];
    pthread_mutex_unlock(&fh->lock);
    return ok;
}

size_t fh_count(struct fake_http *fh)
{
    size_t n;

    pthread_mutex_lock(&fh->lock);
    n = fh->n_reqs;
    pthread_mutex_unlock(&fh->lock);
    return n;
}

void fh_stop(struct fake_http *fh)
{
    size_t i;

    if (!fh)
        return;
    atomic_store(&fh->stop, 1);
    pthread_join(fh->accept_thread, NULL);
    for (i = 0; i < fh->n_conns; i++)
        pthread_join(fh->conns[i], NULL);
    close(fh->lfd);
    pthread_mutex_destroy(&fh->lock);
    pthread_cond_destroy(&fh->cond);
    free(fh->script);
    free(fh->used);
    free(fh->reqs);
    free(fh);
}
