/* SPDX-License-Identifier: Apache-2.0 */
/* SVG line charts. See svg.h.
 *
 * Output sketch:
 *   <svg ... width="760" height="220"><text>title</text> legend, grid, bands,
 *   <path d="M62 180.5L63 170.2..."/> per series, <g><title>..</title><line/></g> markers</svg> */
#include "report/svg.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg_axis.h"
#include "util/xml.h"

#define DEF_WIDTH       760
#define DEF_HEIGHT      220
#define MARGIN_L        62
#define MARGIN_R        12
#define MARGIN_T        28
#define MARGIN_B        22
#define CHAR_W          6.2 /* average glyph width at font-size 11 */
#define MARKER_MERGE_PX 2.0
#define MARKER_LABELS   8 /* labels listed in one merged marker's tooltip */

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *svg_palette(size_t i)
{
        return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

/* The drawing area and the scales from data to pixels. */
struct frame_geo {
        double left, top, pw, ph; /* plot area */
        double x0, x1, y0, y1;    /* data ranges */
};

static double px_x(const struct frame_geo *g, double x)
{
        return g->left + (x - g->x0) / (g->x1 - g->x0) * g->pw;
}

static double px_y(const struct frame_geo *g, double y)
{
        double v = g->top + g->ph - (y - g->y0) / (g->y1 - g->y0) * g->ph;
        if (v < g->top)
                return g->top;
        if (v > g->top + g->ph)
                return g->top + g->ph;
        return v;
}

/* A coordinate rounded to 0.1, without a trailing ".0". */
static void put_num(struct strbuf *out, double v)
{
        char tmp[32];
        size_t n = sizeof(tmp);
        long long t = llround(v * 10.0);
        bool neg = t < 0;
        unsigned long long u = neg ? 0ULL - (unsigned long long)t : (unsigned long long)t;
        unsigned frac = (unsigned)(u % 10);
        u /= 10;
        if (frac) {
                tmp[--n] = (char)('0' + frac);
                tmp[--n] = '.';
        }
        do {
                tmp[--n] = (char)('0' + u % 10);
                u /= 10;
        } while (u);
        if (neg)
                tmp[--n] = '-';
        sb_put(out, tmp + n, sizeof(tmp) - n);
}

/* ---- ranges and ticks ---- */

static void data_x_range(const struct svg_chart_spec *s, double *lo, double *hi)
{
        *lo = INFINITY;
        *hi = -INFINITY;
        for (size_t i = 0; i < s->nseries; i++) {
                const struct svg_series *se = &s->series[i];
                for (size_t k = 0; k < se->n; k++) {
                        if (!isfinite(se->x[k]) || !isfinite(se->y[k]))
                                continue;
                        if (se->x[k] < *lo)
                                *lo = se->x[k];
                        if (se->x[k] > *hi)
                                *hi = se->x[k];
                }
        }
}

static void data_y_range(const struct svg_chart_spec *s, double x0, double x1, double *lo,
                         double *hi)
{
        *lo = INFINITY;
        *hi = -INFINITY;
        for (size_t i = 0; i < s->nseries; i++) {
                const struct svg_series *se = &s->series[i];
                for (size_t k = 0; k < se->n; k++) {
                        double x = se->x[k], y = se->y[k];
                        if (!isfinite(x) || !isfinite(y) || x < x0 || x > x1)
                                continue;
                        if (y < *lo)
                                *lo = y;
                        if (y > *hi)
                                *hi = y;
                }
        }
}

static void resolve_y(const struct svg_chart_spec *s, struct frame_geo *g, double *step)
{
        double lo, hi;
        data_y_range(s, g->x0, g->x1, &lo, &hi);
        if (!isfinite(lo)) {
                lo = 0;
                hi = 1;
        }
        if (s->y_zero && lo > 0)
                lo = 0;
        if (s->y_zero && hi < 0)
                hi = 0;
        if (!isnan(s->y_min))
                lo = s->y_min;
        if (!isnan(s->y_max))
                hi = s->y_max;
        if (!isfinite(hi - lo)) {
                /* Values near the ends of double's range: keep the arithmetic finite. */
                lo = fmax(lo, -DBL_MAX / 4);
                hi = fmin(hi, DBL_MAX / 4);
        }
        if (!(hi > lo) && s->y_zero && lo == 0 && isnan(s->y_max)) {
                hi = 1; /* flat at zero (an unused /dev/shm): 0..1, not -1..1 */
        } else if (!(hi > lo)) {
                double pad = fabs(lo) > 1 ? fabs(lo) * 0.05 : 1;
                lo -= pad;
                hi += pad;
        }
        *step = svg_nice_step(hi - lo, 5);
        g->y0 = isnan(s->y_min) ? floor(lo / *step) * *step : lo;
        g->y1 = isnan(s->y_max) ? ceil(hi / *step) * *step : hi;
        if (!(g->y1 > g->y0))
                g->y1 = g->y0 + *step;
}

/* ---- drawing ---- */

static void draw_text(struct strbuf *out, double x, double y, const char *anchor, const char *extra,
                      const char *text)
{
        sb_puts(out, "<text x=\"");
        put_num(out, x);
        sb_puts(out, "\" y=\"");
        put_num(out, y);
        sb_puts(out, "\"");
        if (anchor)
                sb_printf(out, " text-anchor=\"%s\"", anchor);
        if (extra)
                sb_puts(out, extra);
        sb_putc(out, '>');
        sb_xml_puts(out, text);
        sb_puts(out, "</text>");
}

/* Append ` name="v"`. */
static void put_attr(struct strbuf *out, const char *name, double v)
{
        sb_putc(out, ' ');
        sb_puts(out, name);
        sb_puts(out, "=\"");
        put_num(out, v);
        sb_putc(out, '"');
}

static void draw_line(struct strbuf *out, double x1, double y1, double x2, double y2,
                      const char *color, const char *extra)
{
        sb_puts(out, "<line");
        put_attr(out, "x1", x1);
        put_attr(out, "x2", x2);
        put_attr(out, "y1", y1);
        put_attr(out, "y2", y2);
        sb_puts(out, " stroke=\"");
        sb_xml_puts(out, color);
        sb_puts(out, "\"");
        if (extra)
                sb_puts(out, extra);
        sb_puts(out, "/>");
}

/* ` x=".." y=".." width=".." height=".."` */
static void put_box(struct strbuf *out, double x, double y, double w, double h)
{
        put_attr(out, "x", x);
        put_attr(out, "y", y);
        put_attr(out, "width", w);
        put_attr(out, "height", h);
}

static void draw_y_axis(struct strbuf *out, const struct frame_geo *g, double step,
                        const char *y_label)
{
        double dec = step >= 1 ? 0 : ceil(-log10(step) - 1e-9);
        int decimals = dec > 12 ? 12 : (int)dec;
        double first = ceil(g->y0 / step - 1e-9) * step;
        for (int i = 0; i < 40; i++) {
                double v = first + i * step;
                if (v > g->y1 + step * 1e-9)
                        break;
                if (fabs(v) < step * 1e-9)
                        v = 0;
                double y = px_y(g, v);
                char label[48];
                snprintf(label, sizeof(label), "%.*f", decimals, v);
                draw_line(out, g->left, y, g->left + g->pw, y, "#e6e6e6", NULL);
                draw_text(out, g->left - 4, y + 4, "end", NULL, label);
        }
        if (y_label && *y_label) {
                char extra[96];
                double cy = g->top + g->ph / 2;
                snprintf(extra, sizeof(extra), " transform=\"rotate(-90 12 %.1f)\"", cy);
                draw_text(out, 12, cy, "middle", extra, y_label);
        }
}

static void draw_x_axis(struct strbuf *out, const struct frame_geo *g, enum svg_time_axis axis)
{
        double range = g->x1 - g->x0;
        /* As many labels as fit the width without touching: "HH:MM:SS" and a gap of
         * two characters each (a narrow chart gets fewer). */
        double label_w = 10 * CHAR_W;
        unsigned fit = g->pw / label_w >= 8 ? 8 : (unsigned)(g->pw / label_w);
        double step = svg_time_step_max(range, fit);
        double off = axis == SVG_TIME_LOCAL ? (double)svg_local_offset_s(g->x0) : -g->x0;
        double first = ceil((g->x0 + off) / step - 1e-9) * step - off;
        double bottom = g->top + g->ph;
        for (int i = 0; i < 40; i++) {
                double t = first + i * step;
                if (t > g->x1 + 1e-6)
                        break;
                double x = px_x(g, t);
                char label[40];
                svg_time_label(label, sizeof(label), t, step, axis, g->x0);
                draw_line(out, x, g->top, x, bottom, "#e6e6e6", NULL);
                /* A label at the right edge would be cut in half: end it at its tick. */
                bool edge = x + (double)strlen(label) * CHAR_W / 2 > g->left + g->pw + MARGIN_R;
                draw_text(out, x, bottom + 14, edge ? "end" : "middle", NULL, label);
        }
}

static void draw_bands(struct strbuf *out, const struct svg_chart_spec *s,
                       const struct frame_geo *g)
{
        for (size_t i = 0; i < s->nbands; i++) {
                const struct svg_band *b = &s->bands[i];
                double a = fmax(b->x0, g->x0), z = fmin(b->x1, g->x1);
                if (!(z >= a))
                        continue;
                double xa = px_x(g, a), w = px_x(g, z) - xa;
                sb_puts(out, "<rect");
                put_box(out, xa, g->top, w < 1 ? 1 : w, g->ph);
                sb_puts(out, " fill=\"");
                sb_xml_puts(out, b->color ? b->color : "#999999");
                sb_puts(out, "\" fill-opacity=\"0.18\"><title>");
                sb_xml_puts(out, b->label);
                sb_puts(out, "</title></rect>");
        }
}

/* One series' path, built column by column: per pixel column the minimum and the
 * maximum point are kept, in the order they occurred. */
struct path_state {
        struct strbuf *out;
        bool open; /* a subpath has begun */
        bool have; /* the column bucket holds points */
        long col;  /* pixel column of the bucket */
        double min_x, min_y, max_x, max_y;
        bool min_first;
        double last_x, last_y; /* last emitted point, in px */
        double prev_data_x;    /* data x of the previous valid point */
};

static void path_point(struct path_state *p, double x, double y)
{
        if (p->open && fabs(x - p->last_x) < 0.05 && fabs(y - p->last_y) < 0.05)
                return;
        sb_putc(p->out, p->open ? 'L' : 'M');
        put_num(p->out, x);
        sb_putc(p->out, ' ');
        put_num(p->out, y);
        p->open = true;
        p->last_x = x;
        p->last_y = y;
}

static void path_flush(struct path_state *p)
{
        if (!p->have)
                return;
        if (p->min_first) {
                path_point(p, p->min_x, p->min_y);
                path_point(p, p->max_x, p->max_y);
        } else {
                path_point(p, p->max_x, p->max_y);
                path_point(p, p->min_x, p->min_y);
        }
        p->have = false;
}

static void path_break(struct path_state *p)
{
        path_flush(p);
        p->open = false;
}

static void path_add(struct path_state *p, double x, double y)
{
        long col = (long)floor(x);
        if (p->have && col != p->col)
                path_flush(p);
        if (!p->have) {
                p->have = true;
                p->col = col;
                p->min_x = p->max_x = x;
                p->min_y = p->max_y = y;
                p->min_first = true;
                return;
        }
        /* Pixel y grows downwards: the data maximum is the smallest y. */
        if (y > p->min_y) {
                p->min_y = y;
                p->min_x = x;
                p->min_first = false;
        }
        if (y < p->max_y) {
                p->max_y = y;
                p->max_x = x;
                p->min_first = true;
        }
}

static void draw_series(struct strbuf *out, const struct svg_series *se, const char *color,
                        const struct svg_chart_spec *s, const struct frame_geo *g)
{
        struct path_state p = {.out = out, .prev_data_x = NAN};
        size_t mark = out->len;
        sb_puts(out,
                "<path fill=\"none\" stroke-width=\"1.3\" stroke-linejoin=\"round\" stroke=\"");
        sb_xml_puts(out, color);
        sb_puts(out, "\" d=\"");
        size_t body = out->len;
        for (size_t k = 0; k < se->n; k++) {
                double x = se->x[k], y = se->y[k];
                if (!isfinite(x) || !isfinite(y) || x < g->x0 || x > g->x1) {
                        path_break(&p);
                        continue;
                }
                if (s->gap_s > 0 && !isnan(p.prev_data_x) && x - p.prev_data_x > s->gap_s)
                        path_break(&p);
                p.prev_data_x = x;
                path_add(&p, px_x(g, x), px_y(g, y));
        }
        path_flush(&p);
        if (out->len == body) {
                /* Nothing to draw: leave no empty path behind. */
                out->len = mark;
                out->buf[mark] = '\0';
                return;
        }
        sb_puts(out, "\"><title>");
        sb_xml_puts(out, se->name);
        sb_puts(out, "</title></path>");
}

static void draw_legend(struct strbuf *out, const struct svg_chart_spec *s, const char **colors)
{
        double x = 8 + (s->title ? strlen(s->title) * CHAR_W * 1.1 : 0) + 18;
        for (size_t i = 0; i < s->nseries; i++) {
                const char *name = s->series[i].name ? s->series[i].name : "";
                sb_puts(out, "<rect x=\"");
                put_num(out, x);
                sb_puts(out, "\" y=\"9\" width=\"12\" height=\"3\" fill=\"");
                sb_xml_puts(out, colors[i]);
                sb_puts(out, "\"/>");
                draw_text(out, x + 16, 15, NULL, NULL, name);
                x += 16 + strlen(name) * CHAR_W + 14;
        }
}

struct marker_ref {
        double px;
        size_t idx;
};

static int marker_cmp(const void *a, const void *b)
{
        const struct marker_ref *l = a, *r = b;
        return (l->px > r->px) - (l->px < r->px);
}

static void draw_marker_group(struct strbuf *out, const struct svg_chart_spec *s,
                              const struct frame_geo *g, const struct marker_ref *refs, size_t n)
{
        const struct svg_marker *first = &s->markers[refs[0].idx];
        sb_puts(out, "<g><title>");
        for (size_t i = 0; i < n && i < MARKER_LABELS; i++) {
                if (i)
                        sb_putc(out, '\n');
                sb_xml_puts(out, s->markers[refs[i].idx].label);
        }
        if (n > MARKER_LABELS)
                sb_printf(out, "\n(+%zu more)", n - MARKER_LABELS);
        sb_puts(out, "</title>");
        double x = refs[0].px;
        const char *color = first->color ? first->color : "#d62728";
        draw_line(out, x, g->top, x, g->top + g->ph, color, " stroke-opacity=\"0.7\"");
        /* A wider transparent line makes the tooltip easy to reach. */
        draw_line(out, x, g->top, x, g->top + g->ph, "#000",
                  " stroke-width=\"6\" stroke-opacity=\"0\"");
        sb_puts(out, "</g>");
}

static int draw_markers(struct strbuf *out, const struct svg_chart_spec *s,
                        const struct frame_geo *g)
{
        if (s->nmarkers == 0)
                return 0;
        struct marker_ref *refs = calloc(s->nmarkers, sizeof(*refs));
        if (!refs)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < s->nmarkers; i++) {
                double x = s->markers[i].x;
                if (!isfinite(x) || x < g->x0 || x > g->x1)
                        continue;
                refs[n].px = px_x(g, x);
                refs[n].idx = i;
                n++;
        }
        qsort(refs, n, sizeof(*refs), marker_cmp);
        size_t start = 0;
        for (size_t i = 1; i <= n; i++) {
                if (i < n && refs[i].px - refs[start].px < MARKER_MERGE_PX)
                        continue;
                draw_marker_group(out, s, g, refs + start, i - start);
                start = i;
        }
        free(refs);
        return 0;
}

