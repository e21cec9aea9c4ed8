/* SPDX-License-Identifier: Apache-2.0 */
/* The plain-HTTP transport. See http_plain.h.
 *
 * One thread, one poll(2) over the listening socket, a wake-up eventfd and every
 * connection; no time-outs at all while nothing is connected. A connection is READING
 * its request head into a fixed buffer, or SENDING a reply the socket did not take at
 * once (only then is the reply copied), or DRAINING: a reply that ends the connection
 * was sent and the write side shut, and whatever the client still sends is read and
 * dropped for a moment before the close, so that unread bytes do not make the kernel
 * reset the connection under the reply (RFC 9112, section 9.6), or WAITING for a reply
 * the handler defers (/report, made on a thread of its own: http_later.h); the report's
 * thread wakes this one through a second eventfd, and the connection takes its reply
 * (and then its pipelined requests, if any). A waiting connection reads nothing and
 * never times out: the report ends, and the client's patience is its own. */
#include "web/http_plain.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "web/http_request.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/thread.h"

#define LISTEN_BACKLOG  64
#define DRAIN_NS        (2 * NSEC_PER_SEC)  /* a closing connection's last reads */
#define ACCEPT_PAUSE_NS (NSEC_PER_SEC / 10) /* out of descriptors: retry after this */
#define IDLE_NS         ((int64_t)HTTP_IDLE_TIMEOUT_S * NSEC_PER_SEC)
#define HEAD_NS         ((int64_t)HTTP_HEAD_TIMEOUT_S * NSEC_PER_SEC)
#define HEAD_MAX        1024 /* the reply's status line and headers */

enum conn_state { READING, SENDING, DRAINING, WAITING };

struct conn {
        int fd;
        enum conn_state state;
        struct sockaddr_storage peer; /* counted against HTTP_MAX_PER_IP */
        char *in;                     /* HTTP_CONNECTION_MEMORY bytes: request heads */
        size_t in_len;
        char *out; /* SENDING: the rest of the reply */
        size_t out_len, out_off;
        bool close_after;  /* shut down once the reply is out */
        bool http10;       /* the request being answered is HTTP/1.0 */
        bool head_only;    /* WAITING: the request was HEAD */
        int64_t active_ns; /* the last byte in or out */
        int64_t head_ns;   /* the first byte of the head being read, or the accept for
                            * the first head; 0: none yet */
};

struct http_plain {
        struct http_handler *h;
        int lfd;
        int wake;  /* eventfd: stop */
        int ready; /* eventfd: a deferred reply is ready (the report's thread) */
        pthread_t thread;
        bool started;
        struct conn conns[HTTP_MAX_CONNECTIONS];
        unsigned nconns;
        int64_t accept_after_ns; /* accepting paused until then (no descriptors) */
        struct ratelimit log_rl;
};

/* ---- connections ---- */

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
        if (a->ss_family != b->ss_family)
                return false;
        if (a->ss_family == AF_INET)
                return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
                       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
        if (a->ss_family == AF_INET6)
                return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                               &((const struct sockaddr_in6 *)b)->sin6_addr,
                               sizeof(struct in6_addr));
        return true;
}

static void conn_close(struct conn *c)
{
        if (c->fd >= 0)
                close(c->fd);
        free(c->in);
        free(c->out);
        *c = (struct conn){.fd = -1};
}

/* The reply is out: shut the write side and drain, or wait for the next request. */
static void reply_done(struct conn *c, int64_t now)
{
        free(c->out);
        c->out = NULL;
        c->out_len = c->out_off = 0;
        c->active_ns = now;
        if (c->close_after) {
                shutdown(c->fd, SHUT_WR);
                c->state = DRAINING;
        } else {
                c->state = READING;
        }
}

/* Send what the socket takes of iov[0..n); the rest is copied into c->out. 0, or -1
 * when the connection broke (closed). */
