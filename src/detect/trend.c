/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: leak trends. Every host sample goes into the same accumulator that
 * `vigil report` uses, so the summary printed at exit is the report of this run.
 * Every 10 minutes the robust (Theil-Sen) slope of the watched processes is checked:
 * a Chromium count or a PSS that keeps rising is the signature of a player that leaks
 * until the screen goes blank. A rising trend is an event, a metric rule, and a line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vigil.h"
#include "core/gpu_run.h"
#include "core/host_acc.h"
#include "core/watch_acc.h"
#include "core/eventlog.h"
#include "core/host_row.h"
#include "core/counters.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define TREND_SERIES_CAP    1024                 /* points per series: bounded memory */
#define TREND_EVAL_EVERY_NS (600 * NSEC_PER_SEC) /* how often slopes are checked */
#define TREND_MIN_SPAN_S    1800.0               /* at least 30 min of data first */
#define TREND_MAX_POINTS    256                  /* Theil-Sen points per check */

/* The leak rules: one entry per watched quantity. */
struct trend_rule {
        const char *name; /* metric rule name */
        enum host_col field;
        const char *unit; /* per hour */
        bool pss;         /* threshold from leak_pss_mb_per_hour, else leak_procs_per_hour */
};

static const struct trend_rule trend_rules[] = {
    {"chromium_count_rising", HC_CHROMIUM_PROCS, "processes", false},
    {"chromium_pss_rising", HC_CHROMIUM_PSS, "MB", true},
    {"player_pss_rising", HC_PLAYER_PSS, "MB", true},
};
#define NRULES (sizeof(trend_rules) / sizeof(trend_rules[0]))

struct trend {
        struct host_acc acc;
        struct watch_acc watches; /* the watches with columns of their own */
        struct host_row row;
        struct gpu_run gpus; /* a GPU server's figures for the exit summary */
        int64_t next_eval_ns;
        bool rising[NRULES];
        bool print_summary;
        char ts[40];
        const struct vigil_ctx *ctx; /* for the post-mortem finding at exit */
};

static int trend_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct trend *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        if (host_acc_init(&s->acc, TREND_SERIES_CAP, 0) < 0) {
                free(s);
                return -ENOMEM;
        }
        watch_acc_init(&s->watches, TREND_SERIES_CAP);
        gpu_run_init(&s->gpus);
        s->print_summary = !ctx->opt->quiet;
        s->next_eval_ns = 0;
        s->ctx = ctx;
        *ret_state = s;
        return 0;
}

/* The sink's host row in the accumulator's terms (same units as the CSV). */
static void to_acc_row(const struct host_row *r, const char *ts, struct host_acc_row *out)
{
        out->t = (double)r->real_ns / 1e9;
        out->timestamp = ts;
        /* What the CSV holds (one decimal for percentages): summarise what was logged. */
        for (unsigned c = 0; c < HC_COUNT; c++)
                out->v[c] = host_col_logged(c, r->v[c]);
        out->throttle_flags = r->throttle_flags;
}

static void check_rule(struct trend *s, struct vigil_ctx *ctx, unsigned i, int64_t real_ns)
{
        const struct trend_rule *rule = &trend_rules[i];
        const struct stat_series *ser = &s->acc.series[rule->field];
        double slope, level, z;
        if (!ser->p || ser->n < 8 || s->acc.last_t - s->acc.first_t < TREND_MIN_SPAN_S)
                return;
        if (stat_series_trend(ser, TREND_MAX_POINTS, &slope, &level, &z) < 0)
                return;
        double per_h = slope * 3600.0;
        double limit = rule->pss ? ctx->opt->leak_pss_mb_per_hour : ctx->opt->leak_procs_per_hour;
        /* Rising takes a significant trend (Mann-Kendall, as the exit summary's
         * projections); steady again below half the limit (hysteresis). */
        bool rising = s->rising[i] ? per_h > limit / 2
                                   : per_h > limit && isfinite(z) && z >= HOST_ACC_TREND_Z;
        if (rising == s->rising[i])
                return;
        s->rising[i] = rising;
        counters_set_rule(ctx->extra, rule->name, rising);
        double span_min = (s->acc.last_t - s->acc.first_t) / 60.0;
        /* A growing PSS eats the available memory: when it runs out at this rate (the
         * same estimate as `vigil report`'s, report/report_findings.c). */
        double out_h = rising && rule->pss
                           ? stat_hours_to_zero(stat_acc_mean(&s->acc.acc[HC_MEM_AVAIL]), -per_h)
                           : NAN;
        char out[40] = "";
        if (!isnan(out_h) && out_h > 0)
                snprintf(out, sizeof(out), " runs_out_in=%.1fh", out_h);
        eventlog_event(ctx->events, real_ns, EV_TREND,
                       "field=%s state=%s slope_per_h=%+.2f limit_per_h=%.2f "
                       "window=%.0fm%s",
                       host_col_name(rule->field), rising ? "rising" : "steady", per_h, limit,
                       span_min, out);
        if (rising)
                vlog(LOG_WARN, "%s keeps rising: %+.2f %s per hour over %.0f minutes (a leak?)",
                     host_col_name(rule->field), per_h, rule->unit, span_min);
}

