/* SPDX-License-Identifier: Apache-2.0 */
/* The exit summary's per-GPU part. See gpu_run.h. */
#include "core/gpu_run.h"

#include <math.h>

#include "core/throttle_reasons.h"
#include "util/hot.h"

void gpu_run_init(struct gpu_run *r)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                stat_acc_init(&r->temp_c[i]);
                stat_acc_init(&r->power_w[i]);
                stat_acc_init(&r->clock_mhz[i]);
        }
}

VIGIL_HOT void gpu_run_add(struct gpu_run *r, const struct frame *f)
{
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                if (!g->present || !g->sampled || !g->ok)
                        continue;
                stat_acc_add(&r->temp_c[i], g->temp_c);
                stat_acc_add(&r->power_w[i], g->power_w);
                stat_acc_add(&r->clock_mhz[i], g->gpu_clock_mhz);
        }
}

bool gpu_run_is_gpu_server(const struct frame *f)
{
        if (f->rpi.present)
                return false;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++)
                if (f->gpus[i].present)
                        return true;
        return false;
}

/* "    temperature      min     75.0C   avg     84.1C   max     91.0C", the host
 * summary's layout; "(no data)" without a value. */
static void stat_line(struct strbuf *out, const char *name, const struct stat_acc *s, int d,
                      const char *unit)
{
        if (s->n == 0) {
                sb_printf(out, "    %-16s (no data)\n", name);
                return;
        }
        sb_printf(out, "    %-16s min %8.*f%s   avg %8.*f%s   max %8.*f%s", name, d, s->min, unit,
                  d, stat_acc_mean(s), unit, d, s->max, unit);
}

static void limits(struct strbuf *out, const struct gpu_frame *g)
{
        if (!VAL_OK(g->power_limit_w))
                return;
        sb_printf(out, "   (limit %.0fW", g->power_limit_w);
        if (VAL_OK(g->enforced_limit_w) && g->enforced_limit_w < g->power_limit_w - 0.5)
                sb_printf(out, ", enforced %.0fW", g->enforced_limit_w);
        sb_putc(out, ')');
}

static void reasons(struct strbuf *out, const struct gpu_stats *st, double up_s)
{
        unsigned shown = 0;
        sb_printf(out, "    %-16s ", "clock events");
        for (unsigned b = 0; b < GPU_THROTTLE_BITS && up_s > 0; b++) {
                if (!(st->throttle_seconds[b] > 0))
                        continue;
                sb_printf(out, "%s%s %.1f%%", shown++ ? ", " : "", throttle_reasons[b].name,
                          fmin(100.0, 100.0 * st->throttle_seconds[b] / up_s));
        }
        sb_puts(out, shown ? " of the time\n" : "none\n");
}

static void xids(struct strbuf *out, const struct gpu_counters *c)
{
        sb_printf(out, "    %-16s ", "Xids");
        for (unsigned k = 0; k < c->nxids && k < COUNTERS_MAX_XIDS; k++)
                sb_printf(out, "%s%u x%llu", k ? ", " : "", (unsigned)c->xids[k].xid,
                          (unsigned long long)c->xids[k].count);
        if (c->xids_other)
                sb_printf(out, "%sothers x%llu", c->nxids ? ", " : "",
                          (unsigned long long)c->xids_other);
        sb_puts(out, c->nxids || c->xids_other ? "\n" : "none\n");
}

static void anomalies(struct strbuf *out, const struct gpu_stats *st)
{
        unsigned shown = 0;
        sb_printf(out, "    %-16s ", "anomalies");
        for (unsigned k = 0; k < GPU_ANOM_COUNT; k++)
                if (st->anomalies[k])
                        sb_printf(out, "%s%s %llu", shown++ ? ", " : "", gpu_anomaly_names[k],
                                  (unsigned long long)st->anomalies[k]);
        sb_puts(out, shown ? "\n" : "none\n");
}

void gpu_run_text(const struct gpu_run *r, const struct frame *f, const struct counters *x,
                  double up_s, struct strbuf *out)
{
        bool head = false;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                const struct gpu_stats *st = &f->gpu_stats[i];
                if (!g->present)
                        continue;
                if (!head)
                        sb_puts(out, "\n  GPUs over this run (min / avg / max of the samples):\n");
                head = true;
                sb_printf(out, "  gpu%u: %s, %llu samples, %llu failed\n", g->index, g->name,
                          (unsigned long long)st->samples, (unsigned long long)st->failed_samples);
                stat_line(out, "temperature", &r->temp_c[i], 1, "C");
                if (r->temp_c[i].n && VAL_OK(g->temp_max_c))
                        sb_printf(out, "   (max operating %.0fC)", g->temp_max_c);
                if (r->temp_c[i].n)
                        sb_putc(out, '\n');
                stat_line(out, "power", &r->power_w[i], 1, "W");
                if (r->power_w[i].n) {
                        limits(out, g);
                        sb_putc(out, '\n');
                }
                stat_line(out, "graphics clock", &r->clock_mhz[i], 0, "MHz");
                if (r->clock_mhz[i].n)
                        sb_putc(out, '\n');
                reasons(out, st, up_s);
                if (x)
                        xids(out, &x->gpus[i]);
                anomalies(out, st);
        }
}