static int validate(const struct svg_chart_spec *s, int *w, int *h)
{
        *w = s->width ? s->width : DEF_WIDTH;
        *h = s->height ? s->height : DEF_HEIGHT;
        if (*w < 120 || *w > 8000 || *h < 80 || *h > 4000 || s->nseries > SVG_MAX_SERIES)
                return -EINVAL;
        if ((s->nseries && !s->series) || (s->nmarkers && !s->markers) || (s->nbands && !s->bands))
                return -EINVAL;
        for (size_t i = 0; i < s->nseries; i++) {
                if (s->series[i].n && (!s->series[i].x || !s->series[i].y))
                        return -EINVAL;
        }
        return 0;
}

static void resolve_x(const struct svg_chart_spec *s, struct frame_geo *g)
{
        double lo, hi;
        data_x_range(s, &lo, &hi);
        if (!isnan(s->x_min))
                lo = s->x_min;
        if (!isnan(s->x_max))
                hi = s->x_max;
        if (!isfinite(lo) || !isfinite(hi)) {
                lo = 0;
                hi = 60;
        }
        if (!(hi > lo)) {
                lo -= 30;
                hi += 30;
        }
        if (!isfinite(hi - lo) || !(hi > lo)) {
                lo = fmax(lo, -DBL_MAX / 4);
                hi = fmax(fmin(hi, DBL_MAX / 4), lo + fmax(60, fabs(lo) * 1e-9));
        }
        g->x0 = lo;
        g->x1 = hi;
}

