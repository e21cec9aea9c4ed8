/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard page. See dashboard.h.
 *
 *   <h1>vigil on pi-lobby</h1>
 *   <div class="health unhealthy"><b>Health: unhealthy</b><ul><li>..</li></ul></div>
 *   ... <table class="now">current values</table>
 *   <h2>Host</h2><div class="grid"><div class="chart"><svg>..</svg></div>...</div>
 *   <h2>Recent events</h2><table>...</table> */
#include "web/dashboard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/rpi_throttle.h"
#include "report/html_style.h"
#include "web/dashboard_chart.h"
#include "web/dashboard_events.h"
#include "web/dashboard_gpu.h"
#include "util/xml.h"

#define MB           (1.0 / 1048576.0)
#define EVENTS_SHOWN 30

static const char dash_style[] =
    "body{max-width:1240px;padding:0 12px}.grid{display:flex;flex-wrap:wrap;column-gap:16px}"
    ".chart{margin:.3em 0}table.now{width:auto}table.now th{text-align:left;padding:2px 10px "
    "2px 0;white-space:nowrap;vertical-align:top}"
    ".lost{background:#d62728;color:#fff;padding:.4em .8em;font-weight:bold}"
    ".bad{color:#d62728;font-weight:bold}form.day{display:inline}"
    ".legend{font-size:11px;color:#444;margin:0 0 .2em 8px;max-width:590px}"
    ".legend span.sw{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;"
    "vertical-align:middle}td.ev{overflow-wrap:anywhere}"
    "@media (max-width:640px){body{padding:0 4px}.chart svg{width:100%;height:auto}"
    "table.now th,table.now td{display:block}}"
    "div.health{border-left:6px solid #2ca02c;padding:.3em .8em;margin:.5em 0;background:#f4f9f4}"
    "div.health.degraded{border-color:#ff7f0e;background:#fff7ee}"
    "div.health.unhealthy{border-color:#d62728;background:#fdf0f0}"
    "div.health ul{margin:.2em 0;padding-left:1.2em}li.unhealthy{color:#d62728}"
    "li.degraded{color:#a15400}";

/* "3d 4h", "2h 05m", "4m 10s", "12s" */
static void put_duration(struct strbuf *out, double s)
{
        if (!(s >= 0 && s < 1e10)) {
                sb_puts(out, "&ndash;");
                return;
        }
        unsigned long long t = (unsigned long long)s;
        if (t >= 86400)
                sb_printf(out, "%llud %lluh", t / 86400, t % 86400 / 3600);
        else if (t >= 3600)
                sb_printf(out, "%lluh %02llum", t / 3600, t % 3600 / 60);
        else if (t >= 60)
                sb_printf(out, "%llum %02llus", t / 60, t % 60);
        else
                sb_printf(out, "%llus", t);
}

static void put_clock_time(struct strbuf *out, double t)
{
        char buf[32];
        struct tm tm;
        time_t tt = fabs(t) < 1e15 ? (time_t)floor(t) : 0;
        if (fabs(t) < 1e15 && localtime_r(&tt, &tm) && strftime(buf, sizeof(buf), "%H:%M:%S", &tm))
                sb_puts(out, buf);
        else
                sb_puts(out, "?");
}

static void health_item(void *arg, enum health_state st, const char *line)
{
        struct strbuf *out = arg;
        sb_printf(out, "<li class=\"%s\">", health_state_name(st));
        sb_xml_puts(out, line);
        sb_puts(out, "</li>");
}

/* The verdict's panel: the machine's state, then health_say()'s lines, unhealthy first. */
static void health_panel(struct strbuf *out, const struct health *hv, double now)
{
        const char *st = health_state_name(health_overall(hv));
        sb_printf(out,
                  "<div class=\"health %s\" id=\"health\"><b>Health: %s</b> "
                  "(<a href=\"/health\">/health</a>)<ul>",
                  st, st);
        health_say(hv, now, health_item, out);
        sb_puts(out, "</ul></div>\n");
}

