/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU anomaly rules. See gpu_rules.h. One table entry per rule, run in the order
 * the reference logger appends its flags: TDP change, fan spike, fan/temperature
 * inversion, spurious throttle, power breach. */
#include "detect/gpu_rules.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_api.h"
#include "core/throttle_reasons.h"
#include "util/clock.h"
#include "core/vigil.h"
#include "core/eventlog.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define ANOMALY_LOG_NS (60 * NSEC_PER_SEC) /* ANOMALY_LOG_COOLDOWN_SEC */
#define BACKOFF_NOTICE 5                   /* failures before "backing off" is said */

/* One answered sample, as the rules see it. */
struct rule_in {
        const struct vigil_options *o;
        const struct gpu_frame *g;
        const struct gpu_rule_state *st;
        double max_fan;  /* fastest fan, NAN without any fan reading */
        double power_mw; /* as NVML gave it */
        double limit_mw; /* the reference's int(power_limit_w * 1000) */
};

enum rule_result { RULE_QUIET, RULE_COUNT, RULE_FLAG };

/* A rule writes its flag text into flag and, optionally, a stderr line into msg and an
 * events.log line into event (through its kind's row, event_begin(); default: an ANOMALY
 * line with flag=FLAG). */
struct gpu_rule {
        enum gpu_anomaly kind;
        uint64_t min_before; /* answered samples needed before it runs (the reference's
                              * "_total_samples > N" is N + 1) */
        bool every;          /* log every time (else once per 60 s) */
        enum rule_result (*check)(const struct rule_in *in, struct strbuf *flag, struct strbuf *msg,
                                  struct strbuf *event);
};

VIGIL_HOT static enum rule_result rule_tdp(const struct rule_in *in, struct strbuf *flag,
                                           struct strbuf *msg, struct strbuf *event)
{
        double prev = in->st->prev_limit_w, now = in->g->power_limit_w;
        if (!VAL_OK(prev) || !VAL_OK(now))
                return RULE_QUIET;
        double delta = now - prev;
        if (fabs(delta) < in->o->tdp_epsilon_w)
                return RULE_QUIET;
        sb_printf(flag, "TDP_%s(%.0fW)", delta > 0 ? "RESTORED" : "REDUCED", now);
        sb_printf(msg, "TDP CHANGE: %.0fW → %.0fW (%+.0fW)", prev, now, delta);
        event_begin(event, EV_TDP_CHANGE);
        sb_printf(event, " from=%.0fW to=%.0fW delta=%+.0fW gpu=%u", prev, now, delta,
                  in->g->index);
        return RULE_FLAG;
}

VIGIL_HOT static enum rule_result rule_fan_spike(const struct rule_in *in, struct strbuf *flag,
                                                 struct strbuf *msg, struct strbuf *event)
{
        (void)msg;
        (void)event;
        const struct gpu_frame *g = in->g;
        for (unsigned i = 0; i < g->nfans && i < VIGIL_MAX_FANS; i++) {
                double prev = in->st->prev_fan[i], now = g->fan_speed_pct[i];
                if (VAL_OK(prev) && VAL_OK(now) && fabs(now - prev) >= in->o->spike_threshold_pct) {
                        sb_puts(flag, "FAN_SPIKE");
                        return RULE_FLAG;
                }
        }
        return RULE_QUIET;
}

VIGIL_HOT static enum rule_result rule_inversion(const struct rule_in *in, struct strbuf *flag,
                                                 struct strbuf *msg, struct strbuf *event)
{
        (void)event;
        const struct vigil_options *o = in->o;
        double t = in->g->temp_c;
        if (!VAL_OK(t) || !VAL_OK(in->max_fan) || t < o->inversion_temp_c ||
            in->max_fan > o->inversion_fan_pct)
                return RULE_QUIET;
        sb_printf(flag, "TEMP_FAN_INV(%.0fC@%.0f%%)", t, in->max_fan);
        sb_printf(msg, "ANOMALY: %.0fC but fans at %.0f%% (expected >%g%% above %gC)", t,
                  in->max_fan, o->inversion_fan_pct, o->inversion_temp_c);
        return RULE_FLAG;
}

