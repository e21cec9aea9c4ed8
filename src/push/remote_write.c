/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write sink. See remote_write.h.
 *
 *   vigil: remote-write: pushing to https://prom.example/api/v1/write every 15 s,
 *          queue /var/log/vigil/remote-write (bound 64 MiB)
 *
 * The main loop records the frame's samples (the renderer's visitor, no text: see
 * push/rw_record.h) and queues them (a few KB, one writev); the sender thread reads the
 * queue, encodes, compresses and POSTs, so a slow or dead receiver never delays a
 * sample. They share the queue (its own lock) and the counters below (s->lock). */
#include "push/remote_write.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "push/rw_config.h"
#include "push/rw_identity.h"
#include "push/rw_lib.h"
#include "push/rw_queue.h"
#include "push/rw_record.h"
#include "push/rw_send.h"
#include "push/rw_stale.h"
#include "util/thread.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/retry.h"

#define MS_NS       1000000LL
#define REC_MAX     (8u << 20) /* one frame's sample record (push/rw_record.h) */
#define QUEUE_RETRY (60LL * 1000000000LL)

struct rw_sink {
        struct vigil_ctx *ctx;
        struct rw_config cfg;
        struct rw_lib lib;
        struct rw_client client; /* the sender thread's */
        char url[1024];
        char qdir[1100];
        struct rw_label labels[RW_PUSH_LABELS];
        size_t nlabels;

        pthread_mutex_t lock;
        pthread_cond_t cond;
        pthread_t thread;
        bool thread_on;
        struct rw_queue *q; /* set once (under lock); NULL until the directory opens */
        bool wake, stop;
        volatile int abort_request; /* stop the request in flight */
        struct push_counters st;    /* counters; queue fields filled on copy */
        int64_t last_success_ns;    /* real time; 0 = never */

        /* Sender thread only. The request being retried: the same batch, encoded once,
         * until the receiver answers it for good (n == 0: none). */
        struct rwq_batch pending;
        struct rw_body body;
        /* A batch of several frames refused: its frames go again one a request, up to
         * its end, so only the frames the receiver refuses are dropped. Also after a
         * timeout: the remote-write spec lets a receiver refuse a whole request for one
         * sample, so a refusal of the batch sent again proves nothing about its other
         * frames (the attempt that timed out may have been refused as well). */
        bool one_by_one;
        uint64_t split_seq, split_off;
        uint64_t split_refused; /* frames of it refused so far */
        bool split_said;        /* its start was said (its end is said then) */
        int64_t split_said_ns;  /* CLOCK_MONOTONIC of the last split said */
        struct rw_refusals refused;
        unsigned failures;
        struct rw_said said; /* the last failure said */
        uint64_t rng;

        /* Main loop only. */
        uint64_t every_ticks;  /* host samples per queued frame */
        struct rw_stale stale; /* the series of the last frame queued */
        char *rec, *comp;
        size_t comp_cap;
        int queue_err;        /* the last append's error; 0 when appends work */
        int queue_err_said;   /* the last append error said */
        int64_t queue_err_ns; /* CLOCK_MONOTONIC when it was said */
        bool queue_back_due;  /* its end is to be said */
        int sync_err;         /* the last rwq_sync error logged; 0 when it works */
        struct rw_full_warn full_warn;
        struct retry_gate open_gate;
};

int64_t rw_backoff_ms(unsigned failures, int64_t max_ms, int64_t retry_after_s, uint64_t *rng)
{
        if (retry_after_s > 0)
                return (retry_after_s < RW_RETRY_AFTER_MAX ? retry_after_s : RW_RETRY_AFTER_MAX) *
                       1000;
        int64_t d = RW_BACKOFF_MIN_MS;
        for (unsigned i = 1; i < failures && d < max_ms; i++)
                d *= 2;
        if (d > max_ms)
                d = max_ms;
        /* xorshift64* */
        uint64_t x = *rng ? *rng : 0x9E3779B97F4A7C15ULL;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *rng = x;
        uint64_t r = x * 0x2545F4914F6CDD1DULL;
        return d / 2 + (int64_t)(r % (uint64_t)(d / 2 + 1));
}

