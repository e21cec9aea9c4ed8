/* SPDX-License-Identifier: Apache-2.0 */
/* `vigil report --html`: one self-contained page (inline CSS and SVG, no script, no
 * external asset) with the charts of the period, the summaries and the events. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/findings.h"
#include "encode/gpu_columns.h"
#include "report/html_marks.h"
#include "report/html_style.h"
#include "report/report_data.h"
#include "report/svg.h"
#include "util/xml.h"

#define HTML_MAX    (128u << 20)
#define CHART_W     960
#define CHART_H     230
#define MAX_MARKERS (HOST_ACC_MAX_CHANGES + EVENTS_MAX_LINES)

/* Chart data built from one series: the arrays live as long as the chart spec. */
struct chart_series {
        double *x, *y;
        size_t n;
};

static int series_points(const struct stat_series *s, struct chart_series *out)
{
        out->n = 0;
        out->x = out->y = NULL;
        if (!s->p || s->n == 0)
                return 0;
        size_t cap = 3 * s->n + 3;
        out->x = malloc(2 * cap * sizeof(double));
        if (!out->x)
                return -ENOMEM;
        out->y = out->x + cap;
        out->n = stat_series_chart(s, out->x, out->y, cap);
        return 0;
}

static void local_time(char *buf, size_t cap, double t)
{
        struct tm tm;
        time_t tt = fabs(t) < 1e15 ? (time_t)floor(t) : 0;
        if (!(fabs(t) < 1e15) || !localtime_r(&tt, &tm) ||
            strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, cap, "?");
}

/* One chart of up to SVG_MAX_SERIES series from the given stat series. */
struct chart_req {
        const char *title, *y_label;
        const char *names[SVG_MAX_SERIES];
        const struct stat_series *src[SVG_MAX_SERIES];
        size_t n;
        bool y_zero;
        double y_min, y_max;
        double x_min, x_max; /* the section's period */
        const struct svg_marker *markers;
        size_t nmarkers;
        const struct svg_band *bands;
        size_t nbands;
};

static void chart(struct strbuf *out, const struct chart_req *q)
{
        struct chart_series cs[SVG_MAX_SERIES] = {0};
        struct svg_series ss[SVG_MAX_SERIES];
        size_t k = 0;
        bool any = false;
        for (size_t i = 0; i < q->n && k < SVG_MAX_SERIES; i++) {
                if (series_points(q->src[i], &cs[k]) < 0)
                        break;
                if (cs[k].n == 0)
                        continue;
                ss[k] = (struct svg_series){
                    .name = q->names[i], .x = cs[k].x, .y = cs[k].y, .n = cs[k].n};
                any = true;
                k++;
        }
        if (any) {
                struct svg_chart_spec spec = {
                    .title = q->title,
                    .y_label = q->y_label,
                    .width = CHART_W,
                    .height = CHART_H,
                    .series = ss,
                    .nseries = k,
                    .markers = q->markers,
                    .nmarkers = q->nmarkers,
                    .bands = q->bands,
                    .nbands = q->nbands,
                    .x_min = q->x_min,
                    .x_max = q->x_max,
                    .y_min = q->y_min,
                    .y_max = q->y_max,
                    .y_zero = q->y_zero,
                };
                sb_puts(out, "<div class=\"chart\">");
                svg_chart(out, &spec);
                html_legend(out, q->bands, q->nbands, q->markers, q->nmarkers);
                sb_puts(out, "</div>\n");
        }
        for (size_t i = 0; i < SVG_MAX_SERIES; i++)
                free(cs[i].x);
}

static void chart_in(struct strbuf *out, struct chart_req *q, double x0, double x1)
{
        q->x_min = x0;
        q->x_max = x1;
        chart(out, q);
}

static void req_add(struct chart_req *q, const char *name, const struct stat_series *s)
{
        if (q->n < SVG_MAX_SERIES) {
                q->names[q->n] = name;
                q->src[q->n++] = s;
        }
}

/* A host field's series, named as its column. */
static void req_host(struct chart_req *q, const struct host_acc *a, enum host_col f)
{
        req_add(q, host_col_name(f), &a->series[f]);
}

/* A GPU field's series, named as its column. */
static void req_gpu(struct chart_req *q, const struct gpu_acc *a, enum gpu_field f)
{
        req_add(q, gpu_field_name(f), &a->series[f]);
}