VIGIL_HOT static enum rule_result rule_spurious(const struct rule_in *in, struct strbuf *flag,
                                                struct strbuf *msg, struct strbuf *event)
{
        (void)event;
        double p = in->power_mw, lim = in->limit_mw;
        if (!in->g->throttle_valid || !(in->g->throttle_mask & NVML_CLOCKS_EVENT_SW_POWER_CAP) ||
            !VAL_OK(p) || !VAL_OK(lim) || lim <= 0 ||
            !(p > 0 && p < lim * in->o->spurious_power_ratio))
                return RULE_QUIET;
        double pct = p / lim * 100;
        sb_printf(flag, "SPUR_THROT(%.0f%%ofLim)", pct);
        sb_printf(msg, "ANOMALY: SwPowerCap at %.0fW (%.0f%% of %.0fW limit)", in->g->power_w, pct,
                  lim / 1000);
        return RULE_FLAG;
}

VIGIL_HOT static enum rule_result rule_breach(const struct rule_in *in, struct strbuf *flag,
                                              struct strbuf *msg, struct strbuf *event)
{
        (void)msg;
        (void)event;
        double p = in->power_mw, lim = in->limit_mw;
        if (!VAL_OK(p) || !VAL_OK(lim) || lim <= 0 || p <= lim)
                return RULE_QUIET;
        double over_w = (p - lim) / 1000.0;
        if (over_w <= in->o->breach_flag_w)
                return RULE_COUNT;
        sb_printf(flag, "PWR+%.0fW", over_w);
        return RULE_FLAG;
}

static const struct gpu_rule gpu_rule_table[] = {
    {GPU_ANOM_TDP_CHANGE, 0, true, rule_tdp}, /* from the 2nd sample: it needs a previous */
    {GPU_ANOM_FAN_SPIKE, 3, false, rule_fan_spike},
    {GPU_ANOM_FAN_INVERSION, 11, false, rule_inversion},
    {GPU_ANOM_SPURIOUS_THROTTLE, 11, false, rule_spurious},
    {GPU_ANOM_POWER_BREACH, 0, false, rule_breach},
};

#define NRULES (sizeof(gpu_rule_table) / sizeof(gpu_rule_table[0]))