uint64_t rw_refusals_due(struct rw_refusals *r, int64_t mono_ns, uint64_t samples, const char *why,
                         uint64_t *ret_samples)
{
        *ret_samples = 0;
        if (why) {
                r->unsaid++;
                r->w.unsaid += samples;
                snprintf(r->why, sizeof(r->why), "%s", why);
        }
        if (!r->unsaid || (why && r->w.said && mono_ns - r->w.last_ns < RW_FULL_WARN_NS))
                return 0;
        uint64_t n = r->unsaid;
        *ret_samples = r->w.unsaid;
        r->w.said = true;
        r->w.last_ns = mono_ns;
        r->w.unsaid = 0;
        r->unsaid = 0;
        return n;
}

uint64_t rw_full_warn_due(struct rw_full_warn *w, int64_t mono_ns, uint64_t dropped)
{
        w->unsaid += dropped;
        if (!dropped || (w->said && mono_ns - w->last_ns < RW_FULL_WARN_NS))
                return 0;
        uint64_t n = w->unsaid;
        w->said = true;
        w->last_ns = mono_ns;
        w->unsaid = 0;
        return n;
}

/* ---- the sender thread ---- */

static void log_failure(struct rw_sink *s, const struct rw_result *res, uint64_t waiting)
{
        if (!rw_failure_news(&s->said, res, s->failures))
                return;
        vlog(LOG_WARN,
             "remote-write: cannot push to %s: %s; retrying with backoff, %llu samples wait in "
             "the queue (sampling and local logging go on)",
             s->url, res->why, (unsigned long long)waiting);
}

/* Why a request of nframes frames was refused, for the log: a 413 of one frame is the
 * receiver's size limit, which no split gets under. */
static void refusal_why(const struct rw_result *res, size_t nframes, char *out, size_t cap)
{
        if (res->http_status == 413 && nframes == 1)
                snprintf(out, cap,
                         "HTTP 413: one frame is too large for the receiver's limit on a request");
        else
                snprintf(out, cap, "%s", res->why);
}

/* A request refused for good, in the rate-limited summary (rw_refusals_due); why NULL
 * says what waits (at exit). */
static void say_refused(struct rw_sink *s, uint64_t samples, const char *why)
{
        uint64_t ns = 0;
        uint64_t n = rw_refusals_due(&s->refused, now_mono_ns(), samples, why, &ns);
        if (n == 1 && why)
                vlog(LOG_WARN,
                     "remote-write: %s refused %llu samples for good (%s); dropped "
                     "(vigil_remote_write_samples_dropped_total{reason=\"rejected\"}; further "
                     "refusals are summed up at most every 10 minutes)",
                     s->url, (unsigned long long)ns, s->refused.why);
        else if (n)
                vlog(LOG_WARN,
                     "remote-write: %s refused %llu requests (%llu samples) for good since the "
                     "last such line, the last with %s; dropped",
                     s->url, (unsigned long long)n, (unsigned long long)ns, s->refused.why);
}

/* One request for the batch at the head of the queue, or the same request again after
 * a failure: never a bigger batch mixing new frames with frames the receiver may have
 * taken (its answer lost to the timeout), which a receiver refuses whole ("out of
 * order sample") and so loses the new frames. A refused batch of several frames is
 * sent again one frame a request (see one_by_one). The lock is not held. Returns the
 * outcome, RW_ACCEPTED also when nothing waited (*ret_empty set). */