static void header(struct strbuf *out, const struct history *h, const struct frame *f,
                   const struct dashboard_info *info)
{
        const char *host = info->hostname && info->hostname[0] ? info->hostname : "this host";
        sb_puts(out, "<h1>vigil on ");
        sb_xml_puts(out, host);
        sb_puts(out, "</h1>\n");
        if (info->health)
                health_panel(out, info->health, (double)time(NULL));
        sb_printf(out, "<p class=\"note\">vigil %s, running for ", VIGIL_VERSION);
        put_duration(out, f->self.started_mono_ns > 0
                              ? (double)(info->now_mono_ns - f->self.started_mono_ns) / 1e9
                              : NAN);
        sb_puts(out, "; system up ");
        put_duration(out, f->host.uptime_s);
        if (f->rpi.present && f->rpi.model[0]) {
                sb_puts(out, "; ");
                sb_xml_puts(out, f->rpi.model);
        }
        if (h)
                sb_printf(out,
                          ". Charts: the last %.0f minutes, one point per %.3g s (the worst "
                          "value of each period)",
                          (double)history_period_ns(h) * (double)history_capacity(h) / 60e9,
                          (double)history_period_ns(h) / 1e9);
        if (info->refresh_s)
                sb_printf(out, "; this page reloads every %u s", info->refresh_s);
        sb_puts(out, ". <a href=\"/metrics\">/metrics</a>");
        if (info->today && info->today[0]) {
                sb_puts(out, " &middot; <a class=\"report\" href=\"/report?day=");
                sb_xml_puts(out, info->today);
                sb_puts(out,
                        "\">today's report</a> &middot; <form class=\"day\" action=\"/report\">"
                        "<input type=\"date\" name=\"day\" required> <button>report of "
                        "that day</button></form>");
        }
        sb_puts(out, "</p>\n");
        if (info->finding && info->finding[0]) {
                sb_puts(out, "<p class=\"note postmortem\"><b>");
                sb_xml_puts(out, info->finding);
                sb_puts(out, "</b></p>\n");
        }
        if (info->findings)
                findings_html(info->findings, out);
}

static void now_row_begin(struct strbuf *out, const char *name)
{
        sb_puts(out, "<tr><th>");
        sb_xml_puts(out, name);
        sb_puts(out, "</th><td>");
}

static void now_host(struct strbuf *out, const struct frame *f)
{
        const struct host_frame *hf = &f->host;
        now_row_begin(out, "Host");
        sb_puts(out, "CPU ");
        dash_value(out, hf->cpu_total_pct, 1, "%");
        sb_puts(out, " &middot; memory available ");
        dash_value(out, hf->mem_avail_bytes * MB, 0, "MB");
        sb_puts(out, " &middot; temperature ");
        dash_value(out, hf->temp_c, 1, "&deg;C");
        sb_puts(out, " &middot; /dev/shm used ");
        dash_value(out, hf->shm_used_bytes * MB, 1, "MB");
        sb_puts(out, " &middot; load ");
        dash_value(out, hf->load1, 2, NULL);
        sb_puts(out, "</td></tr>\n");
        for (unsigned w = 0; w < f->nwatches && w < VIGIL_MAX_WATCHES; w++) {
                now_row_begin(out, f->watches[w].name);
                sb_puts(out, "processes ");
                dash_value(out, f->watches[w].count, 0, NULL);
                sb_puts(out, " &middot; PSS ");
                dash_value(out, f->watches[w].pss_bytes * MB, 1, "MB");
                sb_puts(out, "</td></tr>\n");
        }
}

static void now_rpi(struct strbuf *out, const struct rpi_frame *p)
{
        if (!p->present)
                return;
        now_row_begin(out, "Raspberry Pi");
        sb_puts(out, "temperature ");
        dash_value(out, p->temp_c, 1, "&deg;C");
        sb_puts(out, " &middot; ARM ");
        dash_value(out, p->arm_hz / 1e6, 0, "MHz");
        sb_puts(out, " &middot; core ");
        dash_value(out, p->volt_core_v, 4, "V");
        if (p->throttled_valid && p->throttled <= 0xffffffffu) {
                char hex[16], flags[256];
                uint32_t w = (uint32_t)p->throttled;
                rpi_throttle_hex(w, hex, sizeof(hex));
                rpi_throttle_flags(w, flags, sizeof(flags));
                sb_printf(out, " &middot; throttled <span class=\"%s\">%s", w & 0xf ? "bad" : "",
                          hex);
                if (flags[0]) {
                        sb_puts(out, " (");
                        sb_xml_puts(out, flags);
                        sb_putc(out, ')');
                }
                sb_puts(out, "</span>");
        }
        sb_puts(out, "</td></tr>\n");
}

