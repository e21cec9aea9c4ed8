/* SPDX-License-Identifier: Apache-2.0 */
/* What the HTTP server answers, apart from how the bytes travel: the routes (/metrics,
 * the page at /, /report), basic auth, the refusals, and gzip. Both transports hand it
 * a parsed request and send the reply it fills: the plain one of vigil's own
 * (http_plain.h, every run without TLS) and libmicrohttpd (http_mhd.h, TLS only).
 *
 * Single-threaded: one transport thread calls http_handle at a time; the reply's body
 * lives in the handler until the next call. The one exception is /report, which takes
 * seconds: its reply is deferred (http_later.h) and made on a thread of its own while
 * the transport goes on with the other connections. */
#ifndef VIGIL_WEB_HTTP_HANDLER_H
#define VIGIL_WEB_HTTP_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "web/basic_auth.h"
#include "web/http_gzip.h"
#include "web/http_later.h"
#include "web/http_reply.h"
#include "web/http_server.h"
#include "util/strbuf.h"

#define HTTP_REALM "vigil"

/* One request as the transport parsed it. Strings are NUL-terminated; NULL: absent. */
struct http_request {
        const char *method;          /* as sent, case-sensitive ("GET", "HEAD", ...) */
        const char *path;            /* unescaped (http_unescape), without the query */
        const char *day;             /* the query's day= value, unescaped */
        const char *accept_encoding; /* the Accept-Encoding header */
        const char *user;            /* basic-auth credentials, decoded */
        const char *password;
        const struct sockaddr *peer; /* the client's address (its own budget of password
                                      * checks); NULL: unknown */
        bool has_body;               /* a Content-Length other than 0, or a Transfer-Encoding */
};

struct http_handler {
        http_snapshot_fn snapshot;
        http_page_fn page;
        http_report_fn report;
        http_health_fn health;
        void *arg;
        struct web_config web; /* a copy of the configuration's, or empty */
        bool auth_on;
        struct basic_auth auth; /* points into web */
        /* Render state. */
        struct frame frame;
        struct counters extra;
        struct strbuf body;
        struct http_gzip gz;
        struct http_later later; /* /report */
};

/* Set h up for cfg (its callbacks and web config); opens libcrypt when the web config
 * has users. 0, or -errno with one line in err (cap bytes). h must stay where it is
 * (the auth state points into it); undo with http_handler_fini. */
int http_handler_init(struct http_handler *h, const struct http_server_config *cfg, char *err,
                      size_t cap);

/* Give back what http_handler_init took. Accepts a zeroed or failed h. */
void http_handler_fini(struct http_handler *h);

/* Answer rq into *rp: credentials first when users are configured (401, or 429 when
 * the verification budget of rq->peer or of all is spent), then GET and HEAD only (405), no body (400), then
 * the route (404 for an unknown path). HEAD is answered as GET: the transport leaves
 * the body out. */
void http_handle(struct http_handler *h, const struct http_request *rq, struct http_reply *rp);

/* The transport's wake-up for a deferred reply: fn(arg) is called on the report's
 * thread when the reply can be taken. Set once, before serving. */
void http_handler_on_ready(struct http_handler *h, http_ready_fn fn, void *arg);
/* Start making the deferred reply, once its connection is parked. Transport thread. */
void http_handler_run(struct http_handler *h);
/* The deferred reply, after the ready call; its body lives in h until
 * http_handler_release. Transport thread. */
void http_handler_take(struct http_handler *h, struct http_reply *rp);
/* Give back the deferred reply's memory once the transport has copied the reply taken
 * (http_later_release). Transport thread. */
void http_handler_release(struct http_handler *h);
/* Wait until no deferred reply is being made: a stopping transport calls this before
 * it gives back what the ready callback uses. */
void http_handler_wait(struct http_handler *h);

#endif
