/*
 * http_listen.c: the HTTP server's one listening socket, bound once and
 * shared by every worker (see http.c for why not SO_REUSEPORT).
 */
#include "server/http/http_listen.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int srv_listen_socket(struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;
    struct addrinfo hints, *res = NULL;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char port[16];
    int fd = -1, one = 1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(port, sizeof(port), "%d", o->listen_port);
    rc = getaddrinfo(*o->listen_host ? o->listen_host : NULL, port, &hints,
                     &res);
    if (rc != 0)
        return err_set(e, "--listen \"%s\": %s", o->listen, gai_strerror(rc));
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    /* Linux copies TCP_NODELAY to every accepted socket. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    /* An explicit IPv6 address means only IPv6; ":PORT" means both. */
    if (res->ai_family == AF_INET6 && *o->listen_host)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 1024) != 0)
        goto fail;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        goto fail;
    s->port =
        ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                       : ((struct sockaddr_in *)&ss)->sin_port);
    s->listen_fd = fd;
    freeaddrinfo(res);
    return 0;
fail:
    err_set(e, "--listen \"%s\": %s", o->listen, strerror(errno));
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return -1;
}