static int conn_send(struct conn *c, struct iovec *iov, int n, int64_t now)
{
        size_t total = 0;
        for (int i = 0; i < n; i++)
                total += iov[i].iov_len;
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                conn_close(c);
                return -1;
        }
        size_t sent = w > 0 ? (size_t)w : 0;
        if (sent == total) {
                reply_done(c, now);
                return 0;
        }
        c->out = malloc(total - sent);
        if (!c->out) {
                conn_close(c);
                return -1;
        }
        c->out_len = total - sent;
        c->out_off = 0;
        size_t at = 0;
        for (int i = 0; i < n; i++) {
                const char *p = iov[i].iov_base;
                size_t l = iov[i].iov_len;
                size_t skip = sent > l ? l : sent;
                sent -= skip;
                memcpy(c->out + at, p + skip, l - skip);
                at += l - skip;
        }
        c->state = SENDING;
        c->active_ns = now;
        return 0;
}

static void conn_flush(struct conn *c, int64_t now)
{
        ssize_t w =
            send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                        conn_close(c);
                return;
        }
        c->out_off += (size_t)w;
        c->active_ns = now;
        if (c->out_off == c->out_len)
                reply_done(c, now);
}

/* ---- replies ---- */

static const char *reason(unsigned status)
{
        switch (status) {
        case 200:
                return "OK";
        case 400:
                return "Bad Request";
        case 401:
                return "Unauthorized";
        case 404:
                return "Not Found";
        case 405:
                return "Method Not Allowed";
        case 413:
                return "Content Too Large";
        case 414:
                return "URI Too Long";
        case 429:
                return "Too Many Requests";
        case 431:
                return "Request Header Fields Too Large";
        case 503:
                return "Service Unavailable";
        case 505:
                return "HTTP Version Not Supported";
        default:
                return "Internal Server Error";
        }
}

/* Send rp on c; with head set, its headers only. */
static void conn_reply(struct conn *c, const struct http_reply *rp, bool head, int64_t now)
{
        char h[HEAD_MAX], date[64];
        struct tm tm;
        time_t t = time(NULL);
        gmtime_r(&t, &tm);
        strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
        int n = snprintf(h, sizeof(h),
                         "HTTP/1.1 %u %s\r\nDate: %s\r\nContent-Type: %s\r\n"
                         "Content-Length: %zu\r\nX-Content-Type-Options: nosniff\r\n%s%s%s%s%s%s"
                         "\r\n",
                         rp->status, reason(rp->status), date, rp->type, rp->len,
                         rp->vary ? "Vary: Accept-Encoding\r\n" : "",
                         rp->gzip ? "Content-Encoding: gzip\r\n" : "",
                         rp->allow ? "Allow: GET, HEAD\r\n" : "",
                         rp->retry_after ? "Retry-After: 1\r\n" : "",
                         rp->www_auth ? "WWW-Authenticate: Basic realm=\"" HTTP_REALM "\"\r\n" : "",
                         c->close_after ? "Connection: close\r\n"
                         : c->http10    ? "Connection: keep-alive\r\n" /* RFC 9112, 9.3 */
                                        : "");
        struct iovec iov[2] = {{h, (size_t)n}, {(void *)rp->body, head ? 0 : rp->len}};
        conn_send(c, iov, head || !rp->len ? 1 : 2, now);
}

static void conn_refuse(struct conn *c, unsigned status, const char *text, int64_t now)
{
        struct http_reply rp = {.status = status,
                                .type = "text/plain; charset=utf-8",
                                .body = text,
                                .len = strlen(text)};
        c->close_after = true;
        conn_reply(c, &rp, false, now);
}

/* ---- requests ---- */