static enum rw_outcome send_one(struct rw_sink *s, struct rw_queue *q, int64_t timeout_ms,
                                bool *ret_empty)
{
        struct rwq_batch *b = &s->pending;
        struct rw_result res;
        struct rwq_stats qs;
        *ret_empty = false;
        if (b->n == 0) {
                rwq_batch_free(b);
                rw_body_free(&s->body);
                if (rwq_read(q, s->one_by_one ? 1 : RW_BATCH_RECORDS, RW_BATCH_BYTES, b) < 0 ||
                    b->n == 0) {
                        rwq_batch_free(b);
                        *ret_empty = true;
                        return RW_ACCEPTED;
                }
        }
        rw_client_send(&s->client, b, s->labels, s->nlabels, &s->body, timeout_ms, &res);
        if (res.outcome == RW_RETRY && res.curl_code == CURLE_ABORTED_BY_CALLBACK)
                return RW_RETRY; /* stopped for the exit: the exit attempt sends it again */
        char why[320];
        refusal_why(&res, b->n, why, sizeof(why));
        bool split = res.outcome == RW_REJECTED && b->n > 1;
        if (split) {
                s->one_by_one = true;
                s->split_seq = b->end_seq;
                s->split_off = b->end_off;
                s->split_refused = 0;
                s->split_said =
                    !s->split_said_ns || now_mono_ns() - s->split_said_ns >= RW_FULL_WARN_NS;
                if (s->split_said) {
                        s->split_said_ns = now_mono_ns();
                        vlog(LOG_INFO,
                             "remote-write: %s refused a batch of %zu frames (%s); sending them "
                             "one by one, so that only those it refuses are dropped",
                             s->url, b->n, why);
                }
        } else if (res.outcome != RW_RETRY) {
                (void)rwq_commit(q, b);
                s->split_refused += res.outcome == RW_REJECTED && s->one_by_one;
                if (s->one_by_one && (b->end_seq > s->split_seq ||
                                      (b->end_seq == s->split_seq && b->end_off >= s->split_off))) {
                        s->one_by_one = false;
                        if (s->split_said)
                                vlog(LOG_INFO,
                                     "remote-write: sent one by one: %llu frames refused and "
                                     "dropped, the others taken",
                                     (unsigned long long)s->split_refused);
                }
        }
        rwq_get_stats(q, &qs);
        pthread_mutex_lock(&s->lock);
        if (res.outcome == RW_ACCEPTED) {
                s->st.sent += b->nsamples;
                s->last_success_ns = now_real_ns();
        } else {
                s->st.failed++;
                if (res.outcome == RW_RETRY || split)
                        s->st.retried += b->nsamples;
                else
                        s->st.dropped_reject += b->nsamples;
        }
        pthread_mutex_unlock(&s->lock);
        if (res.outcome == RW_ACCEPTED && s->failures) {
                vlog(LOG_INFO, "remote-write: pushing to %s again after %u failed attempts", s->url,
                     s->failures);
                s->failures = 0;
        }
        if (res.outcome == RW_REJECTED && !split) {
                say_refused(s, b->nsamples, why);
        } else if (res.outcome == RW_RETRY) {
                s->failures++;
                log_failure(s, &res, qs.samples);
        }
        if (res.outcome != RW_RETRY) {
                rwq_batch_free(b);
                rw_body_free(&s->body);
        }
        int64_t ra = res.retry_after_s;
        if (res.outcome == RW_RETRY) {
                int64_t max_ms = 2 * s->cfg.push_interval_ns / MS_NS;
                max_ms = max_ms < 5000                ? 5000
                         : max_ms > RW_BACKOFF_MAX_MS ? RW_BACKOFF_MAX_MS
                                                      : max_ms;
                int64_t d = rw_backoff_ms(s->failures, max_ms, ra, &s->rng);
                pthread_mutex_lock(&s->lock);
                int64_t until = now_mono_ns() + d * MS_NS;
                struct timespec ts = {until / 1000000000LL, until % 1000000000LL};
                while (!s->stop && now_mono_ns() < until)
                        pthread_cond_timedwait(&s->cond, &s->lock, &ts);
                pthread_mutex_unlock(&s->lock);
        }
        return res.outcome;
}

/* At exit: what is queued, until it is sent, a request fails or the budget is spent. */
static void exit_attempt(struct rw_sink *s, struct rw_queue *q)
{
        int64_t end = now_mono_ns() + RW_EXIT_BUDGET_MS * MS_NS;
        int64_t timeout_ms = s->cfg.timeout_ns / MS_NS;
        bool empty = false;
        s->abort_request = 0;
        for (;;) {
                int64_t left = (end - now_mono_ns()) / MS_NS;
                if (left <= 0)
                        break;
                s->failures = s->failures ? s->failures : 1; /* no backoff wait: stop is set */
                if (send_one(s, q, left < timeout_ms ? left : timeout_ms, &empty) != RW_ACCEPTED ||
                    empty)
                        break;
        }
}

