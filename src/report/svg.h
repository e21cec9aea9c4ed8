/* SPDX-License-Identifier: Apache-2.0 */
/* A small SVG line-chart renderer: time on x, several series on one y axis, gaps,
 * markers and shaded bands, with no dependencies. Used by `vigil report --html` and
 * the dashboard. The output is one <svg> element, fixed size, inline-ready. */
#ifndef VIGIL_REPORT_SVG_H
#define VIGIL_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

#define SVG_MAX_SERIES 16

struct svg_series {
        const char *name;  /* legend text */
        const char *color; /* CSS colour ("#1f77b4"); NULL: the next palette colour */
        const double *x;   /* seconds, ascending */
        const double *y;   /* NAN: no value here, the line breaks */
        size_t n;
};

/* A vertical line at one moment; its label is the tooltip (SVG <title>). */
struct svg_marker {
        double x;          /* seconds */
        const char *label; /* tooltip; markers closer than 2 px are merged into one */
        const char *color; /* NULL: red */
};

/* A shaded span of time (a throttle reason that was active, for example). */
struct svg_band {
        double x0, x1;     /* seconds */
        const char *label; /* tooltip */
        const char *color; /* fill, drawn translucent; NULL: grey */
};

enum svg_time_axis {
        SVG_TIME_LOCAL,   /* x is Unix time; labels are local clock times */
        SVG_TIME_ELAPSED, /* labels are the time since the start of the axis ("5m", "1h30m") */
};

struct svg_chart_spec {
        const char *title;
        const char *y_label; /* unit, drawn along the y axis; NULL: none */
        int width, height;   /* px; 0: 760 x 220 */
        const struct svg_series *series;
        size_t nseries; /* at most SVG_MAX_SERIES */
        const struct svg_marker *markers;
        size_t nmarkers;
        const struct svg_band *bands;
        size_t nbands;
        double x_min, x_max; /* NAN: from the data */
        double y_min, y_max; /* NAN: from the data, widened to nice tick values */
        bool y_zero;         /* the automatic y range includes 0 */
        double gap_s;        /* break a line where points are further apart; 0: never */
        enum svg_time_axis time_axis;
};

/* Render spec as one <svg> element appended to out. Each series is decimated to at
 * most two points (its minimum and maximum) per pixel column, so a one-sample spike
 * stays visible; coordinates are rounded to 0.1 px. All text is XML-escaped.
 * Returns 0, -EINVAL for a spec it cannot draw (too many series, size out of
 * 120..8000 x 80..4000), -ENOMEM, or -ENOSPC when out overflowed its bound. */
int svg_chart(struct strbuf *out, const struct svg_chart_spec *spec);

/* The colour of palette entry i (any i), as a CSS hex string. */
const char *svg_palette(size_t i);

#endif