static void now_table(struct strbuf *out, const struct frame *f)
{
        sb_puts(out, "<table class=\"now\">\n");
        now_host(out, f);
        now_rpi(out, &f->rpi);
        for (unsigned g = 0; g < f->ngpus && g < VIGIL_MAX_GPUS; g++)
                dash_gpu_now(out, f, g);
        sb_puts(out, "</table>\n");
}

static void host_group(struct dash *d)
{
        size_t nm = dash_markers(d, -1);
        struct dash_chart c = {
            .title = "CPU", .y_label = "%", .y_min = 0, .y_max = 100, .m = d->m, .nm = nm};
        sb_puts(d->out, "<h2>Host</h2>\n<div class=\"grid\">\n");
        c.s[c.ns++] = dash_series("cpu_total_pct", DS_HOST, 0, HH_CPU_PCT, 0);
        dash_draw(d, &c);
        c = (struct dash_chart){.title = "Memory available",
                                .y_label = "MB",
                                .y_zero = true,
                                .y_min = NAN,
                                .y_max = NAN,
                                .m = d->m,
                                .nm = nm};
        c.s[c.ns++] = dash_series("mem_avail_mb (lowest)", DS_HOST, 0, HH_MEM_AVAIL_BYTES, MB);
        dash_draw(d, &c);
        c = (struct dash_chart){.title = "Temperature",
                                .y_label = "\xC2\xB0"
                                           "C",
                                .y_min = NAN,
                                .y_max = NAN,
                                .m = d->m,
                                .nm = nm};
        c.s[c.ns++] = dash_series("temp_c", DS_HOST, 0, HH_TEMP_C, 0);
        dash_draw(d, &c);
        /* The tmpfs's size is the top of its axis. */
        double shm_total = d->f->host.shm_total_bytes * MB;
        bool sized = VAL_OK(shm_total) && shm_total > 0;
        c = (struct dash_chart){.title = "/dev/shm used",
                                .y_label = "MB",
                                .y_zero = true,
                                .y_min = sized ? 0 : NAN,
                                .y_max = sized ? shm_total : NAN,
                                .m = d->m,
                                .nm = nm};
        c.s[c.ns++] = dash_series("shm_used_mb", DS_HOST, 0, HH_SHM_USED_BYTES, MB);
        dash_draw(d, &c);
        sb_puts(d->out, "</div>\n");
}

static void process_group(struct dash *d)
{
        const struct frame *f = d->f;
        unsigned nw = history_nwatches(d->h);
        if (nw == 0)
                return;
        size_t nm = dash_markers(d, -1);
        struct dash_chart cnt = {.title = "Processes",
                                 .y_label = "count",
                                 .y_zero = true,
                                 .y_min = NAN,
                                 .y_max = NAN,
                                 .m = d->m,
                                 .nm = nm};
        struct dash_chart pss = {.title = "Processes PSS",
                                 .y_label = "MB",
                                 .y_zero = true,
                                 .y_min = NAN,
                                 .y_max = NAN,
                                 .m = d->m,
                                 .nm = nm};
        for (unsigned w = 0; w < nw && w < SVG_MAX_SERIES && w < VIGIL_MAX_WATCHES; w++) {
                const char *name = w < f->nwatches ? f->watches[w].name : "?";
                cnt.s[cnt.ns++] = dash_series(name, DS_WATCH, w, HW_PROCS, 0);
                pss.s[pss.ns++] = dash_series(name, DS_WATCH, w, HW_PSS_BYTES, MB);
        }
        sb_puts(d->out, "<h2>Processes</h2>\n<div class=\"grid\">\n");
        dash_draw(d, &cnt);
        dash_draw(d, &pss);
        sb_puts(d->out, "</div>\n");
}

/* Bands of the Pi's throttle conditions (bits 0-3 of the throttled word). */
static size_t rpi_bands(struct dash *d)
{
        size_t nb = 0;
        for (unsigned bit = 0; bit < 4; bit++) {
                const char *label = rpi_throttle_label(bit);
                snprintf(d->band_label[bit], sizeof(d->band_label[bit]), "Pi: %s",
                         label ? label : "?");
                for (size_t i = 0; i < d->n; i++) {
                        uint32_t w;
                        d->on[i] = history_rpi_throttled(d->h, i, &w) && (w >> bit & 1u);
                }
                nb = dash_spans(d, nb, bit, bit == 0 ? "#d62728" : svg_palette(bit + 3));
        }
        return nb;
}