/* Answer the complete heads in c->in, in order, while the replies go out at once. */
static void conn_serve(struct http_plain *p, struct conn *c, int64_t now)
{
        while (c->state == READING && c->in_len) {
                struct http_parsed req;
                size_t used;
                int st = http_request_parse(c->in, c->in_len, HTTP_CONNECTION_MEMORY, &req, &used);
                if (st == 0)
                        return; /* the head is not complete yet */
                if (st != 1) {
                        conn_refuse(c, (unsigned)st,
                                    st == 505   ? "HTTP version not supported\n"
                                    : st == 431 ? "request header too large\n"
                                    : st == 414 ? "request line too long\n"
                                                : "bad request\n",
                                    now);
                        return;
                }
                struct http_reply rp;
                req.rq.peer = (const struct sockaddr *)&c->peer;
                http_handle(p->h, &req.rq, &rp);
                bool get_or_head = !strcmp(req.rq.method, "GET") || !strcmp(req.rq.method, "HEAD");
                c->close_after = !req.keep_alive || !get_or_head || req.rq.has_body;
                c->http10 = req.http10;
                bool head = !strcmp(req.rq.method, "HEAD");
                memmove(c->in, c->in + used, c->in_len - used);
                c->in_len -= used;
                c->head_ns = c->in_len ? now : 0;
                if (rp.deferred) {
                        c->state = WAITING;
                        c->head_only = head;
                        http_handler_run(p->h);
                        return;
                }
                conn_reply(c, &rp, head, now);
                if (c->fd < 0 || c->close_after)
                        return;
        }
}

/* The report's thread: the deferred reply is ready. */
static void on_ready(void *arg)
{
        struct http_plain *p = arg;
        uint64_t one = 1;
        while (write(p->ready, &one, sizeof(one)) < 0 && errno == EINTR)
                ;
}

/* Send the deferred reply to the connection waiting for it (none when it broke
 * meanwhile: the reply is taken all the same), then its pipelined requests. */
static void deliver(struct http_plain *p, int64_t now)
{
        uint64_t n;
        while (read(p->ready, &n, sizeof(n)) < 0 && errno == EINTR)
                ;
        struct http_reply rp;
        http_handler_take(p->h, &rp);
        for (unsigned i = 0; i < p->nconns; i++) {
                struct conn *c = &p->conns[i];
                if (c->fd < 0 || c->state != WAITING)
                        continue;
                c->state = READING;
                conn_reply(c, &rp, c->head_only, now); /* sent or copied */
                http_handler_release(p->h);
                if (c->fd >= 0 && c->state == READING && !c->close_after)
                        conn_serve(p, c, now);
                return;
        }
        http_handler_release(p->h);
}

static void conn_read(struct http_plain *p, struct conn *c, int64_t now)
{
        char drop[4096];
        if (c->state == DRAINING) {
                ssize_t r = recv(c->fd, drop, sizeof(drop), MSG_DONTWAIT);
                if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                        conn_close(c);
                return;
        }
        ssize_t r =
            recv(c->fd, c->in + c->in_len, HTTP_CONNECTION_MEMORY - c->in_len, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                conn_close(c);
                return;
        }
        if (r < 0)
                return;
        if (!c->in_len && !c->head_ns)
                c->head_ns = now; /* a next head's first byte (the first's: the accept) */
        c->in_len += (size_t)r;
        c->active_ns = now;
        conn_serve(p, c, now);
}

/* ---- the listening socket ---- */

static void compact(struct http_plain *p)
{
        unsigned w = 0;
        for (unsigned i = 0; i < p->nconns; i++)
                if (p->conns[i].fd >= 0)
                        p->conns[w++] = p->conns[i];
        p->nconns = w;
}

/* Connections of p from peer's address. */
static unsigned count_from(const struct http_plain *p, const struct sockaddr_storage *peer)
{
        unsigned n = 0;
        for (unsigned i = 0; i < p->nconns; i++)
                n += p->conns[i].fd >= 0 && same_address(&p->conns[i].peer, peer);
        return n;
}

