/* SPDX-License-Identifier: Apache-2.0 */
/* The Alertmanager sink. See alertmanager.h.
 *
 *   vigil: alertmanager: alerts to http://am.example:9093/api/v2/alerts (evaluated every
 *          15 s, sent again every 60 s), kept in /var/log/vigil/alertmanager
 *
 * The main loop evaluates the findings (run_findings_build, the exit summary's) into
 * the set of firing alerts and hands it over (s->want, under s->lock); the sender
 * thread merges it into the store (push/am_store.h), writes the store and POSTs. */
#include "push/alertmanager.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/run_findings.h"
#include "push/am_alert.h"
#include "push/am_eval.h"
#include "push/am_store.h"
#include "push/remote_write.h"
#include "push/rw_config.h"
#include "push/rw_identity.h"
#include "push/rw_lib.h"
#include "push/rw_send.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/thread.h"

#define MS_NS     1000000LL
#define BODY_MAX  (1u << 20)
#define TRACK_MAX (2 * FINDINGS_MAX)

static const char *const am_headers[] = {"Content-Type: application/json", NULL};

static const struct rw_client_kind am_kind = {
    .headers = am_headers,
    .hint_404 = "no Alertmanager API v2 at this URL (give the Alertmanager's base URL, "
                "http://HOST:9093, or its path prefix)",
    .config = "the Alertmanager config",
};

struct am_sink {
        struct vigil_ctx *ctx;
        struct rw_config cfg;
        struct rw_lib lib;
        struct rw_client client; /* the sender thread's */
        char url[1100];
        char dir[1100];
        char host[256];
        struct rw_label base[RW_PUSH_LABELS];
        size_t nbase;
        int64_t valid_ms; /* 4 x max(evaluation_interval, resend_delay) */

        pthread_mutex_t lock;
        pthread_cond_t cond;
        pthread_t thread;
        bool thread_on, stop;
        volatile int abort_request;
        uint64_t want_gen;
        size_t want_n;
        struct am_alert want[AM_MAX_ALERTS]; /* the firing set of the last evaluation */
        struct alert_counters st;

        /* Sender thread only. */
        struct am_store store;
        struct am_alert cur[AM_MAX_ALERTS];
        size_t cur_n;
        uint64_t seen_gen;
        /* CLOCK_MONOTONIC ms: a wall clock set back (a Pi without a real-time clock
         * at its first NTP answer) delays nothing. */
        int64_t start_ms;     /* the sink's start */
        int64_t next_send_ms; /* 0: now */
        unsigned failures;
        struct rw_said said; /* the last failure said */
        int save_err;
        bool full_said;
        uint64_t rng;
        struct strbuf body;

        /* Main loop only. */
        struct findings *fs;
        struct am_eval eval;
        int64_t next_eval_ns;
};

void am_endpoint(const char *base, char *out, size_t cap)
{
        static const char api[] = "/api/v2/alerts";
        size_t n = strlen(base), k = sizeof(api) - 1;
        if (n >= k && !strcmp(base + n - k, api)) {
                snprintf(out, cap, "%s", base);
                return;
        }
        while (n && base[n - 1] == '/')
                n--;
        snprintf(out, cap, "%.*s%s", (int)n, base, api);
}

/* ---- the sender thread ---- */

static void save(struct am_sink *s)
{
        int r = am_store_save(&s->store);
        if (r == s->save_err)
                return;
        if (r)
                vlog(LOG_ERR,
                     "alertmanager: cannot write the alert store %s: %s; alerts are still sent "
                     "from memory, but a restart before it works loses those not delivered",
                     s->store.path, strerror(-r));
        else
                vlog(LOG_INFO, "alertmanager: the alert store %s is written again", s->store.path);
        s->save_err = r;
}

/* The evaluation's firing set into the store: new alerts added, alerts no longer
 * firing resolved now, resolved ones firing again started anew. An alert still firing
 * from before a restart gets keep_firing_for from the start to be raised again (a GPU
 * still lost is found lost again after a sample or two; an Xid is not seen again and
 * its keep_firing_for ends). True when the store changed (it is then written). */
