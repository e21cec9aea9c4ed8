/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's chart builder. See dashboard_chart.h.
 *
 *   <div class="chart"><svg ...>...<path d="M62 120L63 118..."><title>cpu %</title></path>
 *   <g><title>type=RPI_THROTTLE condition="under-voltage" state=set ...</title>...</g></svg></div> */
#include "web/dashboard_chart.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/event_kinds.h"
#include "util/xml.h"

#define BAND_KINDS_PER_GROUP 10 /* GPU: lost + 9 reason bits (idle left out); Pi: 4 */
#define MIN_WINDOW_RECORDS   10
#define LEGEND_CHAR_W        6.2 /* report/svg.c: average glyph width at font-size 11 */
#define FLAG_LABEL           "anomaly flags raised (the GPU CSV rows say which)"

double dash_real_s(const struct dash *d, int64_t mono_ns)
{
        return (double)(d->anchor_real + (mono_ns - d->anchor_mono)) / 1e9;
}

int dash_open(struct dash *d, struct strbuf *out, const struct history *h, const struct frame *f)
{
        memset(d, 0, sizeof(*d));
        d->out = out;
        d->h = h;
        d->f = f;
        d->n = history_count(h);
        if (!history_anchor(h, &d->anchor_mono, &d->anchor_real))
                d->n = 0;
        size_t n = d->n ? d->n : 1;
        d->mcap = HISTORY_MAX_MARKERS + n / 2 + 1;
        d->bcap = BAND_KINDS_PER_GROUP * (n / 2 + 1);
        d->x = malloc(n * sizeof(*d->x));
        d->y = malloc(SVG_MAX_SERIES * n * sizeof(*d->y));
        d->on = malloc(n * sizeof(*d->on));
        d->m = malloc(d->mcap * sizeof(*d->m));
        d->b = malloc(d->bcap * sizeof(*d->b));
        if (!d->x || !d->y || !d->on || !d->m || !d->b) {
                dash_close(d);
                return -ENOMEM;
        }
        for (size_t i = 0; i < d->n; i++)
                d->x[i] = dash_real_s(d, history_mono_ns(h, i));
        d->period_s = (double)history_period_ns(h) / 1e9;
        d->x1 = (double)d->anchor_real / 1e9;
        /* The last 15 minutes; until vigil has run that long, the time it has (at least
         * ten records), so the first minutes are not a sliver at the right edge. The
         * time it has starts at the first record's interval, or at an event before it
         * (vigil's START comes before the first record closes, a whole period before
         * when the machine is slow to schedule the first tick). */
        double first = d->n ? d->x[0] - d->period_s : d->x1;
        for (size_t i = 0; d->n && i < history_nmarkers(h); i++) {
                int64_t mono;
                history_marker(h, i, &mono);
                first = fmin(first, dash_real_s(d, mono));
        }
        d->x0 = fmax(d->x1 - d->period_s * (double)history_capacity(h),
                     fmin(first, d->x1 - MIN_WINDOW_RECORDS * d->period_s));
        return 0;
}

void dash_close(struct dash *d)
{
        free(d->x);
        free(d->y);
        free(d->on);
        free(d->m);
        free(d->b);
        d->x = d->y = NULL;
        d->on = NULL;
        d->m = NULL;
        d->b = NULL;
}

struct dash_series dash_series(const char *name, enum dash_src src, unsigned idx, unsigned field,
                               double scale)
{
        return (struct dash_series){
            .name = name, .src = src, .idx = idx, .field = field, .scale = scale};
}

struct dash_series dash_level(const char *name, double v)
{
        return (struct dash_series){.name = name, .src = DS_CONST, .scale = v};
}

static double value(const struct history *h, size_t i, const struct dash_series *s)
{
        double v;
        switch (s->src) {
        case DS_CONST:
                return s->scale;
        case DS_HOST:
                v = history_host(h, i, (enum hist_host)s->field);
                break;
        case DS_RPI:
                v = history_rpi(h, i, (enum hist_rpi)s->field);
                break;
        case DS_WATCH:
                v = history_watch(h, i, s->idx, (enum hist_watch)s->field);
                break;
        case DS_GPU:
                v = history_gpu(h, i, s->idx, (enum hist_gpu)s->field);
                break;
        case DS_FAN:
                v = history_gpu_fan(h, i, s->idx, s->field);
                break;
        case DS_ENFORCED:
                v = history_gpu_enforced(h, i, s->idx);
                break;
        default:
                v = NAN;
        }
        return s->scale != 0 ? v * s->scale : v;
}