/* Markers: host throttle-flag changes (red) and events.log lines (orange). */
static size_t host_markers(const struct report_data *d, struct svg_marker *m, char (*lab)[200])
{
        size_t n = 0;
        const struct host_acc *a = &d->host;
        for (size_t i = 0; a->changes && i < a->nchanges && n < MAX_MARKERS; i++, n++) {
                snprintf(lab[n], sizeof(lab[n]), "throttle flags: %s",
                         a->changes[i].flags[0] ? a->changes[i].flags : "none");
                m[n] = (struct svg_marker){.x = a->changes[i].t, .label = lab[n]};
        }
        for (size_t i = 0; d->have_events && i < d->events.n && n < MAX_MARKERS; i++, n++) {
                const struct event_line *e = events_get(&d->events, i);
                m[n] = (struct svg_marker){.x = e->t, .label = e->text, .color = "#ff7f0e"};
        }
        return n;
}

/* A host chart with the Pi's throttle bands. */
static void host_chart(struct strbuf *out, struct chart_req *q, double x0, double x1,
                       const struct svg_band *b, size_t nb)
{
        q->bands = b;
        q->nbands = nb;
        chart_in(out, q, x0, x1);
}

static void host_section(struct strbuf *out, const struct report_data *d)
{
        const struct host_acc *a = &d->host;
        struct svg_marker *m = calloc(MAX_MARKERS, sizeof(*m));
        char(*lab)[200] = calloc(MAX_MARKERS, sizeof(*lab));
        size_t nm = m && lab ? host_markers(d, m, lab) : 0;
        double x0 = a->first_t, x1 = a->last_t;
        struct svg_band *pb = calloc(HOST_ACC_MAX_CHANGES * 4, sizeof(*pb));
        char(*plab)[HTML_BAND_LABEL] = calloc(HOST_ACC_MAX_CHANGES * 4, sizeof(*plab));
        size_t npb = pb && plab ? html_pi_bands(a, pb, plab, HOST_ACC_MAX_CHANGES * 4) : 0;
        sb_puts(out, "<h2>Host</h2>\n");
        struct chart_req q = {
            .title = "CPU", .y_label = "%", .y_min = 0, .y_max = 100, .markers = m, .nmarkers = nm};
        req_host(&q, a, HC_CPU_TOTAL);
        host_chart(out, &q, x0, x1, pb, npb);
        q = (struct chart_req){.title = "Temperature",
                               .y_label = "\xC2\xB0"
                                          "C",
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_TEMP);
        host_chart(out, &q, x0, x1, pb, npb);
        q = (struct chart_req){.title = "Memory available",
                               .y_label = "MB",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_MEM_AVAIL);
        host_chart(out, &q, x0, x1, pb, npb);
        /* The tmpfs's size is the top of its axis, when the log has it. */
        double shm_total = a->acc[HC_SHM_TOTAL].max;
        q = (struct chart_req){.title = "/dev/shm used",
                               .y_label = "MB",
                               .y_zero = true,
                               .y_min = isfinite(shm_total) && shm_total > 0 ? 0 : NAN,
                               .y_max = isfinite(shm_total) && shm_total > 0 ? shm_total : NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_SHM_USED);
        host_chart(out, &q, x0, x1, pb, npb);
        q = (struct chart_req){.title = "Player and Chromium PSS",
                               .y_label = "MB",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_PLAYER_PSS);
        req_host(&q, a, HC_CHROMIUM_PSS);
        host_chart(out, &q, x0, x1, pb, npb);
        q = (struct chart_req){.title = "Chromium processes",
                               .y_label = "count",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_CHROMIUM_PROCS);
        host_chart(out, &q, x0, x1, pb, npb);
        if (d->watches.n > 0) {
                /* the watches with columns of their own: PSS, one line each */
                q = (struct chart_req){.title = "Other watches: PSS",
                                       .y_label = "MB",
                                       .y_zero = true,
                                       .y_min = NAN,
                                       .y_max = NAN,
                                       .markers = m,
                                       .nmarkers = nm};
                for (unsigned w = 0; w < d->watches.n; w++)
                        req_add(&q, d->watches.w[w].name, &d->watches.w[w].pss);
                chart_in(out, &q, x0, x1);
        }
        q = (struct chart_req){.title = "Clocks",
                               .y_label = "MHz",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm};
        req_host(&q, a, HC_ARM);
        req_host(&q, a, HC_CORE);
        req_host(&q, a, HC_V3D);
        req_host(&q, a, HC_ARM_CFG);
        host_chart(out, &q, x0, x1, pb, npb);
        free(m);
        free(lab);
        free(pb);
        free(plab);
        sb_puts(out, "<pre>");
        struct strbuf text;
        if (sb_init_heap(&text, 8192, 1 << 20) == 0) {
                host_acc_text(a, &text);
                watch_acc_text(&d->watches, &text);
                report_text_files(d, "host", &text);
                sb_xml_escape(out, text.buf, text.len);
                sb_free(&text);
        }
        sb_puts(out, "</pre>\n");
}