static void rpi_group(struct dash *d)
{
        if (!d->f->rpi.present)
                return;
        size_t nm = dash_markers(d, -1);
        size_t nb = rpi_bands(d);
        struct dash_chart c = {.title = "Pi temperature",
                               .y_label = "\xC2\xB0"
                                          "C",
                               .y_min = NAN,
                               .y_max = NAN,
                               .m = d->m,
                               .nm = nm,
                               .b = d->b,
                               .nb = nb};
        sb_puts(d->out, "<h2>Raspberry Pi</h2>\n<div class=\"grid\">\n");
        c.s[c.ns++] = dash_series("soc_temp_c", DS_RPI, 0, HR_TEMP_C, 0);
        dash_draw(d, &c);
        c.title = "ARM clock (measured)";
        c.y_label = "MHz";
        c.y_zero = true;
        c.ns = 0;
        c.s[c.ns++] = dash_series("arm_mhz (lowest)", DS_RPI, 0, HR_ARM_HZ, 1e-6);
        dash_draw(d, &c);
        c.title = "Core voltage";
        c.y_label = "V";
        c.ns = 0;
        c.s[c.ns++] = dash_series("volt_core_v (lowest)", DS_RPI, 0, HR_VOLT_V, 0);
        dash_draw(d, &c);
        sb_puts(d->out, "</div>\n");
}

static void events_table(struct strbuf *out, const struct dash *d)
{
        size_t n = history_nmarkers(d->h);
        char buf[1024];
        struct strbuf line;
        if (n == 0)
                return;
        sb_puts(out, "<h2>Recent events</h2>\n<table class=\"events\">\n");
        for (size_t k = 0; k < n && k < EVENTS_SHOWN; k++) {
                int64_t mono;
                const char *text = history_marker(d->h, n - 1 - k, &mono);
                sb_puts(out, "<tr><td class=\"t\">");
                put_clock_time(out, dash_real_s(d, mono));
                sb_puts(out, "</td><td class=\"ev\" title=\"");
                sb_xml_puts(out, text);
                sb_puts(out, "\">");
                sb_init_fixed(&line, buf, sizeof(buf));
                dash_event_sentence(text, &line);
                sb_xml_escape(out, line.buf, line.len);
                sb_puts(out, "</td></tr>\n");
        }
        sb_puts(out, "</table>\n");
}

static int charts(struct strbuf *out, const struct history *h, const struct frame *f)
{
        struct dash d;
        if (dash_open(&d, out, h, f) < 0)
                return -ENOMEM;
        if (d.n == 0) {
                sb_printf(out,
                          "<p class=\"note\">Collecting: the charts begin after the first "
                          "period (%.3g s).</p>\n",
                          (double)history_period_ns(h) / 1e9);
        } else {
                host_group(&d);
                process_group(&d);
                rpi_group(&d);
                dash_gpu_overview(&d);
                for (unsigned g = 0; g < f->ngpus && g < VIGIL_MAX_GPUS; g++)
                        dash_gpu_group(&d, g);
        }
        events_table(out, &d);
        int r = d.err;
        dash_close(&d);
        return r;
}

int dashboard_render(struct strbuf *out, const struct history *h, const struct frame *f,
                     const struct dashboard_info *info)
{
        sb_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        if (info->refresh_s)
                sb_printf(out, "<meta http-equiv=\"refresh\" content=\"%u\">", info->refresh_s);
        sb_puts(out, "<title>vigil: ");
        sb_xml_puts(out, info->hostname && info->hostname[0] ? info->hostname : "dashboard");
        sb_printf(out, "</title><style>%s%s</style></head><body>\n", report_html_style, dash_style);
        header(out, h, f, info);
        now_table(out, f);
        int r = h ? charts(out, h, f) : 0;
        sb_puts(out, "</body></html>\n");
        if (r == -ENOMEM)
                return r;
        return out->overflow ? -ENOSPC : 0;
}