static bool merge(struct am_sink *s, int64_t now_ms, int64_t mono_ms)
{
        bool dirty = false;
        for (size_t i = 0; i < s->store.n; i++) {
                struct am_entry *e = &s->store.e[i];
                bool firing = false;
                for (size_t k = 0; k < s->cur_n && !firing; k++)
                        firing = s->cur[k].id == e->a.id;
                if (!firing && e->carried && mono_ms - s->start_ms < s->cfg.keep_firing_ns / MS_NS)
                        continue;
                if (!firing && !e->a.ends_ms) {
                        e->a.ends_ms = now_ms > e->a.starts_ms ? now_ms : e->a.starts_ms + 1;
                        e->delivered = false;
                        dirty = true;
                }
        }
        for (size_t k = 0; k < s->cur_n; k++) {
                const struct am_alert *w = &s->cur[k];
                struct am_entry *e = am_store_find(&s->store, w->id);
                if (e && !e->a.ends_ms) {
                        /* Firing still: the latest sentence, sent at the next resend. */
                        e->carried = false;
                        memcpy(e->a.summary, w->summary, sizeof(w->summary));
                        memcpy(e->a.description, w->description, sizeof(w->description));
                        continue;
                }
                if (e) {
                        e->a = *w; /* firing again after its resolution */
                } else if (!(e = am_store_add(&s->store, w))) {
                        if (!s->full_said)
                                vlog(LOG_WARN,
                                     "alertmanager: %d alerts fire or wait already; more are "
                                     "not kept until some are delivered",
                                     AM_MAX_ALERTS);
                        s->full_said = true;
                        continue;
                }
                e->delivered = false;
                dirty = true;
        }
        if (dirty)
                save(s);
        return dirty;
}

static void log_failure(struct am_sink *s, const struct rw_result *res, size_t n)
{
        if (!rw_failure_news(&s->said, res, s->failures))
                return;
        vlog(LOG_WARN,
             "alertmanager: cannot deliver alerts to %s: %s; %zu alerts kept in %s, retried "
             "with backoff (sampling and local logging go on)",
             s->url, res->why, n, s->store.path);
}

/* Every firing alert and every resolution not delivered, in one request (at most
 * AM_MAX_ALERTS, under Prometheus's 256 a request: notifier/manager.go:37). */
static void deliver(struct am_sink *s, int64_t now_ms, int64_t mono_ms)
{
        struct am_alert *batch = s->cur; /* reused: the firing set is merged already */
        size_t n = 0;
        for (size_t i = 0; i < s->store.n; i++)
                if (!s->store.e[i].a.ends_ms || !s->store.e[i].delivered)
                        batch[n++] = s->store.e[i].a;
        s->cur_n = 0;
        if (!n)
                return;
        sb_reset(&s->body);
        am_json_encode(batch, n, now_ms, s->valid_ms, &s->body);
        struct rw_result res;
        if (s->body.overflow) {
                memset(&res, 0, sizeof(res));
                res.outcome = RW_RETRY;
                snprintf(res.why, sizeof(res.why), "the request would exceed %u bytes", BODY_MAX);
        } else {
                rw_client_post(&s->client, s->body.buf, s->body.len, s->cfg.timeout_ns / MS_NS,
                               &res);
        }
        if (res.outcome == RW_ACCEPTED) {
                for (size_t i = s->store.n; i-- > 0;) {
                        struct am_entry *e = &s->store.e[i];
                        bool in = false;
                        for (size_t k = 0; k < n && !in; k++)
                                in = batch[k].id == e->a.id && batch[k].ends_ms == e->a.ends_ms;
                        if (!in)
                                continue;
                        if (e->a.ends_ms)
                                am_store_remove(&s->store, i);
                        else
                                e->delivered = true;
                }
                save(s);
                if (s->failures)
                        vlog(LOG_INFO,
                             "alertmanager: delivering to %s again after %u failed attempts",
                             s->url, s->failures);
                s->failures = 0;
                s->next_send_ms = mono_ms + s->cfg.resend_delay_ns / MS_NS;
        } else {
                if (res.curl_code == CURLE_ABORTED_BY_CALLBACK)
                        return;
                s->failures++;
                log_failure(s, &res, n);
                int64_t max_ms = s->cfg.resend_delay_ns / MS_NS;
                max_ms = max_ms < 5000 ? 5000 : max_ms;
                s->next_send_ms =
                    mono_ms + rw_backoff_ms(s->failures, max_ms, res.retry_after_s, &s->rng);
        }
        pthread_mutex_lock(&s->lock);
        if (res.outcome == RW_ACCEPTED)
                s->st.sent += n;
        else
                s->st.errors++;
        s->st.pending = am_store_pending(&s->store);
        pthread_mutex_unlock(&s->lock);
}