/* Throttle spans of every reason, neighbours closer than a pixel merged. */
static size_t gpu_bands(const struct gpu_acc *a, struct svg_band *out, char (*lab)[64], size_t cap)
{
        double px_s = (a->last_t - a->first_t) / CHART_W;
        size_t n = 0;
        for (unsigned r = 0; r < a->nreasons; r++) {
                size_t first = n;
                struct gpu_band open;
                for (size_t i = 0; i <= a->nbands && n < cap; i++) {
                        struct gpu_band b;
                        if (i < a->nbands)
                                b = a->bands[i];
                        else if (gpu_acc_open_band(a, r, &open))
                                b = open;
                        else
                                break;
                        if (b.reason != r)
                                continue;
                        if (n > first && b.t0 - out[n - 1].x1 < px_s) {
                                out[n - 1].x1 = b.t1;
                                continue;
                        }
                        snprintf(lab[n], sizeof(lab[n]), "throttle: %s", a->reason_name[r]);
                        out[n] = (struct svg_band){
                            .x0 = b.t0, .x1 = b.t1, .label = lab[n], .color = svg_palette(r + 3)};
                        n++;
                }
        }
        return n;
}

static void gpu_section(struct strbuf *out, const struct report_data *d, const struct gpu_acc *a)
{
        size_t bcap = GPU_ACC_MAX_BANDS + GPU_ACC_MAX_REASONS;
        struct svg_band *bands = calloc(bcap, sizeof(*bands));
        char(*blab)[64] = calloc(bcap, sizeof(*blab));
        size_t nev = d->have_events ? d->events.n : 0;
        struct svg_marker *m = calloc(HTML_MARK_SLOTS + nev + 1, sizeof(*m));
        char(*mlab)[HTML_MARK_LABEL] = calloc(HTML_MARK_SLOTS, sizeof(*mlab));
        size_t nb = bands && blab ? gpu_bands(a, bands, blab, bcap) : 0;
        /* Anomalies counted per stretch of the chart, not one line each. */
        size_t nm = m && mlab ? html_counted_marks(a, a->first_t, a->last_t, m, mlab) : 0;
        for (size_t i = 0; m && i < nev; i++) {
                const struct event_line *e = events_get(&d->events, i);
                m[nm++] = (struct svg_marker){.x = e->t, .label = e->text, .color = "#ff7f0e"};
        }
        char title[96], names[GPU_ACC_MAX_FANS][24];
        double x0 = a->first_t, x1 = a->last_t;
        sb_puts(out, "<h2>GPU ");
        sb_xml_puts(out, a->name);
        sb_puts(out, "</h2>\n");
        snprintf(title, sizeof(title), "%s temperature", a->name);
        struct chart_req q = {.title = title,
                              .y_label = "\xC2\xB0"
                                         "C",
                              .y_zero = true,
                              .y_min = NAN,
                              .y_max = NAN,
                              .markers = m,
                              .nmarkers = nm,
                              .bands = bands,
                              .nbands = nb};
        req_gpu(&q, a, GPU_F_TEMP);
        chart_in(out, &q, x0, x1);
        /* The fans on an axis of their own: one unit per axis (drawn when the log has
         * fan columns with values). */
        snprintf(title, sizeof(title), "%s fans", a->name);
        q = (struct chart_req){.title = title,
                               .y_label = "%",
                               .y_min = 0,
                               .y_max = 100,
                               .markers = m,
                               .nmarkers = nm,
                               .bands = bands,
                               .nbands = nb};
        for (unsigned i = 0; i < a->nfans; i++) {
                snprintf(names[i], sizeof(names[i]), GPU_COL_FAN_PREFIX "%u%s", i,
                         GPU_COLUMN_NAME(GC_PER_FAN, fan_speed_pct));
                req_add(&q, names[i], &a->fan_series[i]);
        }
        chart_in(out, &q, x0, x1);
        snprintf(title, sizeof(title), "%s power", a->name);
        q = (struct chart_req){.title = title,
                               .y_label = "W",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm,
                               .bands = bands,
                               .nbands = nb};
        req_gpu(&q, a, GPU_F_POWER);
        req_gpu(&q, a, GPU_F_POWER_LIMIT);
        chart_in(out, &q, x0, x1);
        snprintf(title, sizeof(title), "%s clocks", a->name);
        q = (struct chart_req){.title = title,
                               .y_label = "MHz",
                               .y_zero = true,
                               .y_min = NAN,
                               .y_max = NAN,
                               .markers = m,
                               .nmarkers = nm,
                               .bands = bands,
                               .nbands = nb};
        req_gpu(&q, a, GPU_F_GPU_CLOCK);
        req_gpu(&q, a, GPU_F_MEM_CLOCK);
        chart_in(out, &q, x0, x1);
        snprintf(title, sizeof(title), "%s utilisation", a->name);
        q = (struct chart_req){
            .title = title, .y_label = "%", .y_min = 0, .y_max = 100, .markers = m, .nmarkers = nm};
        req_gpu(&q, a, GPU_F_GPU_UTIL);
        chart_in(out, &q, x0, x1);
        free(bands);
        free(blab);
        free(m);
        free(mlab);
        sb_puts(out, "<pre>");
        struct strbuf text;
        if (sb_init_heap(&text, 8192, 1 << 20) == 0) {
                gpu_acc_text(a, &text);
                report_text_files(d, a->name, &text);
                sb_xml_escape(out, text.buf, text.len);
                sb_free(&text);
        }
        sb_puts(out, "</pre>\n");
}