static void out_log(struct gpu_rules_out *out, enum log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void out_event(struct gpu_rules_out *out, enum event_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void out_log(struct gpu_rules_out *out, enum log_level lvl, const char *fmt, ...)
{
        va_list ap;
        if (out->nlog == GPU_RULES_MAX_LINES)
                return;
        out->level[out->nlog] = lvl;
        va_start(ap, fmt);
        vsnprintf(out->log[out->nlog++], GPU_RULES_LINE, fmt, ap);
        va_end(ap);
}

/* An events.log line of kind kind: "type=NAME " + the formatted key=value words. */
static void out_event(struct gpu_rules_out *out, enum event_kind kind, const char *fmt, ...)
{
        va_list ap;
        if (out->nevent == GPU_RULES_MAX_LINES)
                return;
        struct strbuf sb;
        sb_init_fixed(&sb, out->event[out->nevent++], GPU_RULES_LINE);
        event_begin(&sb, kind);
        sb_putc(&sb, ' ');
        va_start(ap, fmt);
        vsnprintf(sb.buf + sb.len, GPU_RULES_LINE - sb.len, fmt, ap);
        va_end(ap);
}

/* An events.log line a rule wrote whole (through its kind's row). */
static void out_text(struct gpu_rules_out *out, const char *text)
{
        if (out->nevent < GPU_RULES_MAX_LINES)
                snprintf(out->event[out->nevent++], GPU_RULES_LINE, "%s", text);
}

void gpu_rules_init(struct gpu_rules *r, const struct vigil_options *opt, struct gpu_stats *stats,
                    unsigned n)
{
        r->opt = opt;
        if (n > VIGIL_MAX_GPUS)
                n = VIGIL_MAX_GPUS;
        memset(r->gpu, 0, n * sizeof(r->gpu[0])); /* the slots of no GPU stay untouched */
        for (unsigned i = 0; i < n; i++) {
                struct gpu_rule_state *st = &r->gpu[i];
                st->prev_limit_w = VAL_MISSING;
                st->prev_enforced_w = VAL_MISSING;
                st->enforced_base_w = VAL_MISSING;
                for (unsigned f = 0; f < VIGIL_MAX_FANS; f++)
                        st->prev_fan[f] = VAL_MISSING;
                for (unsigned k = 0; k < GPU_ANOM_COUNT; k++)
                        st->rl[k].interval_ns = ANOMALY_LOG_NS;
        }
        for (unsigned i = 0; i < n; i++) {
                memset(&stats[i], 0, sizeof(stats[i]));
                stats[i].peak_temp_c = stats[i].peak_power_w = VAL_MISSING;
                stats[i].enforced_limit_w = VAL_MISSING;
        }
}

static void count(struct gpu_stats *s, enum gpu_anomaly kind)
{
        s->anomalies[kind]++;
        s->period_anomalies[kind]++;
}

static void step_failed(struct gpu_rule_state *st, const struct gpu_frame *g, struct gpu_stats *s,
                        struct gpu_rules_out *out)
{
        s->failed_samples++;
        s->period_failed_samples++;
        if (g->consecutive_failures == 1) {
                s->crashes++;
                s->period_crashes++;
                out_log(out, LOG_WARN, "NVML FAILED — GPU crash? %s", g->error);
                out_event(out, EV_NVML_FAILED, "gpu=%u error=\"%s\"", g->index, g->error);
        }
        if (g->consecutive_failures == BACKOFF_NOTICE)
                out_log(out, LOG_WARN, "GPU still unresponsive — backing off to 30s");
        st->prev_failures = g->consecutive_failures;
}

/* "Throttle: A → B" when the reasons change (from the second sample on). */
VIGIL_HOT static void throttle_transition(struct gpu_rule_state *st, const struct gpu_frame *g,
                                          uint64_t samples, struct gpu_rules_out *out)
{
        char a[160], b[160];
        struct strbuf sa, sbb;
        if (!g->throttle_valid)
                return;
        uint64_t mask = g->throttle_mask;
        if (mask != st->prev_throttle && samples > 0) {
                sb_init_fixed(&sa, a, sizeof(a));
                sb_init_fixed(&sbb, b, sizeof(b));
                throttle_decode(&sa, st->prev_throttle);
                throttle_decode(&sbb, mask);
                out_log(out, LOG_INFO, "Throttle: %s → %s", a, b);
                out_event(out, EV_THROTTLE, "gpu=%u from=%s to=%s", g->index, a, b);
        }
        st->prev_throttle = mask;
}

/* The fastest fan read this sample (the reference's max over fan speeds). */
static double max_fan(const struct gpu_frame *g)
{
        double m = VAL_MISSING;
        for (unsigned i = 0; i < g->nfans && i < VIGIL_MAX_FANS; i++)
                if (VAL_OK(g->fan_speed_pct[i]) && (!VAL_OK(m) || g->fan_speed_pct[i] > m))
                        m = g->fan_speed_pct[i];
        return m;
}

/* Lines for a rule that fired: always for TDP, else once per 60 s per type. */
static void rule_lines(struct gpu_rule_state *st, const struct gpu_rule *rule,
                       const struct gpu_frame *g, const char *flag, const char *msg,
                       const char *event, int64_t mono_ns, struct gpu_rules_out *out)
{
        unsigned suppressed = 0;
        if (!rule->every && !ratelimit_ok(&st->rl[rule->kind], mono_ns, &suppressed))
                return;
        if (msg[0])
                out_log(out, rule->every ? LOG_INFO : LOG_WARN, "%s", msg);
        if (event[0])
                out_text(out, event);
        else if (suppressed)
                out_event(out, EV_ANOMALY, "gpu=%u flag=%s suppressed=%u", g->index, flag,
                          suppressed);
        else
                out_event(out, EV_ANOMALY, "gpu=%u flag=%s", g->index, flag);
}

VIGIL_HOT static void run_rules(struct gpu_rules *r, struct gpu_rule_state *st, struct gpu_frame *g,
                                struct gpu_stats *s, int64_t mono_ns, struct gpu_rules_out *out)
{
        char fb[96], mb[GPU_RULES_LINE], eb[GPU_RULES_LINE];
        struct strbuf flags, flag, msg, event;
        struct rule_in in = {r->opt, g, st, max_fan(g), VAL_MISSING, VAL_MISSING};
        if (VAL_OK(g->power_w))
                in.power_mw = (double)llround(g->power_w * 1000.0);
        if (VAL_OK(g->power_limit_w))
                in.limit_mw = trunc(g->power_limit_w * 1000.0);
        sb_init_fixed(&flags, g->flags, sizeof(g->flags));
        for (size_t i = 0; i < NRULES; i++) {
                const struct gpu_rule *rule = &gpu_rule_table[i];
                if (s->samples < rule->min_before)
                        continue;
                sb_init_fixed(&flag, fb, sizeof(fb));
                sb_init_fixed(&msg, mb, sizeof(mb));
                sb_init_fixed(&event, eb, sizeof(eb));
                enum rule_result res = rule->check(&in, &flag, &msg, &event);
                if (res == RULE_QUIET)
                        continue;
                count(s, rule->kind);
                out->counted |= 1u << rule->kind;
                if (res != RULE_FLAG)
                        continue;
                if (flags.len)
                        sb_putc(&flags, '|');
                sb_puts(&flags, fb);
                rule_lines(st, rule, g, fb, mb, eb, mono_ns, out);
        }
}

/* What the next sample compares with. A missing reading keeps the last good one. */
static void remember(struct gpu_rule_state *st, const struct gpu_frame *g)
{
        for (unsigned i = 0; i < g->nfans && i < VIGIL_MAX_FANS; i++)
                if (VAL_OK(g->fan_speed_pct[i]))
                        st->prev_fan[i] = g->fan_speed_pct[i];
        double limit = VAL_OK(g->power_limit_w) ? g->power_limit_w : st->prev_limit_w;
        if (VAL_OK(g->enforced_limit_w) && g->enforced_limit_w != st->prev_enforced_w)
                st->enforced_base_w = limit;
        if (VAL_OK(g->power_limit_w))
                st->prev_limit_w = g->power_limit_w;
        if (VAL_OK(g->enforced_limit_w))
                st->prev_enforced_w = g->enforced_limit_w;
}

/* The enforced power limit (what the driver holds the GPU to: the configured limit or
 * a lower one from another constraint) changed on its own: an events.log line and a
 * stderr line, no CSV flag (the reference's flags stay as they are). A change that
 * only follows the configured limit is the TDP_CHANGE already said. The enforced limit
 * is a slow field (--gpu-slow-interval): following the configured limit, it moves up
 * to a slow interval later, so it is compared with the configured limit as it was when
 * the enforced one last changed, not at the sample before. */
static void enforced_transition(const struct gpu_rule_state *st, const struct gpu_frame *g,
                                double eps, struct gpu_rules_out *out)
{
        double prev = st->prev_enforced_w, now = g->enforced_limit_w;
        if (!VAL_OK(prev) || !VAL_OK(now) || fabs(now - prev) < eps)
                return;
        double limit = VAL_OK(g->power_limit_w) ? g->power_limit_w : st->prev_limit_w;
        bool followed = VAL_OK(limit) && VAL_OK(st->enforced_base_w) && fabs(now - limit) < eps &&
                        fabs(prev - st->enforced_base_w) < eps;
        if (followed)
                return;
        out_log(out, LOG_WARN, "ENFORCED POWER LIMIT: %.0fW → %.0fW (%+.0fW)", prev, now,
                now - prev);
        out_event(out, EV_ENFORCED_LIMIT_CHANGE, "gpu=%u from=%.0fW to=%.0fW delta=%+.0fW",
                  g->index, prev, now, now - prev);
}

/* A GPU above its own maximum operating temperature (NVML's GPU_MAX threshold, read on
 * the slow cadence, core/gpu_values.c's temp_max_c): every such sample is counted,
 * and a change of state is one events.log and one stderr line. Not a CSV flag: the
 * reference's flags stay as they are. Back below is said once the temperature is
 * OVER_MAX_BACK_C under the threshold, so a GPU that hovers on it does not flap. */
#define OVER_MAX_BACK_C 2.0

static void over_max_transition(struct gpu_rule_state *st, const struct gpu_frame *g,
                                struct gpu_stats *s, struct gpu_rules_out *out)
{
        double t = g->temp_c, max = g->temp_max_c;
        if (!VAL_OK(t) || !VAL_OK(max) || max <= 0)
                return;
        bool above = st->over_max ? t > max - OVER_MAX_BACK_C : t > max;
        if (t > max) {
                count(s, GPU_ANOM_OVER_MAX_TEMP);
                out->counted |= 1u << GPU_ANOM_OVER_MAX_TEMP;
        }
        if (above == st->over_max)
                return;
        st->over_max = above;
        if (above)
                out_log(out, LOG_WARN, "TEMPERATURE %.0fC above the GPU's maximum operating %.0fC",
                        t, max);
        else
                out_log(out, LOG_INFO, "temperature %.0fC back under the GPU's maximum %.0fC", t,
                        max);
        out_event(out, EV_TEMP_OVER_MAX, "gpu=%u state=%s temp=%.0fC max=%.0fC", g->index,
                  above ? "above" : "back", t, max);
}

/* A whole number, or "na" for a missing value, in a buffer that lives with the call. */
struct numtext {
        char s[24];
};
static struct numtext num_or_na(double v)
{
        struct numtext t;
        if (VAL_OK(v))
                snprintf(t.s, sizeof(t.s), "%.0f", v);
        else
                snprintf(t.s, sizeof(t.s), "na");
        return t;
}

/* The memory's condition (detect/gpu_condition.h): one events.log and one stderr line
 * per change. A condition already there at start is said at the first sample. */
static void memory_transition(struct gpu_rule_state *st, const struct gpu_frame *g,
                              struct gpu_rules_out *out)
{
        enum gpu_memory_cond c = gpu_memory_condition(g);
        if (c == st->memory)
                return;
        st->memory = c;
        if (c == GMC_OK)
                out_log(out, LOG_INFO, "memory: no reset pending any more");
        else
                out_log(out, LOG_WARN, "MEMORY: %s", gpu_memory_cond_name(c));
        out_event(out, EV_GPU_MEMORY,
                  "gpu=%u state=%s remap_pending=%s remap_failure=%s retired_pending=%s "
                  "retired_sbe=%s retired_dbe=%s ecc_mode=%s ecc_mode_pending=%s",
                  g->index, gpu_memory_cond_name(c), num_or_na(g->remap_pending).s,
                  num_or_na(g->remap_failure).s, num_or_na(g->retired_pending).s,
                  num_or_na(g->retired_sbe).s, num_or_na(g->retired_dbe).s,
                  num_or_na(g->ecc_mode).s, num_or_na(g->ecc_mode_pending).s);
}

/* The PCIe link against its maximum (detect/gpu_condition.h): one line per change. */
static void link_transition(struct gpu_rule_state *st, const struct gpu_frame *g,
                            struct gpu_rules_out *out)
{
        bool degraded = gpu_link_degraded(&st->link, g);
        if (degraded == st->link_degraded)
                return;
        st->link_degraded = degraded;
        out_log(out, degraded ? LOG_WARN : LOG_INFO, "%s: gen %s x%s of gen %s x%s",
                degraded ? "PCIE LINK DEGRADED" : "PCIe link back at its maximum",
                num_or_na(g->pcie_gen).s, num_or_na(g->pcie_width).s, num_or_na(g->pcie_max_gen).s,
                num_or_na(g->pcie_max_width).s);
        out_event(out, EV_PCIE_LINK, "gpu=%u state=%s gen=%s width=%s max_gen=%s max_width=%s",
                  g->index, degraded ? "degraded" : "ok", num_or_na(g->pcie_gen).s,
                  num_or_na(g->pcie_width).s, num_or_na(g->pcie_max_gen).s,
                  num_or_na(g->pcie_max_width).s);
}

static void update_stats(struct gpu_stats *s, const struct gpu_frame *g, double interval_s)
{
        s->samples++;
        s->period_samples++;
        if (VAL_OK(g->temp_c) && (!VAL_OK(s->peak_temp_c) || g->temp_c > s->peak_temp_c))
                s->peak_temp_c = g->temp_c;
        if (VAL_OK(g->power_w) && (!VAL_OK(s->peak_power_w) || g->power_w > s->peak_power_w))
                s->peak_power_w = g->power_w;
        if (VAL_OK(g->enforced_limit_w))
                s->enforced_limit_w = g->enforced_limit_w;
        if (!g->throttle_valid)
                return;
        uint64_t mask = g->throttle_mask;
        for (unsigned i = 0; i < GPU_THROTTLE_BITS; i++)
                if (mask & (1ULL << i))
                        s->throttle_seconds[i] += interval_s;
}

VIGIL_HOT void gpu_rules_step(struct gpu_rules *r, unsigned slot, struct gpu_frame *g,
                              struct gpu_stats *stats, int64_t mono_ns, struct gpu_rules_out *out)
{
        struct gpu_rule_state *st = &r->gpu[slot];
        out->nlog = out->nevent = out->counted = 0;
        g->flags[0] = '\0';
        if (!g->ok) {
                step_failed(st, g, stats, out);
                return;
        }
        if (st->prev_failures > 0) {
                out_log(out, LOG_INFO, "GPU RECOVERED after %u failures", st->prev_failures);
                out_event(out, EV_GPU_RECOVERED, "gpu=%u failures=%u", g->index, st->prev_failures);
                st->prev_failures = 0;
        }
        throttle_transition(st, g, stats->samples, out);
        run_rules(r, st, g, stats, mono_ns, out);
        enforced_transition(st, g, r->opt->tdp_epsilon_w, out);
        over_max_transition(st, g, stats, out);
        memory_transition(st, g, out);
        link_transition(st, g, out);
        remember(st, g);
        update_stats(stats, g, (double)r->opt->gpu_interval_ns / 1e9);
}

const struct gpu_stats *gpu_rules_stats(const struct frame *f, unsigned slot)
{
        return slot < f->ngpus && slot < VIGIL_MAX_GPUS ? &f->gpu_stats[slot] : NULL;
}

void gpu_rules_note_crash(struct frame *f, unsigned slot)
{
        if (slot >= VIGIL_MAX_GPUS)
                return;
        f->gpu_stats[slot].crashes++;
        f->gpu_stats[slot].period_crashes++;
}

/* The detector: the rules on every GPU sampled this tick, their lines written out. */
struct gpu_rules_det {
        struct gpu_rules rules;
        struct gpu_rules_out out;
};

static int gpu_rules_det_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->nvml)
                return -ENODEV;
        struct gpu_rules_det *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        gpu_rules_init(&d->rules, ctx->opt, ctx->frame->gpu_stats, ctx->frame->ngpus);
        *ret_state = d;
        return 0;
}

VIGIL_HOT static void gpu_rules_det_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct gpu_rules_det *d = state;
        struct frame *f = ctx->frame;
        for (unsigned slot = 0; slot < f->ngpus && slot < VIGIL_MAX_GPUS; slot++) {
                struct gpu_frame *g = &f->gpus[slot];
                if (!g->sampled)
                        continue;
                gpu_rules_step(&d->rules, slot, g, &f->gpu_stats[slot], t->mono_ns, &d->out);
                for (unsigned i = 0; i < d->out.nlog; i++)
                        vlog(d->out.level[i], "gpu%u: %s", g->index, d->out.log[i]);
                for (unsigned i = 0; i < d->out.nevent; i++)
                        eventlog_printf(ctx->events, t->real_ns, "%s", d->out.event[i]);
        }
}

static void gpu_rules_det_fini(void *state)
{
        free(state);
}

const struct vigil_detector vigil_detector_gpu_rules = {
    .name = "gpu-rules",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = gpu_rules_det_init,
    .feed = gpu_rules_det_feed,
    .fini = gpu_rules_det_fini,
};