/* Every connection is taken and a client with `same` of them asks for one more: close
 * a connection that waits for a head (or drains) from the address holding the most,
 * when that is more than the newcomer would hold, the longest-waiting one of them; so
 * a few addresses that never finish their heads cannot keep everyone else out, and a
 * client never takes the place of one from an address with fewer. A connection that is
 * sending a reply or waiting for one is never chosen. True when one was closed. */
static bool make_room(struct http_plain *p, unsigned same)
{
        struct conn *victim = NULL;
        unsigned most = same + 1;
        for (unsigned i = 0; i < p->nconns; i++) {
                struct conn *c = &p->conns[i];
                if (c->fd < 0 || c->state == SENDING || c->state == WAITING)
                        continue;
                unsigned n = count_from(p, &c->peer);
                if (n > most || (victim && n == most && c->active_ns < victim->active_ns)) {
                        most = n;
                        victim = c;
                }
        }
        if (!victim)
                return false;
        conn_close(victim);
        return true;
}

static void accept_all(struct http_plain *p, int64_t now)
{
        for (unsigned round = 0; round < HTTP_MAX_CONNECTIONS; round++) {
                struct sockaddr_storage peer;
                socklen_t plen = sizeof(peer);
                int fd =
                    accept4(p->lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                            errno == ENOMEM) {
                                p->accept_after_ns = now + ACCEPT_PAUSE_NS;
                                if (ratelimit_ok(&p->log_rl, now, NULL))
                                        vlog(LOG_WARN, "http: accept: %s", strerror(errno));
                        }
                        return;
                }
                unsigned same = count_from(p, &peer);
                if (p->nconns == HTTP_MAX_CONNECTIONS)
                        compact(p); /* the closed ones first */
                if (p->nconns == HTTP_MAX_CONNECTIONS && same < HTTP_MAX_PER_IP &&
                    make_room(p, same))
                        compact(p);
                char *in = NULL;
                if (p->nconns == HTTP_MAX_CONNECTIONS || same >= HTTP_MAX_PER_IP ||
                    !(in = malloc(HTTP_CONNECTION_MEMORY))) {
                        close(fd);
                        continue;
                }
                p->conns[p->nconns++] = (struct conn){.fd = fd,
                                                      .state = READING,
                                                      .peer = peer,
                                                      .in = in,
                                                      .active_ns = now,
                                                      .head_ns = now};
        }
}

/* The earliest time-out of any connection, or INT64_MAX. Closes the expired ones. */
static int64_t expire(struct http_plain *p, int64_t now)
{
        int64_t next = INT64_MAX;
        for (unsigned i = 0; i < p->nconns; i++) {
                struct conn *c = &p->conns[i];
                if (c->fd < 0 || c->state == WAITING)
                        continue; /* closed while serving: compact() drops it */
                int64_t end = c->active_ns + (c->state == DRAINING ? DRAIN_NS : IDLE_NS);
                if (c->state == READING && c->head_ns && c->head_ns + HEAD_NS < end)
                        end = c->head_ns + HEAD_NS; /* a head sent a byte at a time */
                if (end <= now)
                        conn_close(c);
                else if (end < next)
                        next = end;
        }
        return next;
}

