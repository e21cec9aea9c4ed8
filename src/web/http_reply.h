/* SPDX-License-Identifier: Apache-2.0 */
/* A reply of the HTTP server as the routes fill it and the transports send it: its
 * status, headers and body, the content types it uses, and the plain-text replies. */
#ifndef VIGIL_WEB_HTTP_REPLY_H
#define VIGIL_WEB_HTTP_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define HTTP_HTML_TYPE    "text/html; charset=utf-8"
#define HTTP_JSON_TYPE    "application/json"
#define HTTP_TEXT_TYPE    "text/plain; charset=utf-8"

/* The answer. Text bodies are static; others live in the handler until its next
 * http_handle. The transport adds Content-Length, Date and X-Content-Type-Options. */
struct http_reply {
        unsigned status;
        const char *type; /* Content-Type */
        const void *body;
        size_t len;
        bool gzip;        /* Content-Encoding: gzip */
        bool vary;        /* Vary: Accept-Encoding */
        bool allow;       /* Allow: GET, HEAD (405) */
        bool retry_after; /* Retry-After: 1 (429, 503) */
        bool www_auth;    /* WWW-Authenticate: Basic realm="vigil" (401) */
        bool deferred;    /* no reply yet: park the connection, call http_handler_run,
                           * and on the handler's ready call send http_handler_take's */
};

/* Fill *rp as status with a static plain-text body. */
void http_reply_text(struct http_reply *rp, unsigned status, const char *text);

#endif
