/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's findings: built from copies, fed by the events tap, printed at exit,
 * published for other threads. See run_findings.h. */
#include "core/run_findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/health.h"
#include "core/history.h"
#include "core/throttle_reasons.h"
#include "core/eventlog.h"
#include "core/counters.h"
#include "util/clock.h"
#include "util/strbuf.h"

/* The CSV flag of each counted anomaly (detect/gpu_rules.c writes these names), so the
 * exit summary and `vigil report` of the same run key them alike. TDP changes are
 * listed as power-limit changes instead. */
static const char *const anomaly_flags[GPU_ANOM_COUNT] = {
    [GPU_ANOM_FAN_SPIKE] = "FAN_SPIKE",
    [GPU_ANOM_FAN_INVERSION] = "TEMP_FAN_INV",
    [GPU_ANOM_SPURIOUS_THROTTLE] = "SPUR_THROT",
    [GPU_ANOM_POWER_BREACH] = "PWR+",
    /* not a CSV flag: the key of the TEMP_OVER_MAX events.log line's finding */
    [GPU_ANOM_OVER_MAX_TEMP] = "TEMP_OVER_MAX",
};

static void gpu_findings(const struct run_findings_in *in, unsigned slot, double up_s,
                         struct findings *out)
{
        const struct gpu_frame *g = &in->frame->gpus[slot];
        const struct gpu_stats *st = &in->frame->gpu_stats[slot];
        char src[FINDING_SRC_LEN];
        snprintf(src, sizeof(src), "gpu%u", g->index);
        findings_add_source(out, src);
        for (unsigned k = 0; k < GPU_ANOM_COUNT; k++)
                if (anomaly_flags[k] && st->anomalies[k])
                        findings_note(out, FINDING_ANOMALY, src, anomaly_flags[k], st->anomalies[k],
                                      NAN, NULL);
        if (st->failed_samples)
                findings_note(out, FINDING_NVML_FAILED, src, NULL, st->failed_samples, NAN,
                              g->ok ? NULL : g->error);
        for (unsigned b = 0; b < GPU_THROTTLE_BITS && up_s > 0; b++) {
                if (!(st->throttle_seconds[b] > 0))
                        continue;
                struct finding *fi =
                    findings_get(out, FINDING_THROTTLE, src, throttle_reasons[b].name);
                if (fi)
                        fi->value = fmin(1.0, st->throttle_seconds[b] / up_s);
        }
}

void run_findings_from(const struct run_findings_in *in, struct findings *out)
{
        const struct frame *f = in->frame;
        if (in->events)
                findings_copy(out, in->events);
        else
                findings_init(out);
        findings_add_source(out, "host");
        if (f->rpi.present)
                findings_add_source(out, "pi");
        double up_s = (double)(now_mono_ns() - f->self.started_mono_ns) / 1e9;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++)
                if (f->gpus[i].present)
                        gpu_findings(in, i, up_s, out);
        if (in->missed)
                findings_note(out, FINDING_MISSED_DEADLINE, "host", NULL, in->missed, NAN, NULL);
        const struct finding *w = findings_find(out, FINDING_WRITE_ERRORS, "host", NULL);
        if (f->self.write_errors && (!w || w->count < f->self.write_errors))
                findings_note(out, FINDING_WRITE_ERRORS, "host", NULL,
                              f->self.write_errors - (w ? w->count : 0), NAN, NULL);
        if (in->disk_paused)
                findings_note(out, FINDING_DISK_PAUSE, "host", NULL, 0, NAN, "still paused");
        out->running = true;
        findings_sort(out);
}

void run_findings_build(const struct vigil_ctx *ctx, uint64_t missed, struct findings *out)
{
        struct run_findings_in in = {.frame = ctx->frame,
                                     .extra = ctx->extra,
                                     .events = ctx->findings,
                                     .missed = missed,
                                     .disk_paused = ctx->disk_paused};
        run_findings_from(&in, out);
}

/* events.log tap: every line feeds the findings and, with --listen, becomes a
 * dashboard marker, placed on the monotonic clock (the history's time base) by its
 * age on the wall clock. */
static void events_tap(void *arg, int64_t real_ns, const char *text, size_t len)
{
        struct vigil_ctx *ctx = arg;
        if (ctx->findings)
                findings_feed_event(ctx->findings, (double)real_ns / 1e9, text, len);
        if (ctx->health)
                health_feed_event(ctx->health, (double)real_ns / 1e9, text, len);
        if (!ctx->history)
                return;
        int64_t mono = now_mono_ns() - (now_real_ns() - real_ns);
        history_add_marker(ctx->history, mono, text, len);
}

void run_findings_start(struct vigil_ctx *ctx, const struct vigil_options *opt)
{
        ctx->findings = malloc(sizeof(*ctx->findings));
        ctx->published_findings = malloc(sizeof(*ctx->published_findings));
        if (ctx->findings)
                findings_init(ctx->findings);
        if (ctx->published_findings)
                findings_init(ctx->published_findings);
        if (opt->listen[0])
                ctx->history = history_new(opt->interval_ns, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        if (!ctx->events && eventlog_open_none(&ctx->events) < 0)
                return;
        eventlog_set_tap(ctx->events, events_tap, ctx);
}

void run_findings_print(const struct vigil_ctx *ctx, uint64_t missed)
{
        struct findings *f = malloc(sizeof(*f));
        struct strbuf sb;
        if (!f || sb_init_heap(&sb, 4096, 256 * 1024) < 0) {
                free(f);
                return;
        }
        run_findings_build(ctx, missed, f);
        f->running = false; /* the run ends here */
        sb_putc(&sb, '\n');
        if (ctx->health) /* the verdict, then what happened, last */
                health_say_text(ctx->health, (double)now_real_ns() / 1e9, "  ", &sb);
        findings_text(f, "  ", &sb);
        fwrite(sb.buf, 1, sb.len, stdout);
        fflush(stdout);
        sb_free(&sb);
        free(f);
}

uint64_t vigil_published_extras(struct vigil_ctx *ctx, struct counters *extra,
                                struct findings *findings)
{
        pthread_mutex_lock(&ctx->pub_lock);
        uint64_t seq = ctx->published_seq;
        if (seq && extra)
                counters_copy(extra, ctx->published_extra, ctx->published->ngpus);
        if (seq && findings) {
                if (ctx->published_findings)
                        findings_copy(findings, ctx->published_findings);
                else
                        findings_init(findings);
        }
        pthread_mutex_unlock(&ctx->pub_lock);
        return seq;
}
