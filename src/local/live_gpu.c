/* SPDX-License-Identifier: Apache-2.0 */
/* The live view's GPU lines. See live_gpu.h. */
#include "local/live_gpu.h"

#include <string.h>

#include "core/throttle_reasons.h"

static void worst_reset(struct live_gpu_worst *w)
{
        memset(w, 0, sizeof(*w));
        w->temp_c = w->power_w = w->limit_w = w->clock_mhz = VAL_MISSING;
        w->enforced_w = w->temp_max_c = VAL_MISSING;
        for (unsigned i = 0; i < VIGIL_MAX_FANS; i++)
                w->fan_pct[i] = VAL_MISSING;
}

void live_gpu_reset(struct live_gpu *lg)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++)
                worst_reset(&lg->gpu[i]);
}

static double max_of(double acc, double v)
{
        return VAL_OK(v) && (!VAL_OK(acc) || v > acc) ? v : acc;
}

static double min_of(double acc, double v)
{
        return VAL_OK(v) && (!VAL_OK(acc) || v < acc) ? v : acc;
}

/* The kind of a flag: its text up to '(' or '+' ("TEMP_FAN_INV", "PWR"). */
static size_t flag_kind_len(const char *s, size_t n)
{
        size_t k = 0;
        while (k < n && s[k] != '(' && s[k] != '+')
                k++;
        return k;
}

static bool has_kind(const char *flags, const char *kind, size_t kn)
{
        for (const char *p = flags; *p;) {
                const char *end = strchr(p, '|');
                size_t n = end ? (size_t)(end - p) : strlen(p);
                if (flag_kind_len(p, n) == kn && !memcmp(p, kind, kn))
                        return true;
                p += n + (end ? 1 : 0);
        }
        return false;
}

/* Add the flags of one sample whose kind is not shown yet. */
static void merge_flags(struct live_gpu_worst *w, const char *flags)
{
        char had[sizeof(w->flags)];
        struct strbuf sb;
        memcpy(had, w->flags, sizeof(had));
        sb_init_fixed(&sb, w->flags, sizeof(w->flags));
        sb_puts(&sb, had);
        for (const char *p = flags; *p;) {
                const char *end = strchr(p, '|');
                size_t n = end ? (size_t)(end - p) : strlen(p);
                if (n && !has_kind(sb.buf, p, flag_kind_len(p, n))) {
                        if (sb.len)
                                sb_putc(&sb, '|');
                        sb_put(&sb, p, n);
                }
                p += n + (end ? 1 : 0);
        }
}

static void feed_one(struct live_gpu_worst *w, const struct gpu_frame *g)
{
        if (!g->ok) {
                w->failures++;
                memcpy(w->error, g->error, sizeof(w->error));
                return;
        }
        w->samples++;
        w->temp_c = max_of(w->temp_c, g->temp_c);
        w->power_w = max_of(w->power_w, g->power_w);
        w->clock_mhz = min_of(w->clock_mhz, g->gpu_clock_mhz);
        if (VAL_OK(g->power_limit_w))
                w->limit_w = g->power_limit_w;
        if (VAL_OK(g->enforced_limit_w))
                w->enforced_w = g->enforced_limit_w;
        if (VAL_OK(g->temp_max_c))
                w->temp_max_c = g->temp_max_c;
        w->nfans = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
        for (unsigned i = 0; i < w->nfans; i++)
                w->fan_pct[i] = g->fan_speed_pct[i];
        if (g->throttle_valid)
                w->throttle |= g->throttle_mask;
        merge_flags(w, g->flags);
}

void live_gpu_feed(struct live_gpu *lg, const struct frame *f)
{
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++)
                if (f->gpus[i].sampled)
                        feed_one(&lg->gpu[i], &f->gpus[i]);
}

static void cell(struct strbuf *sb, double v, int width, const char *unit)
{
        if (VAL_OK(v))
                sb_printf(sb, "%*.0f%s", width, v, unit);
        else
                sb_printf(sb, "%*s%s", width, "--", unit);
}

void live_gpu_power(struct strbuf *sb, const struct live_gpu_worst *w, int width)
{
        bool capped =
            VAL_OK(w->enforced_w) && VAL_OK(w->limit_w) && w->enforced_w < w->limit_w - 0.5;
        cell(sb, w->power_w, width, "/");
        cell(sb, VAL_OK(w->enforced_w) ? w->enforced_w : w->limit_w, 0, "W");
        if (capped)
                sb_printf(sb, " (limit %.0fW)", w->limit_w);
}

void live_gpu_over_max(struct strbuf *sb, const struct live_gpu_worst *w)
{
        if (VAL_OK(w->temp_c) && VAL_OK(w->temp_max_c) && w->temp_c > w->temp_max_c)
                sb_printf(sb, " TEMP_OVER_MAX(%.0fC>%.0fC)", w->temp_c, w->temp_max_c);
}

static void line(struct strbuf *sb, const struct live_gpu_worst *w, unsigned index)
{
        sb_printf(sb, "  gpu%-2u ", index);
        if (w->samples == 0) {
                if (w->failures)
                        sb_printf(sb, " NVML FAILED: %s (%u failed samples)\n", w->error,
                                  w->failures);
                else
                        sb_puts(sb, " -- (not sampled: backing off)\n");
                return;
        }
        cell(sb, w->temp_c, 4, "C ");
        live_gpu_power(sb, w, 5);
        sb_putc(sb, ' ');
        cell(sb, w->clock_mhz, 6, "MHz ");
        if (w->nfans)
                sb_puts(sb, " fans");
        for (unsigned i = 0; i < w->nfans; i++)
                cell(sb, w->fan_pct[i], 4, "%");
        sb_puts(sb, "  ");
        throttle_decode(sb, w->throttle);
        live_gpu_over_max(sb, w);
        if (w->flags[0])
                sb_printf(sb, "  %s", w->flags);
        if (w->failures)
                sb_printf(sb, "  NVML_FAILED x%u", w->failures);
        sb_putc(sb, '\n');
}

/* "         procs: 1 compute, 0 graphics: 4242 python3 8192MiB": the GPU's last process
 * list, its first four entries; nothing before a list was taken. */
static void procs_line(struct strbuf *sb, const struct gpu_proc_list *l)
{
        if (!l->valid)
                return;
        sb_printf(sb, "         procs: %u compute, %u graphics", l->count[GPU_PROC_COMPUTE],
                  l->count[GPU_PROC_GRAPHICS]);
        for (unsigned i = 0; i < l->n && i < 4; i++) {
                sb_printf(sb, "%s%u %s", i ? ", " : ": ", l->p[i].pid,
                          l->p[i].name[0] ? l->p[i].name : "?");
                if (VAL_OK(l->p[i].used_bytes))
                        sb_printf(sb, " %.0fMiB", l->p[i].used_bytes / (1024.0 * 1024.0));
        }
        if (l->n > 4)
                sb_puts(sb, ", ...");
        sb_putc(sb, '\n');
}

void live_gpu_lines(struct live_gpu *lg, const struct frame *f, struct strbuf *sb)
{
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                line(sb, &lg->gpu[i], f->gpus[i].index);
                procs_line(sb, &f->gpu_procs[i]);
                worst_reset(&lg->gpu[i]);
        }
}
