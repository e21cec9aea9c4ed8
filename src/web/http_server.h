/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP server behind --listen: GET /metrics (Prometheus text format, gzip when
 * asked and worth it) and the dashboard page at / (or a fixed landing page when no
 * page renderer is configured), and GET /report?day=. The answers are http_handler.h's;
 * plain HTTP travels through vigil's own transport (http_plain.h), HTTPS through
 * libmicrohttpd (http_mhd.h), each on a thread of its own.
 *
 * It never samples and never touches the daemon's frame: each request asks the
 * snapshot callback for a copy of the last published data and renders that. Limits
 * hold whatever clients do: GET and HEAD only, bounded request size, connections in
 * total and per client address, an idle timeout and a time limit on each request head;
 * when every connection is taken, a new client's takes the place of a waiting one from
 * the address that holds the most, so clients that never finish a head (slowloris)
 * cannot keep the others out. Optional TLS and basic auth from a web config
 * (webconfig.h). */
#ifndef VIGIL_WEB_HTTP_SERVER_H
#define VIGIL_WEB_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/frame.h"
#include "metrics/metrics.h"
#include "web/webconfig.h"
#include "util/strbuf.h"

#define HTTP_MAX_CONNECTIONS 64 /* open connections in all */
#define HTTP_MAX_PER_IP      16 /* open connections from one client address */
#define HTTP_IDLE_TIMEOUT_S  10 /* a connection idle this long is closed */
#define HTTP_HEAD_TIMEOUT_S                                                                        \
        5                            /* a request head not complete this long after
                                           * its first byte (or the connection's accept)
                                           * is closed */
#define HTTP_CONNECTION_MEMORY 32768 /* per connection: request headers and I/O buffers */
/* The largest body rendered (/metrics, the dashboard, a report): the dashboard's full
 * ring takes about 118 KB a GPU (7.5 MB for 64, test_dashboard), so 32 MB holds
 * VIGIL_MAX_GPUS (256). The body grows as it is written: the bound costs nothing below. */
#define HTTP_MAX_BODY (32u << 20)
#define HTTP_MAX_PEM  65536 /* largest TLS certificate or key file */

/* What the snapshot callback filled. */
enum {
        HTTP_SNAP_NONE = 0,  /* nothing published yet: render an empty frame */
        HTTP_SNAP_FRAME = 1, /* *f holds the last published frame */
        HTTP_SNAP_EXTRA = 2, /* *x holds the counters kept outside the frame */
};

/* Copy the latest published data into *f and *x (server thread; must not block for
 * long). Returns HTTP_SNAP_* bits. */
typedef int (*http_snapshot_fn)(void *arg, struct frame *f, struct counters *x);

/* Render the page served at / (server thread) into out, bounded by HTTP_MAX_BODY, from
 * the frame copy f the server just took (cleared when nothing was published yet).
 * 0, or -errno (the server answers 500). */
typedef int (*http_page_fn)(void *arg, struct strbuf *out, const struct frame *f);

/* Render the report of one recorded day for GET /report?day=DAY into out (bounded by
 * HTTP_MAX_BODY), on a thread of its own (web/http_later.h): it may read files and
 * state that does not change while serving, nothing else. day is the query value as
 * sent (may be NULL). 0
 * (200), -EINVAL (400: not a YYYY-MM-DD day), -ENOENT (404: nothing recorded that
 * day), -EFBIG (413: the day's files are beyond the limit), -ENOSPC (413: the page
 * outgrew out), another -errno (500). */
typedef int (*http_report_fn)(void *arg, const char *day, struct strbuf *out);

/* Render the health verdict (core/health.h) as JSON for GET /health into out (server
 * thread). 0, -ENOENT when no verdict is kept (404), another -errno (500). */
typedef int (*http_health_fn)(void *arg, struct strbuf *out);

struct http_server_config {
        const char *listen;           /* "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (loopback) */
        const struct web_config *web; /* NULL: plain HTTP, no authentication; copied */
        http_snapshot_fn snapshot;
        http_page_fn page;       /* NULL: / is a fixed landing page */
        http_report_fn report;   /* NULL: /report is not found */
        http_health_fn health;   /* NULL: /health is not found */
        void *arg;               /* passed to snapshot and page */
        const char *mhd_library; /* TLS: NULL is libmicrohttpd.so.12 (tests name another) */
};

struct http_server;

/* Parse a listen address into *ret_addr and *ret_len: ":PORT" is 127.0.0.1, "[V6]:PORT"
 * IPv6, "A.B.C.D:PORT" IPv4, "NAME:PORT" the first address NAME resolves to. Port 0
 * asks the kernel for a free port. 0 or -EINVAL (bad form) / -EADDRNOTAVAIL (no such
 * name). */
int http_parse_listen(const char *listen, struct sockaddr_storage *ret_addr, socklen_t *ret_len);

/* Start serving. libmicrohttpd is opened here when the web config asks for TLS (dlopen:
 * any other run never maps it); libcrypt when the web config has users, and zlib at the first body
 * worth compressing. The server runs on a thread of its own, created with every
 * signal blocked. On failure returns -errno and writes one line to err (cap bytes)
 * saying why (bad address, port in use, unreadable certificate, -ENOENT: a library
 * missing...). */
int http_server_start(const struct http_server_config *cfg, struct http_server **ret, char *err,
                      size_t cap);

/* The TCP port the server listens on (useful after asking for port 0). */
unsigned http_server_port(const struct http_server *s);

/* Stop serving, close every connection and free s. Accepts NULL. */
void http_server_stop(struct http_server *s);

#endif
