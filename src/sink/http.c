/* The HTTP sink: starts the /metrics and dashboard server when --listen is given. It
 * writes nothing per tick (clocks 0); the server reads the frame the main loop
 * publishes after each tick (vigil_published_copy) and a copy of the dashboard's
 * history (ctx->history), on its own thread.
 *
 *   vigil: serving http://127.0.0.1:9464/metrics and the dashboard at / */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/history.h"
#include "core/runstate.h"
#include "core/vigil.h"
#include "sink/dashboard.h"
#include "sink/http_server.h"
#include "sink/webconfig.h"
#include "util/clock.h"
#include "util/log.h"

struct http_sink {
        struct vigil_ctx *ctx;
        struct http_server *srv;
        struct history *copy; /* server thread: the history rendered from */
        char hostname[256];
};

/* Server thread: the last published frame. */
static int http_snapshot(void *arg, struct frame *f, struct metrics_extra *x)
{
        struct http_sink *h = arg;
        return vigil_published_copy(h->ctx, f, x) ? HTTP_SNAP_FRAME | HTTP_SNAP_EXTRA
                                                  : HTTP_SNAP_NONE;
}

/* Server thread: the dashboard, from a copy of the history taken under its lock. */
static int http_page(void *arg, struct strbuf *out, const struct frame *f)
{
        struct http_sink *h = arg;
        const struct history *hist = NULL;
        if (h->ctx->history && history_copy(h->copy, h->ctx->history) == 0)
                hist = h->copy;
        char finding[1800];
        struct strbuf fb;
        sb_init_fixed(&fb, finding, sizeof(finding));
        runstate_finding(h->ctx->postmortem, &fb); /* read-only once the server runs */
        struct dashboard_info info = {.hostname = h->hostname,
                                      .now_mono_ns = now_mono_ns(),
                                      .refresh_s = DASHBOARD_REFRESH_S,
                                      .finding = finding};
        return dashboard_render(out, hist, f, &info);
}

static int http_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *o = ctx->opt;
        struct web_config *web = NULL;
        char err[512];
        int r;
        if (!o->listen[0])
                return -ENODEV;
        struct http_sink *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->ctx = ctx;
        /* Any history will do: a copy takes the source's parameters. */
        h->copy = history_new(1, 1, 1);
        if (!h->copy) {
                r = -ENOMEM;
                goto out;
        }
        if (gethostname(h->hostname, sizeof(h->hostname) - 1) < 0)
                h->hostname[0] = '\0';
        if (o->web_config[0]) {
                web = malloc(sizeof(*web));
                if (!web) {
                        r = -ENOMEM;
                        goto out;
                }
                if ((r = webconfig_load(o->web_config, web, err, sizeof(err))) < 0) {
                        vlog(LOG_ERR, "web config %s", err);
                        goto out;
                }
        }
        struct http_server_config cfg = {.listen = o->listen,
                                         .web = web,
                                         .snapshot = http_snapshot,
                                         .page = http_page,
                                         .arg = h};
        if ((r = http_server_start(&cfg, &h->srv, err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "http: %s", err);
                goto out;
        }
        vlog(LOG_INFO, "serving %s://%s%s/metrics and the dashboard at /%s",
             web && web->tls ? "https" : "http", o->listen[0] == ':' ? "127.0.0.1" : "", o->listen,
             web && web->nusers ? " (basic auth)" : "");
        free(web);
        *ret_state = h;
        return 0;
out:
        free(web);
        if (h)
                history_free(h->copy);
        free(h);
        return r;
}

static int http_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        (void)state;
        (void)ctx;
        (void)t;
        return 0;
}

static void http_fini(void *state, struct vigil_ctx *ctx)
{
        struct http_sink *h = state;
        (void)ctx;
        if (!h)
                return;
        http_server_stop(h->srv);
        history_free(h->copy);
        free(h);
}

const struct vigil_sink sink_http = {
    .name = "http",
    .clocks = 0,
    .required = true,
    .init = http_init,
    .write = http_write,
    .fini = http_fini,
};
