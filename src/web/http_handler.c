/* SPDX-License-Identifier: Apache-2.0 */
/* The routes, auth, refusals and gzip of the HTTP server. See http_handler.h.
 *
 *   GET /metrics        ->  200, text/plain; version=0.0.4 (gzip if accepted and the
 *                           body is large enough to gain from it)
 *   GET /               ->  200, text/html: the dashboard (gzip the same way)
 *   GET /report?day=D   ->  200, text/html: that day's report, made on a thread of its
 *                           own (http_later.h); 503 while another is being made
 *
 * A scrape costs one copy of the published frame, one render into a reused buffer
 * (and a deflate into another). */
#include "web/http_handler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"

static const char index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vigil</title></head>\n"
    "<body><h1>vigil</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

int http_handler_init(struct http_handler *h, const struct http_server_config *cfg, char *err,
                      size_t cap)
{
        int r;
        h->snapshot = cfg->snapshot;
        h->page = cfg->page;
        h->report = cfg->report;
        h->health = cfg->health;
        h->arg = cfg->arg;
        if (cfg->web)
                h->web = *cfg->web;
        if (h->web.nusers) {
                if ((r = basic_auth_init(&h->auth, &h->web)) < 0) {
                        snprintf(err, cap, "basic auth %s",
                                 r == -ENOENT ? "needs libcrypt (Debian package libcrypt1)"
                                              : strerror(-r));
                        return r;
                }
                h->auth_on = true;
        }
        if (h->report && (r = http_later_init(&h->later, h->report, h->arg)) < 0) {
                snprintf(err, cap, "report thread: %s", strerror(-r));
                return r;
        }
        return sb_init_heap(&h->body, 16384, HTTP_MAX_BODY);
}

void http_handler_fini(struct http_handler *h)
{
        http_later_fini(&h->later);
        http_gzip_fini(&h->gz);
        sb_free(&h->body);
        basic_auth_fini(&h->auth);
}

/* ---- replies ---- */

/* h->body as type, gzipped when the client accepts it and it is worth it. */
static void reply_body(struct http_handler *h, const struct http_request *rq, struct http_reply *rp,
                       const char *type)
{
        http_gzip_reply(&h->gz, &h->body, rq->accept_encoding, type, rp);
}

/* A copy of the last published data in h->frame and h->extra; HTTP_SNAP_* bits. */
static int take_snapshot(struct http_handler *h)
{
        int have = h->snapshot(h->arg, &h->frame, &h->extra);
        if (!(have & HTTP_SNAP_FRAME))
                frame_empty(&h->frame); /* not frame_clear: its 1.9 MB would stay resident */
        return have;
}

static void serve_metrics(struct http_handler *h, const struct http_request *rq,
                          struct http_reply *rp)
{
        int have = take_snapshot(h);
        sb_reset(&h->body);
        if (metrics_render(&h->body, &h->frame, (have & HTTP_SNAP_EXTRA) ? &h->extra : NULL) < 0) {
                http_reply_text(rp, 500, "metrics too large\n");
                return;
        }
        reply_body(h, rq, rp, HTTP_METRICS_TYPE);
}

static void serve_page(struct http_handler *h, const struct http_request *rq, struct http_reply *rp)
{
        if (!h->page) {
                http_reply_text(rp, 200, index_html);
                rp->type = HTTP_HTML_TYPE;
                return;
        }
        take_snapshot(h);
        sb_reset(&h->body);
        if (h->page(h->arg, &h->body, &h->frame) < 0 || h->body.overflow) {
                http_reply_text(rp, 500, "page too large\n");
                return;
        }
        reply_body(h, rq, rp, HTTP_HTML_TYPE);
}

/* /health: the verdict as JSON, from the last published copy. */
static void serve_health(struct http_handler *h, const struct http_request *rq,
                         struct http_reply *rp)
{
        sb_reset(&h->body);
        int r = h->health ? h->health(h->arg, &h->body) : -ENOENT;
        if (r == -ENOENT) {
                http_reply_text(rp, 404, "not found\n");
                return;
        }
        if (r < 0 || h->body.overflow) {
                http_reply_text(rp, 500, "health verdict not available\n");
                return;
        }
        reply_body(h, rq, rp, HTTP_JSON_TYPE);
}

/* /report: deferred to its own thread (http_later.h), or 503 while one is made. */
static void serve_report(struct http_handler *h, const struct http_request *rq,
                         struct http_reply *rp)
{
        if (!h->report) {
                http_reply_text(rp, 404, "not found\n");
                return;
        }
        if (!http_later_start(&h->later, rq->day, rq->accept_encoding)) {
                http_reply_text(rp, 503, "another report is being made; try again shortly\n");
                rp->retry_after = true;
                return;
        }
        *rp = (struct http_reply){.deferred = true};
}

/* True when the request may go on; otherwise *rp holds the refusal. */
static bool authorized(struct http_handler *h, const struct http_request *rq, struct http_reply *rp)
{
        enum auth_result a =
            basic_auth_check(&h->auth, rq->user, rq->password, rq->peer, now_mono_ns());
        if (a == AUTH_OK)
                return true;
        if (a == AUTH_BUSY) {
                http_reply_text(rp, 429, "too many attempts\n");
                rp->retry_after = true;
                return false;
        }
        http_reply_text(rp, 401, "unauthorized\n");
        rp->www_auth = true;
        return false;
}

void http_handle(struct http_handler *h, const struct http_request *rq, struct http_reply *rp)
{
        if (h->auth_on && !authorized(h, rq, rp))
                return;
        bool head = !strcmp(rq->method, "HEAD");
        if (!head && strcmp(rq->method, "GET") != 0) {
                http_reply_text(rp, 405, "method not allowed\n");
                rp->allow = true;
                return;
        }
        if (rq->has_body) {
                http_reply_text(rp, 400, "request body not allowed\n");
                return;
        }
        if (!strcmp(rq->path, "/metrics")) {
                serve_metrics(h, rq, rp);
                return;
        }
        if (!strcmp(rq->path, "/")) {
                serve_page(h, rq, rp);
                return;
        }
        if (!strcmp(rq->path, "/health")) {
                serve_health(h, rq, rp);
                return;
        }
        if (!strcmp(rq->path, "/report")) {
                serve_report(h, rq, rp);
                return;
        }
        http_reply_text(rp, 404, "not found\n");
}

void http_handler_on_ready(struct http_handler *h, http_ready_fn fn, void *arg)
{
        h->later.ready = fn;
        h->later.ready_arg = arg;
}

void http_handler_run(struct http_handler *h)
{
        http_later_run(&h->later);
}

void http_handler_take(struct http_handler *h, struct http_reply *rp)
{
        http_later_take(&h->later, rp);
}

void http_handler_release(struct http_handler *h)
{
        http_later_release(&h->later);
}

void http_handler_wait(struct http_handler *h)
{
        if (h->later.report)
                http_later_wait(&h->later);
}
