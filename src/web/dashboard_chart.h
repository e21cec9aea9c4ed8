/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's chart builder (internal to web/dashboard*.c): series taken from the
 * history, event markers, and bands of time where a condition held. */
#ifndef VIGIL_WEB_DASHBOARD_CHART_H
#define VIGIL_WEB_DASHBOARD_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "core/frame.h"
#include "core/history.h"
#include "report/svg.h"
#include "metrics/metrics.h"
#include "util/strbuf.h"

#define DASH_CHART_W   600
#define DASH_CHART_H   200
#define DASH_BAND_KIND 16 /* distinct band labels of one chart group */

/* Where a series' values come from. */
enum dash_src {
        DS_HOST,
        DS_RPI,
        DS_WATCH,
        DS_GPU,
        DS_FAN,
        DS_ENFORCED, /* GPU idx's enforced power limit (history_gpu_enforced) */
        DS_CONST     /* a level: scale */
};

struct dash_series {
        const char *name; /* legend; owned by the caller */
        enum dash_src src;
        unsigned idx;   /* watch or GPU */
        unsigned field; /* enum hist_*, or the fan */
        double scale;   /* value multiplier; 0: 1 */
};

struct dash_chart {
        const char *title, *y_label;
        struct dash_series s[SVG_MAX_SERIES];
        size_t ns;
        double y_min, y_max; /* NAN: from the data */
        bool y_zero;
        bool always;       /* drawn even without data ("no data") */
        int width, height; /* px; 0: DASH_CHART_W x DASH_CHART_H */
        const struct svg_marker *m;
        size_t nm;
        const struct svg_band *b;
        size_t nb;
};

/* One page's render state and scratch memory. */
struct dash {
        struct strbuf *out;
        const struct history *h;
        const struct frame *f;
        size_t n;        /* records */
        double *x;       /* n record times, Unix seconds */
        double *y;       /* SVG_MAX_SERIES * n values */
        bool *on;        /* n flags (bands) */
        double x0, x1;   /* the charts' window */
        double period_s; /* one record */
        int64_t anchor_mono, anchor_real;
        struct svg_marker *m; /* markers of the group being drawn */
        size_t mcap;
        struct svg_band *b; /* bands of the group being drawn */
        size_t bcap;
        char band_label[DASH_BAND_KIND][64];
        int err; /* the first failure */
};

/* Set up d for history h (which has records) and frame f. 0 or -ENOMEM. */
int dash_open(struct dash *d, struct strbuf *out, const struct history *h, const struct frame *f);
void dash_close(struct dash *d);

/* A chart series with the given source (helper for designated lists). */
struct dash_series dash_series(const char *name, enum dash_src src, unsigned idx, unsigned field,
                               double scale);
/* A horizontal line at level v (a threshold), legend name; NAN: none drawn. */
struct dash_series dash_level(const char *name, double v);

/* Draw c (in a <div class="chart">) unless no series has data and c->always is false,
 * with a legend of its bands and markers under it.
 * Series whose legends would run past the chart's width go on to further charts
 * titled "TITLE (cont.)". */
void dash_draw(struct dash *d, const struct dash_chart *c);

/* The markers for GPU gpu's charts (gpu < 0: for the host charts) into d->m: every
 * events line without a gpu= key, those naming gpu, and for a GPU each start of a run
 * of records whose samples raised anomaly flags. Returns their number. */
size_t dash_markers(struct dash *d, int gpu);

/* Append to d->b (from index nb) the spans of records where d->on[i] is set, labelled
 * with band_label[kind] and filled with color; spans closer than a pixel are merged.
 * Returns the new count. */
size_t dash_spans(struct dash *d, size_t nb, unsigned kind, const char *color);

/* The wall-clock time (Unix seconds) of monotonic time mono_ns. */
double dash_real_s(const struct dash *d, int64_t mono_ns);

/* Append v formatted with `decimals` decimals and unit, or an en dash when missing. */
void dash_value(struct strbuf *out, double v, int decimals, const char *unit);

#endif