int svg_chart(struct strbuf *out, const struct svg_chart_spec *s)
{
        int w, h;
        int r = validate(s, &w, &h);
        if (r < 0)
                return r;
        struct frame_geo g = {.left = MARGIN_L, .top = MARGIN_T};
        g.pw = w - MARGIN_L - MARGIN_R;
        g.ph = h - MARGIN_T - MARGIN_B;
        double ystep;
        resolve_x(s, &g);
        resolve_y(s, &g, &ystep);

        const char *colors[SVG_MAX_SERIES];
        for (size_t i = 0; i < s->nseries; i++)
                colors[i] = s->series[i].color ? s->series[i].color : svg_palette(i);

        sb_printf(out,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">",
                  w, h, w, h);
        draw_text(out, 8, 16, NULL, " font-weight=\"bold\"", s->title);
        draw_legend(out, s, colors);
        draw_y_axis(out, &g, ystep, s->y_label);
        draw_x_axis(out, &g, s->time_axis);
        draw_bands(out, s, &g);
        bool any = false;
        for (size_t i = 0; i < s->nseries; i++) {
                size_t before = out->len;
                draw_series(out, &s->series[i], colors[i], s, &g);
                any |= out->len != before;
        }
        if (!any)
                draw_text(out, g.left + g.pw / 2, g.top + g.ph / 2, "middle", " fill=\"#888\"",
                          "no data");
        r = draw_markers(out, s, &g);
        sb_puts(out, "<rect fill=\"none\" stroke=\"#999\"");
        put_box(out, g.left, g.top, g.pw, g.ph);
        sb_puts(out, "/></svg>\n");
        if (r < 0)
                return r;
        return out->overflow ? -ENOSPC : 0;
}
