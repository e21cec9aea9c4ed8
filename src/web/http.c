/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP sink: starts the /metrics and dashboard server when --listen is given. It
 * writes nothing per tick; the server reads the frame the main loop publishes after
 * each tick (vigil_published_copy) and a copy of the dashboard's history
 * (ctx->history), on its own thread. With TLS, the host clock's ticks say once a day
 * (and at start) when the certificate has expired or soon will (tls_cert.h).
 *
 *   vigil: serving http://127.0.0.1:9464/metrics and the dashboard at /
 * and /report?day=YYYY-MM-DD: `vigil report`'s HTML page of a recorded day. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/findings.h"
#include "core/health.h"
#include "core/history.h"
#include "core/run_findings.h"
#include "core/runstate.h"
#include "core/vigil.h"
#include "report/report.h"
#include "web/dashboard.h"
#include "web/http_server.h"
#include "metrics/metrics.h"
#include "web/tls_cert.h"
#include "web/webconfig.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/pfile.h"

#define REPORT_MAX_FILES 64 /* logs of one day: host and 63 GPUs */
/* Read for one report at most. The memory and the page do not grow with the day's
 * size (the charts keep STAT_SERIES_CAP points of each series, a minimum and maximum
 * each); the time does: about 3 s of a core per GB read (a day of 8 GPUs at 0.1 s
 * with its host log is about 1.1 GB). 4 GiB is 32 GPUs at 0.1 s. */
#define REPORT_MAX_BYTES (4ULL << 30)

struct http_sink {
        struct vigil_ctx *ctx;
        struct http_server *srv;
        struct history *copy; /* server thread: the history rendered from */
        /* Server thread: copies for the findings, and the findings built from them. */
        struct counters *extra;
        struct findings *events, *found;
        char hostname[256];
        struct tls_cert_watch cert; /* loop: the TLS certificate's end of validity */
};

/* Server thread: the last published frame. */
static int http_snapshot(void *arg, struct frame *f, struct counters *x)
{
        struct http_sink *h = arg;
        return vigil_published_copy(h->ctx, f, x) ? HTTP_SNAP_FRAME | HTTP_SNAP_EXTRA
                                                  : HTTP_SNAP_NONE;
}

/* Server thread: the health verdict's JSON, from its last published copy. */
static int http_health(void *arg, struct strbuf *out)
{
        struct http_sink *h = arg;
        struct health *copy = malloc(sizeof(*copy));
        if (!copy)
                return -ENOMEM;
        int r = vigil_published_health(h->ctx, copy) ? 0 : -ENOENT;
        if (r == 0)
                health_json(copy, out);
        free(copy);
        return r;
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
        char today[16] = "";
        struct dashboard_info info = {.hostname = h->hostname,
                                      .now_mono_ns = now_mono_ns(),
                                      .refresh_s = DASHBOARD_REFRESH_S,
                                      .today = today,
                                      .finding = finding};
        if (h->ctx->log_dir)
                fmt_date(today, sizeof(today), now_real_ns());
        if (vigil_published_extras(h->ctx, h->extra, h->events)) {
                struct run_findings_in in = {.frame = f,
                                             .extra = h->extra,
                                             .events = h->events,
                                             .missed = f->self.missed_deadlines,
                                             .disk_paused = false};
                run_findings_from(&in, h->found);
                info.findings = h->found;
        }
        struct health *hv = malloc(sizeof(*hv));
        if (hv && vigil_published_health(h->ctx, hv))
                info.health = hv;
        int r = dashboard_render(out, hist, f, &info);
        free(hv);
        return r;
}

/* "YYYY-MM-DD" with a month 01-12 and a day 01-31, nothing else. */
static bool valid_day(const char *d)
{
        if (!d || strlen(d) != 10 || d[4] != '-' || d[7] != '-')
                return false;
        for (int i = 0; i < 10; i++)
                if (i != 4 && i != 7 && (d[i] < '0' || d[i] > '9'))
                        return false;
        int m = (d[5] - '0') * 10 + d[6] - '0', day = (d[8] - '0') * 10 + d[9] - '0';
        return m >= 1 && m <= 12 && day >= 1 && day <= 31;
}

/* True for vigil's own logs of day: host-DAY.csv, gpuN-DAY.csv, each maybe .gz. */
static bool day_log(const char *name, const char *day)
{
        size_t n = strlen(name), k;
        if (n > 7 && !strcmp(name + n - 7, ".csv.gz"))
                n -= 7;
        else if (n > 4 && !strcmp(name + n - 4, ".csv"))
                n -= 4;
        else
                return false;
        if (n < 12 || memcmp(name + n - 10, day, 10) != 0 || name[n - 11] != '-')
                return false;
        k = n - 11; /* the group: "host" or "gpu" and digits */
        if (k == 4 && !memcmp(name, "host", 4))
                return true;
        if (k < 4 || k > 6 || memcmp(name, "gpu", 3) != 0)
                return false;
        for (size_t i = 3; i < k; i++)
                if (name[i] < '0' || name[i] > '9')
                        return false;
        return true;
}