static void *sender(void *arg)
{
        struct rw_sink *s = arg;
        bool empty = false;
        pthread_mutex_lock(&s->lock);
        while (!s->stop) {
                struct rw_queue *q = s->q;
                if (!q || (empty && !s->wake)) {
                        int64_t until = now_mono_ns() + s->cfg.push_interval_ns;
                        struct timespec ts = {until / 1000000000LL, until % 1000000000LL};
                        pthread_cond_timedwait(&s->cond, &s->lock, &ts);
                        empty = false;
                        continue;
                }
                s->wake = false;
                pthread_mutex_unlock(&s->lock);
                send_one(s, q, s->cfg.timeout_ns / MS_NS, &empty);
                pthread_mutex_lock(&s->lock);
        }
        struct rw_queue *q = s->q;
        pthread_mutex_unlock(&s->lock);
        if (q)
                exit_attempt(s, q);
        say_refused(s, 0, NULL);
        return NULL;
}

/* ---- the main loop ---- */

static void open_queue(struct rw_sink *s, bool first)
{
        struct rw_queue *q = NULL;
        int r = rwq_open(s->ctx->log_dir, s->cfg.queue_max_bytes, &q);
        if (r < 0) {
                if (first)
                        vlog(LOG_ERR,
                             "remote-write: cannot use the queue directory %s: %s; samples are "
                             "not pushed until it can be written (retried every minute; "
                             "sampling and local logging go on)",
                             s->qdir, strerror(-r));
                return;
        }
        if (!first)
                vlog(LOG_INFO, "remote-write: queue directory %s is writable again", s->qdir);
        pthread_mutex_lock(&s->lock);
        s->q = q;
        s->wake = true;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
}

static void queue_error(struct rw_sink *s, int r, int64_t mono_ns)
{
        if (r == s->queue_err)
                return;
        s->queue_err = r;
        /* A disk that fills and empties again (the logs beside the queue take what it
         * frees) says so once, and its end, every RW_FULL_WARN_NS at most: the
         * samples are counted (queue_write_error). */
        if (r && (r != s->queue_err_said || mono_ns - s->queue_err_ns >= RW_FULL_WARN_NS)) {
                s->queue_err_said = r;
                s->queue_err_ns = mono_ns;
                s->queue_back_due = true;
                vlog(LOG_ERR,
                     "remote-write: cannot queue samples in %s: %s; they are dropped until it "
                     "can (sampling and local logging go on)",
                     s->qdir, strerror(-r));
        } else if (!r && s->queue_back_due) {
                s->queue_back_due = false;
                vlog(LOG_INFO, "remote-write: queueing samples in %s again", s->qdir);
        }
}

static void record(struct rw_sink *s, struct vigil_ctx *ctx, const struct tick *t)
{
        size_t len = 0, cl;
        uint64_t dropped = 0;
        int r = rw_rec_frame(s->rec, REC_MAX, &len, ctx->frame, ctx->extra);
        if (r < 0)
                return;
        uint32_t n = (uint32_t)r;
        int marks = rw_stale_mark(&s->stale, s->rec, &len, REC_MAX);
        n += marks > 0 ? (uint32_t)marks : 0;
        int64_t real =
            ctx->frame->host.sampled_real_ns ? ctx->frame->host.sampled_real_ns : t->real_ns;
        cl = s->comp_cap;
        if (s->lib.snappy_compress(s->rec, len, s->comp, &cl) != SNAPPY_OK)
                return;
        if (!s->q) {
                r = -ENOENT;
        } else if (ctx->disk_paused) {
                r = -ENOSPC;
        } else {
                r = rwq_append(s->q, real / MS_NS, n, s->comp, cl, &dropped);
                queue_error(s, r, t->mono_ns);
                if (r == 0)
                        rw_stale_keep(&s->stale);
        }
        pthread_mutex_lock(&s->lock);
        if (r < 0)
                s->st.dropped_write += n;
        s->st.dropped_full += dropped;
        s->wake = true;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
        bool again = s->full_warn.said;
        uint64_t say = rw_full_warn_due(&s->full_warn, t->mono_ns, dropped);
        if (say)
                vlog(LOG_WARN,
                     "remote-write: the queue in %s reached its bound of %llu bytes; %llu of the "
                     "oldest samples dropped%s (vigil_remote_write_samples_dropped_total; said "
                     "again at most every 10 minutes while it goes on)",
                     s->qdir, (unsigned long long)s->cfg.queue_max_bytes, (unsigned long long)say,
                     again ? " since the last warning" : "");
}

