/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's GPU group. See dashboard_gpu.h.
 *
 *   <h2>GPU 0: NVIDIA H100 80GB HBM3</h2><p class="lost">GPU LOST: ...</p>
 *   <div class="grid">temperature and fans, power, clocks, utilisation</div> */
#include "web/dashboard_gpu.h"

#include <stdio.h>

#include "core/throttle_reasons.h"
#include "util/fmt.h"
#include "util/xml.h"

#define LOST_KIND 0
#define MIB       (1.0 / 1048576.0) /* band_label[0]; reason bit b uses b + 1 */

static const char *const fan_names[VIGIL_MAX_FANS] = {"fan0", "fan1", "fan2", "fan3",
                                                      "fan4", "fan5", "fan6", "fan7"};

void dash_gpu_now(struct strbuf *out, const struct frame *f, unsigned g)
{
        const struct gpu_frame *gf = &f->gpus[g];
        if (!gf->present)
                return;
        sb_printf(out, "<tr><th>GPU %u</th><td>", gf->index);
        if (!gf->ok) {
                sb_puts(out, "<span class=\"bad\">LOST</span> ");
                sb_xml_puts(out, gf->error);
                sb_puts(out, "</td></tr>\n");
                return;
        }
        sb_xml_puts(out, gf->name);
        sb_puts(out, " &middot; ");
        dash_value(out, gf->temp_c, 0, "&deg;C");
        sb_puts(out, " &middot; ");
        dash_value(out, gf->power_w, 1, "W");
        /* Of the limit it runs under: the enforced one, and the configured one beside it
         * when the enforced one is lower (a cap from another limiter). */
        bool capped = VAL_OK(gf->enforced_limit_w) && VAL_OK(gf->power_limit_w) &&
                      gf->enforced_limit_w < gf->power_limit_w - 0.5;
        sb_puts(out, " of ");
        dash_value(out, capped ? gf->enforced_limit_w : gf->power_limit_w, 0, "W");
        if (capped) {
                sb_puts(out, " <span class=\"bad\">enforced</span> (limit ");
                dash_value(out, gf->power_limit_w, 0, "W");
                sb_puts(out, ")");
        }
        sb_puts(out, " &middot; util ");
        dash_value(out, gf->util_gpu_pct, 0, "%");
        for (unsigned k = 0; k < gf->nfans && k < VIGIL_MAX_FANS; k++) {
                sb_printf(out, " &middot; fan%u ", k);
                dash_value(out, gf->fan_speed_pct[k], 0, "%");
        }
        if (gf->flags[0]) {
                sb_puts(out, " &middot; <span class=\"bad\">");
                sb_xml_puts(out, gf->flags);
                sb_puts(out, "</span>");
        }
        sb_puts(out, "</td></tr>\n");
}

/* Lost spans, then the spans of each clock-event reason except GPU idle (on whenever
 * the GPU has nothing to do, it would cover every idle chart). */
static size_t gpu_bands(struct dash *d, unsigned g)
{
        snprintf(d->band_label[LOST_KIND], sizeof(d->band_label[LOST_KIND]),
                 "GPU LOST: NVML answered nothing");
        for (size_t i = 0; i < d->n; i++) {
                unsigned fl = history_gpu_flags(d->h, i, g);
                d->on[i] = (fl & HIST_GPU_SEEN) && (fl & HIST_GPU_FAILED);
        }
        size_t nb = dash_spans(d, 0, LOST_KIND, "#d62728");
        for (unsigned bit = 1; bit < GPU_THROTTLE_BITS && bit + 1 < DASH_BAND_KIND; bit++) {
                if (!throttle_reasons[bit].label)
                        continue;
                bool any = false;
                for (size_t i = 0; i < d->n; i++) {
                        d->on[i] = history_gpu_mask(d->h, i, g) >> bit & 1u;
                        any |= d->on[i];
                }
                if (!any)
                        continue;
                snprintf(d->band_label[bit + 1], sizeof(d->band_label[bit + 1]), "throttle: %s",
                         throttle_reasons[bit].label);
                nb = dash_spans(d, nb, bit + 1, svg_palette(bit + 3));
        }
        return nb;
}