static void *sender(void *arg)
{
        struct am_sink *s = arg;
        pthread_mutex_lock(&s->lock);
        while (!s->stop) {
                int64_t now_ms = now_real_ns() / MS_NS, mono_ms = now_mono_ns() / MS_NS;
                bool fresh = s->want_gen != s->seen_gen;
                bool due = s->seen_gen && mono_ms >= s->next_send_ms;
                if (!fresh && !due) {
                        int64_t wait_ms = s->seen_gen ? s->next_send_ms - mono_ms : 1000;
                        int64_t until = now_mono_ns() + wait_ms * MS_NS;
                        struct timespec ts = {until / 1000000000LL, until % 1000000000LL};
                        pthread_cond_timedwait(&s->cond, &s->lock, &ts);
                        continue;
                }
                if (fresh) {
                        s->seen_gen = s->want_gen;
                        s->cur_n = s->want_n;
                        memcpy(s->cur, s->want, s->want_n * sizeof(s->want[0]));
                }
                pthread_mutex_unlock(&s->lock);
                if (fresh && merge(s, now_ms, mono_ms) && !s->failures)
                        s->next_send_ms = 0; /* a change goes at once (unless backing off) */
                if (mono_ms >= s->next_send_ms)
                        deliver(s, now_ms, mono_ms);
                pthread_mutex_lock(&s->lock);
                s->st.pending = am_store_pending(&s->store);
        }
        pthread_mutex_unlock(&s->lock);
        return NULL;
}

/* ---- the main loop ---- */

static void evaluate(struct am_sink *s, struct vigil_ctx *ctx, int64_t now_ms, int64_t mono_ms)
{
        size_t n = 0;
        run_findings_build(ctx, 0, s->fs);
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < s->fs->n && n < AM_MAX_ALERTS; i++) {
                const struct finding *x = &s->fs->items[i];
                if (!x->alarm || x->severity > FINDING_WARNING ||
                    !am_eval_fires(&s->eval, x, mono_ms))
                        continue;
                if (am_alert_from_finding(x, s->base, s->nbase, s->host, now_ms, &s->want[n]))
                        n++;
        }
        s->want_n = n;
        s->want_gen++;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
}

static int am_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct am_sink *s = state;
        if (t->mono_ns >= s->next_eval_ns) {
                s->next_eval_ns = t->mono_ns + s->cfg.eval_interval_ns;
                evaluate(s, ctx, t->real_ns / MS_NS, t->mono_ns / MS_NS);
        }
        pthread_mutex_lock(&s->lock);
        ctx->extra->alerts = s->st;
        pthread_mutex_unlock(&s->lock);
        ctx->extra->alerts.on = true;
        return 0;
}

static void am_free(struct am_sink *s)
{
        rw_client_fini(&s->client);
        rw_lib_close(&s->lib);
        sb_free(&s->body);
        free(s->fs);
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->lock);
        free(s);
}

static bool url_ok(const char *u)
{
        return (!strncmp(u, "http://", 7) && u[7]) || (!strncmp(u, "https://", 8) && u[8]);
}

/* The configuration and the URL; 0 or -EINVAL (said). */
static int configure(struct am_sink *s, const struct vigil_options *o)
{
        char err[600];
        rwconfig_defaults(&s->cfg);
        if (o->alertmanager_config[0] &&
            rwconfig_load_for(RWCONF_ALERTMANAGER, o->alertmanager_config, &s->cfg, err,
                              sizeof(err)) < 0) {
                vlog(LOG_ERR, "alertmanager config %s", err);
                return -EINVAL;
        }
        const char *base = o->alertmanager[0] ? o->alertmanager : s->cfg.url;
        if (!base[0]) {
                vlog(LOG_ERR, "alertmanager config %s has no url, and --alertmanager is not given",
                     o->alertmanager_config);
                return -EINVAL;
        }
        if (!url_ok(base)) {
                vlog(LOG_ERR, "--alertmanager: '%.200s' is not an http:// or https:// URL", base);
                return -EINVAL;
        }
        am_endpoint(base, s->url, sizeof(s->url));
        int64_t d = s->cfg.eval_interval_ns > s->cfg.resend_delay_ns ? s->cfg.eval_interval_ns
                                                                     : s->cfg.resend_delay_ns;
        s->valid_ms = 4 * d / MS_NS;
        return 0;
}