/* True when every value of the first ns series in d->y is 0 or missing. */
static bool all_zero(const struct dash *d, size_t ns)
{
        for (size_t i = 0; i < ns * d->n; i++)
                if (isfinite(d->y[i]) && d->y[i] != 0)
                        return false;
        return true;
}

/* How many of the n series, from the first, fit in one legend line after title (the
 * geometry of report/svg.c's legend); at least one. */
static size_t legend_fit(const char *title, const struct dash_series *s, size_t n)
{
        double x = 8 + (double)strlen(title) * LEGEND_CHAR_W * 1.1 + 18;
        size_t k = 0;
        while (k < n && k < SVG_MAX_SERIES) {
                x += 16 + (double)strlen(s[k].name) * LEGEND_CHAR_W;
                if (k > 0 && x > DASH_CHART_W - 12)
                        break;
                x += 14;
                k++;
        }
        return k ? k : 1;
}

static void swatch(struct strbuf *out, const char *color, const char *label, bool line)
{
        sb_printf(out, "<span class=\"sw\" style=\"background:%s;%s\"></span>", color,
                  line ? "width:3px" : "opacity:.35");
        sb_xml_puts(out, label);
}

/* What the shaded bands and the vertical lines of chart c mean: each band label once,
 * each marker colour once. */
static void legend(struct dash *d, const struct dash_chart *c)
{
        static const struct {
                const char *color, *label;
        } marks[] = {{"#d62728", "event (hover for the line)"},
                     {"#2ca02c", "end of trouble"},
                     {"#9467bd", "anomaly flags raised"},
                     {"#7f7f7f", "vigil started or stopped"}};
        bool any = false;
        for (size_t i = 0; i < c->nb; i++) {
                bool seen = false;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = c->b[k].label == c->b[i].label;
                if (seen)
                        continue;
                sb_puts(d->out, any ? " " : "<div class=\"legend\">");
                any = true;
                swatch(d->out, c->b[i].color ? c->b[i].color : "#999999", c->b[i].label, false);
        }
        for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
                bool used = false;
                for (size_t i = 0; i < c->nm && !used; i++)
                        used = c->m[i].color && !strcmp(c->m[i].color, marks[k].color);
                if (!used)
                        continue;
                sb_puts(d->out, any ? " " : "<div class=\"legend\">");
                any = true;
                swatch(d->out, marks[k].color, marks[k].label, true);
        }
        if (any)
                sb_puts(d->out, "</div>");
}

/* One chart of series s[0..ns) under title. */
static void draw_part(struct dash *d, const struct dash_chart *c, const char *title,
                      const struct dash_series *s, size_t ns)
{
        struct svg_series ss[SVG_MAX_SERIES];
        bool any = false;
        for (size_t k = 0; k < ns; k++) {
                double *y = d->y + k * d->n;
                for (size_t i = 0; i < d->n; i++) {
                        y[i] = value(d->h, i, &s[k]);
                        any |= isfinite(y[i]);
                }
                ss[k] = (struct svg_series){.name = s[k].name, .x = d->x, .y = y, .n = d->n};
        }
        if (!any && !c->always)
                return;
        double y_min = c->y_min, y_max = c->y_max;
        if (c->y_zero && isnan(y_min) && isnan(y_max) && all_zero(d, ns)) {
                /* A flat zero (no process matched): 0..1, not -1..1. */
                y_min = 0;
                y_max = 1;
        }
        struct svg_chart_spec spec = {
            .title = title,
            .y_label = c->y_label,
            .width = c->width ? c->width : DASH_CHART_W,
            .height = c->height ? c->height : DASH_CHART_H,
            .series = ss,
            .nseries = ns,
            .markers = c->m,
            .nmarkers = c->nm,
            .bands = c->b,
            .nbands = c->nb,
            .x_min = d->x0,
            .x_max = d->x1,
            .y_min = y_min,
            .y_max = y_max,
            .y_zero = c->y_zero,
            .gap_s = 2.5 * d->period_s,
            .time_axis = SVG_TIME_LOCAL,
        };
        sb_puts(d->out, "<div class=\"chart\">");
        int r = svg_chart(d->out, &spec);
        if (r < 0 && !d->err)
                d->err = r;
        legend(d, c);
        sb_puts(d->out, "</div>\n");
}