/* Every --sync-interval, as the logs: the queue's segment and cursor made durable. A
 * cursor that cannot be written (a full disk) is said once, and its return. */
static void rw_flush(void *state, struct vigil_ctx *ctx)
{
        struct rw_sink *s = state;
        (void)ctx;
        if (!s || !s->q)
                return;
        int r = rwq_sync(s->q);
        if (r == s->sync_err)
                return;
        if (r)
                vlog(LOG_ERR,
                     "remote-write: cannot make the queue in %s durable: %s; retried every "
                     "sync (a restart before it works sends some delivered samples again)",
                     s->qdir, strerror(-r));
        else
                vlog(LOG_INFO, "remote-write: the queue in %s is durable again", s->qdir);
        s->sync_err = r;
}

/* The counters for /metrics and `vigil status`. */
static void publish(struct rw_sink *s, struct vigil_ctx *ctx, int64_t real_ns)
{
        struct rwq_stats qs = {0};
        struct push_counters *p = &ctx->extra->push;
        if (s->q)
                rwq_get_stats(s->q, &qs);
        pthread_mutex_lock(&s->lock);
        *p = s->st;
        p->last_success_s = s->last_success_ns ? (double)(s->last_success_ns / MS_NS) / 1e3 : NAN;
        pthread_mutex_unlock(&s->lock);
        p->on = true;
        p->queue_bytes = qs.bytes;
        p->queue_samples = qs.samples;
        p->dropped_damage = qs.damaged;
        p->queue_repairs = qs.repairs;
        p->oldest_age_s = qs.oldest_ms ? (double)(real_ns / MS_NS - qs.oldest_ms) / 1e3 : NAN;
        if (p->oldest_age_s < 0)
                p->oldest_age_s = 0;
}

static int rw_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct rw_sink *s = state;
        if (!s->q && ctx->log_dir && retry_due(&s->open_gate, t->mono_ns, QUEUE_RETRY))
                open_queue(s, false);
        /* Every every_ticks-th host sample (the first included): counted in ticks, not
         * time, so wake-up jitter never skips or doubles one. */
        if (t->seq[VCLOCK_HOST] && (t->seq[VCLOCK_HOST] - 1) % s->every_ticks == 0)
                record(s, ctx, t);
        publish(s, ctx, t->real_ns);
        return 0;
}

static bool url_ok(const char *u)
{
        return (!strncmp(u, "http://", 7) && u[7]) || (!strncmp(u, "https://", 8) && u[8]);
}

static void rw_free(struct rw_sink *s)
{
        rw_client_fini(&s->client);
        rwq_batch_free(&s->pending);
        rw_body_free(&s->body);
        rwq_close(s->q);
        rw_stale_free(&s->stale);
        free(s->rec);
        free(s->comp);
        rw_lib_close(&s->lib);
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->lock);
        free(s);
}