static void events_section(struct strbuf *out, const struct report_data *d)
{
        if (!d->have_events)
                return;
        const struct event_list *l = &d->events;
        sb_puts(out, "<h2>Events</h2>\n");
        if (l->n < l->in_range)
                sb_printf(out, "<p class=\"note\">The last %zu of %llu events of the period.</p>\n",
                          l->n, (unsigned long long)l->in_range);
        if (l->n == 0) {
                sb_puts(out, "<p>No event in this period.</p>\n");
                return;
        }
        sb_puts(out, "<table>\n");
        for (size_t i = 0; i < l->n; i++) {
                const struct event_line *e = events_get(l, i);
                const char *sp = strchr(e->text, ' ');
                size_t tl = sp ? (size_t)(sp - e->text) : strlen(e->text);
                sb_puts(out, "<tr><td class=\"t\">");
                sb_xml_escape(out, e->text, tl);
                sb_puts(out, "</td><td class=\"x\">");
                sb_xml_puts(out, sp ? sp + 1 : "");
                sb_puts(out, "</td></tr>\n");
        }
        sb_puts(out, "</table>\n");
}

void report_html_build(const struct report_data *d, struct strbuf *out)
{
        char from[32], to[32];
        local_time(from, sizeof(from), d->t0);
        local_time(to, sizeof(to), d->t1);
        sb_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<title>vigil report ");
        sb_xml_puts(out, from);
        sb_printf(out, "</title><style>%s</style></head><body>\n<h1>vigil report</h1>\n",
                  report_html_style);
        sb_printf(out, "<p>%s &rarr; %s (%.1f h), %zu files.</p>\n", from, to,
                  isfinite(d->t1 - d->t0) ? (d->t1 - d->t0) / 3600 : 0.0, d->nfiles);
        sb_puts(out, "<p>Each chart draws, per pixel column, the lowest and the highest value of "
                     "the samples it covers, so a spike of one sample stays visible whatever "
                     "the period.</p>\n");
        findings_html(&d->findings, out);
        if (d->have_host)
                host_section(out, d);
        for (size_t g = 0; g < d->ngpus; g++)
                gpu_section(out, d, &d->gpus[g]);
        events_section(out, d);
        sb_puts(out, "</body></html>\n");
}

static int write_all(int fd, const char *p, size_t n)
{
        while (n) {
                ssize_t w = write(fd, p, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                p += w;
                n -= (size_t)w;
        }
        return 0;
}

int report_html_write(const struct report_data *d, const char *path)
{
        struct strbuf out;
        int ret = sb_init_heap(&out, 1 << 20, HTML_MAX);
        if (ret < 0)
                return ret;
        report_html_build(d, &out);
        if (out.overflow) {
                sb_free(&out);
                return -EFBIG;
        }
        char tmp[4096];
        int n = snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
        if (n < 0 || (size_t)n >= sizeof(tmp)) {
                sb_free(&out);
                return -ENAMETOOLONG;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                ret = -errno;
                goto out_free;
        }
        ret = write_all(fd, out.buf, out.len);
        if (close(fd) < 0 && ret == 0)
                ret = -errno;
        if (ret == 0 && rename(tmp, path) < 0)
                ret = -errno;
        if (ret < 0)
                unlink(tmp);
out_free:
        sb_free(&out);
        return ret;
}