/* The GPU's last process list, one row per process (the first VIGIL_GPU_PROCS_MAX). */
static void procs_table(struct strbuf *out, const struct gpu_proc_list *l)
{
        char ts[64];
        if (!l->valid)
                return;
        fmt_time_utc_iso(ts, sizeof(ts), l->taken_real_ns);
        sb_printf(out, "<p>Processes: %u compute, %u graphics (listed ", l->count[GPU_PROC_COMPUTE],
                  l->count[GPU_PROC_GRAPHICS]);
        sb_xml_puts(out, ts);
        sb_puts(out, ")</p>\n");
        if (l->n == 0)
                return;
        sb_puts(out, "<table class=\"procs\"><tr><th>PID</th><th>type</th><th>name</th>"
                     "<th>GPU memory</th><th>command</th></tr>\n");
        for (unsigned i = 0; i < l->n && i < VIGIL_GPU_PROCS_MAX; i++) {
                const struct gpu_proc *p = &l->p[i];
                sb_printf(out, "<tr><td>%u</td><td>%s</td><td>", p->pid,
                          gpu_proc_type_name((enum gpu_proc_type)p->type));
                sb_xml_puts(out, p->name);
                sb_puts(out, "</td><td>");
                dash_value(out, VAL_OK(p->used_bytes) ? p->used_bytes / (1024.0 * 1024.0) : NAN, 0,
                           " MiB");
                sb_puts(out, "</td><td>");
                sb_xml_puts(out, p->cmdline);
                sb_puts(out, "</td></tr>\n");
        }
        sb_puts(out, "</table>\n");
}

static void heading(struct dash *d, unsigned g)
{
        const struct gpu_frame *gf = &d->f->gpus[g];
        sb_printf(d->out, "<h2>GPU %u", gf->index);
        if (gf->name[0]) {
                sb_puts(d->out, ": ");
                sb_xml_puts(d->out, gf->name);
        }
        sb_puts(d->out, "</h2>\n");
        if (!gf->ok) {
                sb_puts(d->out, "<p class=\"lost\">GPU LOST: ");
                sb_xml_puts(d->out, gf->error[0] ? gf->error : "NVML answers nothing");
                sb_puts(d->out, "</p>\n");
        }
        procs_table(d->out, &d->f->gpu_procs[g]);
}