/* The other watches' values as the CSV holds them (CPU % with one decimal). */
static void add_watches(struct trend *s, double t)
{
        for (unsigned i = 0; i < s->row.nwatch; i++) {
                const struct host_row_watch *w = &s->row.w[i];
                int slot = watch_acc_slot(&s->watches, w->name, strlen(w->name));
                if (slot < 0)
                        continue;
                double v[WC_COUNT];
                for (unsigned k = 0; k < WC_COUNT; k++)
                        v[k] = watch_col_logged(k, w->v[k]);
                watch_acc_add(&s->watches, (unsigned)slot, t, v);
        }
}

VIGIL_HOT static void trend_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct trend *s = state;
        struct host_acc_row ar;
        if (t->due & VCLOCK_BIT(VCLOCK_GPU))
                gpu_run_add(&s->gpus, ctx->frame);
        if (!(t->due & VCLOCK_BIT(VCLOCK_HOST)))
                return;
        host_row_build(&s->row, ctx->frame);
        fmt_time_iso_ms(s->ts, sizeof(s->ts), s->row.real_ns);
        to_acc_row(&s->row, s->ts, &ar);
        host_acc_add(&s->acc, &ar);
        add_watches(s, (double)(s->row.real_ns / 1000000) / 1e3); /* the CSV's milliseconds */
        if (t->mono_ns < s->next_eval_ns)
                return;
        s->next_eval_ns = t->mono_ns + TREND_EVAL_EVERY_NS;
        for (unsigned i = 0; i < NRULES; i++)
                check_rule(s, ctx, i, t->real_ns);
}

static void trend_fini(void *state)
{
        struct trend *s = state;
        if (!s)
                return;
        if (s->print_summary && s->acc.rows) {
                struct strbuf sb;
                /* A GPU server: its GPUs' figures, not the Pi player's leak rows. */
                const struct frame *f = s->ctx->frame;
                bool gpus = gpu_run_is_gpu_server(f);
                if (sb_init_heap(&sb, 4096, 256 * 1024) == 0) {
                        unsigned fl =
                            gpus || !host_acc_is_pi(&s->acc) ? HOST_ACC_TEXT_NO_REF_TREND : 0;
                        if (isatty(STDOUT_FILENO))
                                fl |= HOST_ACC_TEXT_RULE_80;
                        host_acc_text_opt(&s->acc, &sb, fl);
                        if (gpus)
                                gpu_run_text(
                                    &s->gpus, f, s->ctx->extra,
                                    (double)(now_mono_ns() - f->self.started_mono_ns) / 1e9, &sb);
                        watch_acc_text(&s->watches, &sb);
                        fwrite(sb.buf, 1, sb.len, stdout);
                        fflush(stdout);
                        sb_free(&sb);
                }
        }
        host_acc_free(&s->acc);
        watch_acc_free(&s->watches);
        free(s);
}

const struct vigil_detector vigil_detector_trend = {
    .name = "trend",
    .clocks = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
    .init = trend_init,
    .feed = trend_feed,
    .fini = trend_fini,
};