static int rw_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *o = ctx->opt;
        char err[600];
        int r;
        if (!o->remote_write[0]) {
                if (o->remote_write_config[0])
                        vlog(LOG_WARN, "--remote-write-config without --remote-write: ignored");
                return -ENODEV;
        }
        if (!url_ok(o->remote_write)) {
                vlog(LOG_ERR, "--remote-write: '%.200s' is not an http:// or https:// URL",
                     o->remote_write);
                return -EINVAL;
        }
        if (!ctx->log_dir) {
                vlog(LOG_ERR, "--remote-write queues in the log directory: it cannot go with "
                              "--no-log");
                return -EINVAL;
        }
        struct rw_sink *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        pthread_mutex_init(&s->lock, NULL);
        cond_init_mono(&s->cond);
        s->ctx = ctx;
        s->rng = (uint64_t)now_real_ns() ^ ((uint64_t)getpid() << 32);
        snprintf(s->url, sizeof(s->url), "%s", o->remote_write);
        snprintf(s->qdir, sizeof(s->qdir), "%s/" RWQ_DIR, ctx->log_dir);
        rwconfig_defaults(&s->cfg);
        r = -EINVAL;
        if (o->remote_write_config[0] &&
            rwconfig_load(o->remote_write_config, &s->cfg, err, sizeof(err)) < 0) {
                vlog(LOG_ERR, "remote-write config %s", err);
                goto out;
        }
        s->nlabels = rw_push_labels("remote-write", &s->cfg, o->root, s->labels);
        s->every_ticks =
            (uint64_t)llround((double)s->cfg.push_interval_ns / (double)o->interval_ns);
        s->every_ticks = s->every_ticks ? s->every_ticks : 1;
        if ((r = rw_lib_open(&s->lib, true, "--remote-write", err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "%s", err);
                goto out;
        }
        if ((r = rw_client_init(&s->client, &s->lib, &rw_kind_remote_write, s->url, &s->cfg,
                                &s->abort_request, err, sizeof(err))) < 0) {
                vlog(LOG_ERR, "remote-write config %s: %s", o->remote_write_config, err);
                r = -EINVAL;
                goto out;
        }
        s->rec = malloc(REC_MAX);
        s->comp_cap = s->lib.snappy_max_compressed_length(REC_MAX);
        s->comp = malloc(s->comp_cap);
        if (!s->rec || !s->comp) {
                r = -ENOMEM;
                goto out;
        }
        open_queue(s, true);
        (void)retry_due(&s->open_gate, now_mono_ns(), QUEUE_RETRY);
        if ((r = vigil_thread_create(&s->thread, sender, s)) < 0)
                goto out;
        s->thread_on = true;
        vlog(LOG_INFO, "remote-write: pushing to %s every %.3g s, queue %s (bound %llu bytes)",
             s->url, (double)s->every_ticks * (double)o->interval_ns / 1e9, s->qdir,
             (unsigned long long)s->cfg.queue_max_bytes);
        *ret_state = s;
        return 0;
out:
        rw_free(s);
        return r;
}

/* A clean stop ends every series pushed: one record of staleness markers, at the stop's
 * time, for each series of the last frame queued, which the exit attempt sends with
 * whatever else is queued (or the next start does). Without it a receiver shows each
 * series' last value for its lookback, 5 minutes in Prometheus, as if vigil still ran;
 * Prometheus itself marks a scrape target's series stale the same way when a scrape
 * fails (scrape/scrape.go). Not after a crash: nothing runs then. */
static void end_series(struct rw_sink *s, struct vigil_ctx *ctx)
{
        size_t len = RW_REC_MAGIC_LEN, cl = s->comp_cap;
        uint64_t dropped = 0;
        if (!s->q || ctx->disk_paused || !s->stale.prev_len)
                return;
        memcpy(s->rec, RW_REC_MAGIC, RW_REC_MAGIC_LEN); /* a frame without samples */
        int marks = rw_stale_mark(&s->stale, s->rec, &len, REC_MAX);
        if (marks <= 0 || s->lib.snappy_compress(s->rec, len, s->comp, &cl) != SNAPPY_OK)
                return;
        if (rwq_append(s->q, now_real_ns() / MS_NS, (uint32_t)marks, s->comp, cl, &dropped) == 0)
                vlog(LOG_DEBUG, "remote-write: %d series end here (staleness markers queued)",
                     marks);
}

static void rw_fini(void *state, struct vigil_ctx *ctx)
{
        struct rw_sink *s = state;
        if (!s)
                return;
        end_series(s, ctx);
        if (s->thread_on) {
                pthread_mutex_lock(&s->lock);
                s->stop = true;
                s->abort_request = 1;
                pthread_cond_signal(&s->cond);
                pthread_mutex_unlock(&s->lock);
                pthread_join(s->thread, NULL);
        }
        struct rwq_stats qs = {0};
        if (s->q)
                rwq_get_stats(s->q, &qs);
        vlog(LOG_INFO,
             "remote-write: %llu samples sent, %llu retried, %llu dropped; %llu samples (%llu "
             "bytes) stay queued in %s for the next start",
             (unsigned long long)s->st.sent, (unsigned long long)s->st.retried,
             (unsigned long long)(s->st.dropped_full + s->st.dropped_write + s->st.dropped_reject +
                                  qs.damaged),
             (unsigned long long)qs.samples, (unsigned long long)qs.bytes, s->qdir);
        rw_free(s);
}

const struct vigil_sink vigil_sink_remote_write = {
    .name = "remote-write",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .required = true,
    .init = rw_init,
    .write = rw_write,
    .flush = rw_flush,
    .fini = rw_fini,
};