/* "DIR/NAME", allocated; NULL without memory. */
static char *join_path(const char *dir, const char *name)
{
        size_t n = strlen(dir) + strlen(name) + 2;
        char *p = malloc(n);
        if (p)
                snprintf(p, n, "%s/%s", dir, name);
        return p;
}

/* The report's own thread (web/http_later.c): GET /report?day=DAY, the HTML report of
 * that day's logs in the log directory (read only; vigil's own file names only, regular
 * files only, at most REPORT_MAX_FILES files and REPORT_MAX_BYTES bytes, which bounds
 * the time too). Reads h->ctx->log_dir only, which never changes while serving. */
static int http_report(void *arg, const char *day, struct strbuf *out)
{
        struct http_sink *h = arg;
        const char *dir = h->ctx->log_dir;
        char *paths[REPORT_MAX_FILES];
        size_t n = 0;
        uint64_t bytes = 0;
        int r = 0;
        if (!valid_day(day))
                return -EINVAL;
        DIR *dp = dir ? opendir(dir) : NULL;
        if (!dp)
                return -ENOENT;
        struct dirent *e;
        while ((e = readdir(dp)) && r == 0) {
                struct stat st;
                if (!day_log(e->d_name, day) ||
                    fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                bytes += (uint64_t)st.st_size;
                if (n == REPORT_MAX_FILES || bytes > REPORT_MAX_BYTES)
                        r = -EFBIG;
                else if (!(paths[n] = join_path(dir, e->d_name)))
                        r = -ENOMEM;
                else
                        n++;
        }
        closedir(dp);
        if (r == 0 && n == 0)
                r = -ENOENT;
        if (r == 0) {
                char *msg = NULL;
                size_t msg_len = 0;
                FILE *err = open_memstream(&msg, &msg_len); /* file problems: not shown */
                r = err ? report_html_of((const char *const *)paths, n, out, err) : -ENOMEM;
                if (err)
                        fclose(err);
                free(msg);
        }
        for (size_t i = 0; i < n; i++)
                free(paths[i]);
        return r;
}

static void free_sink(struct http_sink *h)
{
        history_free(h->copy);
        free(h->extra);
        free(h->events);
        free(h->found);
        free(h);
}

/* The certificate's end of validity, read once (a renewed certificate needs a restart
 * to be served), and the warning at start. */
static void cert_start(struct http_sink *h, const char *path)
{
        char *pem = malloc(HTTP_MAX_PEM + 1);
        int n = pem ? read_file_at(NULL, path, pem, HTTP_MAX_PEM + 1) : -ENOMEM;
        if (n <= 0 || tls_cert_watch_start(&h->cert, path, pem, (size_t)n, now_mono_ns(),
                                           now_real_ns() / NSEC_PER_SEC) < 0)
                vlog(LOG_DEBUG, "http: cannot read the end of validity of %s", path);
        free(pem);
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
        h->extra = malloc(sizeof(*h->extra));
        h->events = malloc(sizeof(*h->events));
        h->found = malloc(sizeof(*h->found));
        if (!h->copy || !h->extra || !h->events || !h->found) {
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
        /* The pages and /metrics read the frame the main loop publishes. */
        ctx->publish_wanted = true;
        struct http_server_config cfg = {.listen = o->listen,
                                         .web = web,
                                         .snapshot = http_snapshot,
                                         .page = http_page,
                                         .report = http_report,
                                         .health = http_health,
                                         .arg = h};
        if ((r = http_server_start(&cfg, &h->srv, err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "http: %s", err);
                goto out;
        }
        vlog(LOG_INFO, "serving %s://%s%s/metrics and the dashboard at /%s",
             web && web->tls ? "https" : "http", o->listen[0] == ':' ? "127.0.0.1" : "", o->listen,
             web && web->nusers ? " (basic auth)" : "");
        if (web && web->tls)
                cert_start(h, web->cert_file);
        free(web);
        *ret_state = h;
        return 0;
out:
        free(web);
        if (h)
                free_sink(h);
        return r;
}

static int http_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct http_sink *h = state;
        (void)ctx;
        tls_cert_watch_tick(&h->cert, t->mono_ns, t->real_ns / NSEC_PER_SEC);
        return 0;
}

static void http_fini(void *state, struct vigil_ctx *ctx)
{
        struct http_sink *h = state;
        (void)ctx;
        if (!h)
                return;
        http_server_stop(h->srv);
        free_sink(h);
}

const struct vigil_sink vigil_sink_http = {
    .name = "http",
    .clocks = VCLOCK_BIT(VCLOCK_HOST), /* the certificate's daily look */
    .required = true,
    .init = http_init,
    .write = http_write,
    .fini = http_fini,
};