static void *serve(void *arg)
{
        struct http_plain *p = arg;
        struct pollfd fds[3 + HTTP_MAX_CONNECTIONS];
        for (;;) {
                int64_t now = now_mono_ns();
                int64_t next = expire(p, now);
                compact(p);
                bool accepting = now >= p->accept_after_ns;
                if (!accepting && p->accept_after_ns < next)
                        next = p->accept_after_ns;
                fds[0] = (struct pollfd){.fd = p->wake, .events = POLLIN};
                fds[1] = (struct pollfd){.fd = accepting ? p->lfd : -1, .events = POLLIN};
                fds[2] = (struct pollfd){.fd = p->ready, .events = POLLIN};
                for (unsigned i = 0; i < p->nconns; i++) {
                        enum conn_state st = p->conns[i].state;
                        fds[3 + i] = (struct pollfd){.fd = p->conns[i].fd,
                                                     .events = st == SENDING   ? POLLOUT
                                                               : st == WAITING ? 0
                                                                               : POLLIN};
                }
                int timeout = -1;
                if (next != INT64_MAX)
                        timeout = next <= now
                                      ? 0
                                      : (int)((next - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) + 1;
                int n = poll(fds, 3 + p->nconns, timeout);
                if (n < 0 && errno != EINTR) {
                        vlog(LOG_ERR, "http: poll: %s", strerror(errno));
                        return NULL;
                }
                if (n <= 0)
                        continue;
                if (fds[0].revents)
                        return NULL;
                now = now_mono_ns();
                unsigned had = p->nconns; /* accept_all appends after these */
                for (unsigned i = 0; i < had; i++) {
                        struct conn *c = &p->conns[i];
                        short ev = fds[3 + i].revents;
                        if (!ev || c->fd < 0)
                                continue;
                        if (c->state == WAITING) {
                                conn_close(c); /* POLLERR or POLLHUP: the reply has nowhere to go */
                        } else if (c->state == SENDING && (ev & (POLLOUT | POLLERR | POLLHUP))) {
                                conn_flush(c, now);
                                if (c->fd >= 0 && c->state == READING)
                                        conn_serve(p, c, now); /* pipelined heads */
                        } else if (c->state != SENDING) {
                                conn_read(p, c, now);
                        }
                }
                if (fds[2].revents)
                        deliver(p, now);
                if (fds[1].revents)
                        accept_all(p, now);
        }
}

/* ---- start and stop ---- */

int http_plain_start(struct http_handler *h, const struct sockaddr_storage *addr, socklen_t len,
                     const char *listen_addr, struct http_plain **ret, unsigned *ret_port,
                     char *err, size_t cap)
{
        struct http_plain *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->h = h;
        p->log_rl.interval_ns = 10 * NSEC_PER_SEC;
        p->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        p->ready = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        p->lfd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1, r = 0;
        if (p->wake < 0 || p->ready < 0 || p->lfd < 0)
                r = -errno;
        if (!r && setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
                r = -errno;
        if (!r && addr->ss_family == AF_INET6 &&
            setsockopt(p->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
                r = -errno;
        if (!r && (bind(p->lfd, (const struct sockaddr *)addr, len) < 0 ||
                   listen(p->lfd, LISTEN_BACKLOG) < 0))
                r = -errno;
        struct sockaddr_storage bound;
        socklen_t blen = sizeof(bound);
        if (!r && getsockname(p->lfd, (struct sockaddr *)&bound, &blen) < 0)
                r = -errno;
        if (!r) {
                http_handler_on_ready(h, on_ready, p);
                r = vigil_thread_create(&p->thread, serve, p);
                p->started = r == 0;
        }
        if (r < 0) {
                snprintf(err, cap, "cannot listen on %s: %s", listen_addr, strerror(-r));
                http_plain_stop(p);
                return r;
        }
        *ret_port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                      : ((struct sockaddr_in *)&bound)->sin_port);
        *ret = p;
        return 0;
}

void http_plain_stop(struct http_plain *p)
{
        if (!p)
                return;
        if (p->started) {
                uint64_t one = 1;
                while (write(p->wake, &one, sizeof(one)) < 0 && errno == EINTR)
                        ;
                pthread_join(p->thread, NULL);
        }
        http_handler_wait(p->h); /* a report's thread may still call on_ready */
        for (unsigned i = 0; i < p->nconns; i++)
                conn_close(&p->conns[i]);
        if (p->lfd >= 0)
                close(p->lfd);
        if (p->wake >= 0)
                close(p->wake);
        if (p->ready >= 0)
                close(p->ready);
        free(p);
}