static int open_store(struct am_sink *s, const char *log_dir)
{
        snprintf(s->dir, sizeof(s->dir), "%s/" AM_STORE_DIR, log_dir);
        if (mkdir(s->dir, 0700) < 0 && errno != EEXIST) {
                int r = -errno;
                vlog(LOG_ERR, "alertmanager: cannot create %s: %s", s->dir, strerror(-r));
                return r;
        }
        int r = am_store_open(&s->store, s->dir);
        if (r == -EBADMSG)
                vlog(LOG_WARN,
                     "alertmanager: the alert store %s was damaged; moved aside to %s, the "
                     "alerts start again from the findings",
                     s->store.path, s->store.damaged);
        else if (r < 0)
                vlog(LOG_WARN, "alertmanager: cannot read the alert store %s: %s; starting empty",
                     s->store.path, strerror(-r));
        else if (s->store.n)
                vlog(LOG_INFO, "alertmanager: %zu alerts kept from before, %zu to deliver",
                     s->store.n, am_store_pending(&s->store));
        s->st.pending = am_store_pending(&s->store);
        return 0;
}

static int am_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *o = ctx->opt;
        char err[600];
        int r;
        if (!o->alertmanager[0] && !o->alertmanager_config[0])
                return -ENODEV;
        if (!ctx->log_dir) {
                vlog(LOG_ERR, "--alertmanager keeps undelivered alerts in the log directory: it "
                              "cannot go with --no-log");
                return -EINVAL;
        }
        struct am_sink *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        pthread_mutex_init(&s->lock, NULL);
        cond_init_mono(&s->cond);
        s->ctx = ctx;
        s->rng = (uint64_t)now_real_ns() ^ ((uint64_t)getpid() << 32);
        s->start_ms = now_mono_ns() / MS_NS;
        if ((r = configure(s, o)) < 0)
                goto out;
        s->eval.keep_ms = s->cfg.keep_firing_ns / MS_NS;
        if (gethostname(s->host, sizeof(s->host) - 1) < 0)
                s->host[0] = '\0';
        s->nbase = rw_push_labels("alertmanager", &s->cfg, o->root, s->base);
        for (size_t i = 0; i < s->nbase; i++)
                if (!strcmp(s->base[i].name, "instance"))
                        snprintf(s->host, sizeof(s->host), "%s", s->base[i].value);
        r = -ENOMEM;
        s->fs = malloc(sizeof(*s->fs));
        if (!s->fs || sb_init_heap(&s->body, 16384, BODY_MAX) < 0)
                goto out;
        if ((r = rw_lib_open(&s->lib, false, "--alertmanager", err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "%s", err);
                goto out;
        }
        if ((r = rw_client_init(&s->client, &s->lib, &am_kind, s->url, &s->cfg, &s->abort_request,
                                err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "alertmanager config %s: %s", o->alertmanager_config, err);
                r = -EINVAL;
                goto out;
        }
        if ((r = open_store(s, ctx->log_dir)) < 0)
                goto out;
        if ((r = vigil_thread_create(&s->thread, sender, s)) < 0)
                goto out;
        s->thread_on = true;
        vlog(LOG_INFO,
             "alertmanager: alerts to %s (evaluated every %.3g s, sent again every %.3g s), "
             "kept in %s",
             s->url, (double)s->cfg.eval_interval_ns / 1e9, (double)s->cfg.resend_delay_ns / 1e9,
             s->dir);
        *ret_state = s;
        return 0;
out:
        am_free(s);
        return r;
}

/* At a stop the firing alerts stay firing: their endsAt runs out in the Alertmanager
 * unless the next start sends them again (or resolves them), as when Prometheus
 * stops. The store is current (written at every change). */
static void am_fini(void *state, struct vigil_ctx *ctx)
{
        struct am_sink *s = state;
        (void)ctx;
        if (!s)
                return;
        if (s->thread_on) {
                pthread_mutex_lock(&s->lock);
                s->stop = true;
                s->abort_request = 1;
                pthread_cond_signal(&s->cond);
                pthread_mutex_unlock(&s->lock);
                pthread_join(s->thread, NULL);
        }
        vlog(LOG_INFO,
             "alertmanager: %llu alerts delivered, %llu failed requests; %zu alerts not "
             "delivered stay in %s for the next start",
             (unsigned long long)s->st.sent, (unsigned long long)s->st.errors,
             am_store_pending(&s->store), s->store.path);
        am_free(s);
}

const struct vigil_sink vigil_sink_alertmanager = {
    .name = "alertmanager",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .required = true,
    .init = am_init,
    .write = am_write,
    .fini = am_fini,
};
