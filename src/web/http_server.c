/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP server behind --listen. See http_server.h. The answers are http_handler.c's;
 * the bytes travel through vigil's own plain transport (http_plain.c), or through
 * libmicrohttpd when the web config asks for TLS (http_mhd.c). */
#include "web/http_server.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "web/http_handler.h"
#include "web/http_mhd.h"
#include "web/http_plain.h"
#include "util/parse.h"
#include "util/strbuf.h"

struct http_server {
        struct http_handler h;
        struct http_plain *plain; /* one of the two transports */
        struct http_mhd *mhd;
        unsigned port;
};

/* ---- pure helpers ---- */

int http_parse_listen(const char *listen, struct sockaddr_storage *ret_addr, socklen_t *ret_len)
{
        const char *colon = strrchr(listen, ':');
        uint64_t port;
        char host[128];
        if (!colon || parse_u64(colon + 1, strlen(colon + 1), &port) < 0 || port > 65535 ||
            colon[1] < '0' || colon[1] > '9')
                return -EINVAL;
        size_t hl = (size_t)(colon - listen);
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
        if (hl == 0) {
                snprintf(host, sizeof(host), "127.0.0.1");
                hints.ai_flags = AI_NUMERICHOST;
        } else if (listen[0] == '[') {
                if (hl < 3 || colon[-1] != ']' || hl - 2 >= sizeof(host))
                        return -EINVAL;
                copy_bounded(host, sizeof(host), listen + 1, hl - 2);
                hints.ai_family = AF_INET6;
                hints.ai_flags = AI_NUMERICHOST;
        } else {
                if (hl >= sizeof(host) || memchr(listen, ':', hl) || memchr(listen, ']', hl))
                        return -EINVAL;
                copy_bounded(host, sizeof(host), listen, hl);
        }
        struct addrinfo *res = NULL;
        int r = getaddrinfo(host, NULL, &hints, &res);
        if (r != 0 || !res)
                return r == EAI_NONAME || r == EAI_FAIL || r == EAI_NODATA ? -EADDRNOTAVAIL
                                                                           : -EINVAL;
        memset(ret_addr, 0, sizeof(*ret_addr));
        memcpy(ret_addr, res->ai_addr, res->ai_addrlen);
        *ret_len = res->ai_addrlen;
        if (res->ai_family == AF_INET6)
                ((struct sockaddr_in6 *)ret_addr)->sin6_port = htons((uint16_t)port);
        else
                ((struct sockaddr_in *)ret_addr)->sin_port = htons((uint16_t)port);
        freeaddrinfo(res);
        return 0;
}

/* ---- start and stop ---- */

int http_server_start(const struct http_server_config *cfg, struct http_server **ret, char *err,
                      size_t cap)
{
        struct sockaddr_storage addr;
        socklen_t alen;
        int r = http_parse_listen(cfg->listen, &addr, &alen);
        if (r < 0) {
                snprintf(err, cap, "cannot listen on '%s': %s", cfg->listen,
                         r == -EINVAL ? "expected ADDR:PORT, [IPV6]:PORT or :PORT"
                                      : "no such address");
                return r;
        }
        struct http_server *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        if ((r = http_handler_init(&s->h, cfg, err, cap)) < 0)
                goto out_free;
        if (s->h.web.tls)
                r = http_mhd_start(&s->h, &addr, alen, cfg->listen, cfg->mhd_library, &s->mhd,
                                   &s->port, err, cap);
        else
                r = http_plain_start(&s->h, &addr, alen, cfg->listen, &s->plain, &s->port, err,
                                     cap);
        if (r < 0)
                goto out_free;
        *ret = s;
        return 0;
out_free:
        http_server_stop(s);
        return r;
}

unsigned http_server_port(const struct http_server *s)
{
        return s->port;
}

void http_server_stop(struct http_server *s)
{
        if (!s)
                return;
        http_plain_stop(s->plain);
        http_mhd_stop(s->mhd);
        http_handler_fini(&s->h);
        free(s);
}