void dash_draw(struct dash *d, const struct dash_chart *c)
{
        char more[96];
        snprintf(more, sizeof(more), "%s (cont.)", c->title);
        size_t ns = c->ns < SVG_MAX_SERIES ? c->ns : SVG_MAX_SERIES;
        for (size_t start = 0; start < ns;) {
                const char *title = start ? more : c->title;
                size_t k = legend_fit(title, c->s + start, ns - start);
                draw_part(d, c, title, c->s + start, k);
                start += k;
        }
}

/* The N of a "gpu=N" key in an events line, or -1. */
static int marker_gpu(const char *text)
{
        for (const char *p = strstr(text, "gpu="); p; p = strstr(p + 1, "gpu=")) {
                if (p != text && p[-1] != ' ')
                        continue;
                int g = 0, digits = 0;
                for (p += 4; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
                        g = g * 10 + (*p - '0');
                if (digits && digits < 4 && (*p == '\0' || *p == ' '))
                        return g;
                return -1;
        }
        return -1;
}

/* Grey for vigil's own start and stop, green for an end of trouble, red otherwise. */
static const char *marker_color(const char *text)
{
        static const char *const good[] = {"RECOVERED", "RESUMED", "state=cleared", "state=ok",
                                           "level=normal"};
        struct event_line l = {text, strlen(text)};
        const struct event_kind_desc *d = event_kind_of(&l);
        if (d && (d == event_kind(EV_START) || d == event_kind(EV_STOP)))
                return "#7f7f7f";
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
                if (strstr(text, good[i]))
                        return "#2ca02c";
        return "#d62728";
}

size_t dash_markers(struct dash *d, int gpu)
{
        size_t n = 0;
        for (size_t i = 0; i < history_nmarkers(d->h) && n < d->mcap; i++) {
                int64_t mono;
                const char *text = history_marker(d->h, i, &mono);
                int g = marker_gpu(text);
                if (g >= 0 && g != gpu)
                        continue;
                d->m[n++] = (struct svg_marker){
                    .x = dash_real_s(d, mono), .label = text, .color = marker_color(text)};
        }
        if (gpu < 0)
                return n;
        bool prev = false;
        for (size_t i = 0; i < d->n && n < d->mcap; i++) {
                bool flagged = history_gpu_flags(d->h, i, (unsigned)gpu) & HIST_GPU_FLAGGED;
                if (flagged && !prev)
                        d->m[n++] = (struct svg_marker){
                            .x = d->x[i], .label = FLAG_LABEL, .color = "#9467bd"};
                prev = flagged;
        }
        return n;
}

size_t dash_spans(struct dash *d, size_t nb, unsigned kind, const char *color)
{
        double px_s = (d->x1 - d->x0) / DASH_CHART_W;
        size_t first = nb;
        for (size_t i = 0; i < d->n && nb < d->bcap && kind < DASH_BAND_KIND; i++) {
                if (!d->on[i])
                        continue;
                double a = d->x[i] - d->period_s, z = d->x[i];
                if (nb > first && a - d->b[nb - 1].x1 < px_s) {
                        d->b[nb - 1].x1 = z;
                        continue;
                }
                d->b[nb++] = (struct svg_band){
                    .x0 = a, .x1 = z, .label = d->band_label[kind], .color = color};
        }
        return nb;
}

void dash_value(struct strbuf *out, double v, int decimals, const char *unit)
{
        if (!isfinite(v)) {
                sb_puts(out, "&ndash;");
                return;
        }
        sb_printf(out, "%.*f", decimals, v);
        if (unit && *unit) {
                sb_putc(out, ' ');
                sb_puts(out, unit);
        }
}