void dash_gpu_group(struct dash *d, unsigned g)
{
        if (!d->f->gpus[g].present)
                return;
        char title[64];
        unsigned idx = d->f->gpus[g].index;
        size_t nm = dash_markers(d, (int)g);
        size_t nb = gpu_bands(d, g);
        heading(d, g);
        sb_puts(d->out, "<div class=\"grid\">\n");
        snprintf(title, sizeof(title), "GPU %u temperature", idx);
        struct dash_chart c = {.title = title,
                               .y_label = "\xC2\xB0"
                                          "C",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .always = true,
                               .m = d->m,
                               .nm = nm,
                               .b = d->b,
                               .nb = nb};
        const struct gpu_frame *gf = &d->f->gpus[g];
        char slow[48], tmax[48], vtotal[48];
        c.s[c.ns++] = dash_series("gpu_temp", DS_GPU, g, HG_TEMP_C, 0);
        /* The driver's thresholds: where it slows the GPU down, and its maximum. */
        if (VAL_OK(gf->slowdown_temp_c) && gf->slowdown_temp_c > 0) {
                snprintf(slow, sizeof(slow),
                         "slowdown %.0f\xC2\xB0"
                         "C",
                         gf->slowdown_temp_c);
                c.s[c.ns++] = dash_level(slow, gf->slowdown_temp_c);
        }
        if (VAL_OK(gf->temp_max_c) && gf->temp_max_c > 0) {
                snprintf(tmax, sizeof(tmax),
                         "max %.0f\xC2\xB0"
                         "C",
                         gf->temp_max_c);
                c.s[c.ns++] = dash_level(tmax, gf->temp_max_c);
        }
        dash_draw(d, &c);
        /* The fans on an axis of their own (% of their maximum speed): one unit per
         * axis. A GPU without fans (passively cooled) has no fan chart. */
        snprintf(title, sizeof(title), "GPU %u fans", idx);
        c.y_label = "%";
        c.y_min = 0;
        c.y_max = 100;
        c.ns = 0;
        for (unsigned k = 0; k < history_nfans(d->h, g) && c.ns < SVG_MAX_SERIES; k++)
                c.s[c.ns++] = dash_series(fan_names[k], DS_FAN, g, k, 0);
        if (c.ns)
                dash_draw(d, &c);
        c.y_min = c.y_max = NAN;
        snprintf(title, sizeof(title), "GPU %u power", idx);
        c.y_label = "W";
        c.ns = 0;
        c.s[c.ns++] = dash_series("power_instant", DS_GPU, g, HG_POWER_W, 0);
        c.s[c.ns++] = dash_series("power_limit", DS_GPU, g, HG_POWER_LIMIT_W, 0);
        /* The limit the driver enforces (lower than the configured one under a power
         * brake, a board or thermal limit): what the draw runs against, a step line
         * from its kept changes; its legend says the value now. */
        char enforced[48] = "power_enforced_limit";
        double ew = d->f->gpu_stats[g].enforced_limit_w; /* the last one read */
        if (VAL_OK(ew) && ew > 0)
                snprintf(enforced, sizeof(enforced), "power_enforced_limit (now %.0fW)", ew);
        c.s[c.ns++] = dash_series(enforced, DS_ENFORCED, g, 0, 0);
        dash_draw(d, &c);
        snprintf(title, sizeof(title), "GPU %u clocks", idx);
        c.y_label = "MHz";
        c.ns = 0;
        c.s[c.ns++] = dash_series("gpu_clock (lowest)", DS_GPU, g, HG_GPU_CLOCK_MHZ, 0);
        c.s[c.ns++] = dash_series("mem_clock (lowest)", DS_GPU, g, HG_MEM_CLOCK_MHZ, 0);
        dash_draw(d, &c);
        snprintf(title, sizeof(title), "GPU %u utilisation", idx);
        c.y_label = "%";
        c.y_min = 0;
        c.y_max = 100;
        c.ns = 0;
        c.s[c.ns++] = dash_series("gpu_util", DS_GPU, g, HG_UTIL_PCT, 0);
        dash_draw(d, &c);
        snprintf(title, sizeof(title), "GPU %u memory (VRAM)", idx);
        c.y_label = "MiB";
        c.y_min = 0;
        c.y_max = NAN;
        c.always = false; /* drawn only where NVML reports VRAM */
        c.ns = 0;
        c.s[c.ns++] = dash_series("vram_used (highest)", DS_GPU, g, HG_VRAM_USED_B, MIB);
        if (VAL_OK(gf->vram_total_bytes) && gf->vram_total_bytes > 0) {
                snprintf(vtotal, sizeof(vtotal), "total %.0f MiB", gf->vram_total_bytes * MIB);
                c.s[c.ns++] = dash_level(vtotal, gf->vram_total_bytes * MIB);
        }
        dash_draw(d, &c);
        sb_puts(d->out, "</div>\n");
}

void dash_gpu_overview(struct dash *d)
{
        unsigned n = 0;
        for (unsigned g = 0; g < d->f->ngpus && g < VIGIL_MAX_GPUS; g++)
                n += d->f->gpus[g].present;
        if (n < 2)
                return;
        sb_printf(d->out,
                  "<h2>All %u GPUs</h2>\n<p class=\"note\">Temperature and power of "
                  "each GPU (each on its own axis), with its lost periods and throttle "
                  "reasons; the details follow.</p>\n<div class=\"grid small\">\n",
                  n);
        for (unsigned g = 0; g < d->f->ngpus && g < VIGIL_MAX_GPUS; g++) {
                const struct gpu_frame *gf = &d->f->gpus[g];
                if (!gf->present)
                        continue;
                char title[48];
                size_t nb = gpu_bands(d, g);
                /* Two charts, each on its own axis: °C and W never share one. */
                snprintf(title, sizeof(title), "GPU %u%s temperature", gf->index,
                         gf->ok ? "" : " (LOST)");
                struct dash_chart c = {.title = title,
                                       .y_label = "\xC2\xB0"
                                                  "C",
                                       .y_zero = true,
                                       .y_min = NAN,
                                       .y_max = NAN,
                                       .always = true,
                                       .width = 290,
                                       .height = 110,
                                       .b = d->b,
                                       .nb = nb};
                c.s[c.ns++] = dash_series("temp", DS_GPU, g, HG_TEMP_C, 0);
                dash_draw(d, &c);
                snprintf(title, sizeof(title), "GPU %u%s power", gf->index,
                         gf->ok ? "" : " (LOST)");
                c.y_label = "W";
                c.ns = 0;
                c.s[c.ns++] = dash_series("power", DS_GPU, g, HG_POWER_W, 0);
                dash_draw(d, &c);
        }
        sb_puts(d->out, "</div>\n");
}
