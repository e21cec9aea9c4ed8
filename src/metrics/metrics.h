/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus text exposition format (version 0.0.4) of a frame: what GET /metrics
 * serves. Rendering is pure: it reads a frame copy and the counters that live outside
 * the frame (struct counters) and never samples.
 *
 * Names follow Prometheus conventions: prefix vigil_, base units (celsius, watts,
 * bytes, seconds, hertz, ratio 0-1), _total on counters, _info for metadata. A missing
 * value (NAN) has no sample; a family without samples is left out entirely. */
#ifndef VIGIL_METRICS_METRICS_H
#define VIGIL_METRICS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/frame.h"
#include "util/strbuf.h"

/* Append the exposition of frame f (and x, may be NULL) to out. Families appear in a
 * fixed order, each with one # HELP and one # TYPE line. Returns 0, -ENOBUFS when
 * out overflowed its bound, or -EINVAL when the code and an area's table of families
 * (core/metric_defs.h) disagree (the output is then incomplete and must not be served). */
int metrics_render(struct strbuf *out, const struct frame *f, const struct counters *x);
/* One sample as the renderer produces it: the family (name, "gauge"/"counter"), its
 * labels as the exposition writes them (base: a pre-escaped list or NULL; key/val: one
 * more label with a raw value, or NULL) and the value (never NAN). The strings live
 * only for the call. */
struct metric_point {
        const char *name, *type;
        const char *base, *key, *val;
        double v;
};

typedef void (*metrics_visit_fn)(void *arg, const struct metric_point *p);

/* The samples of frame f (and x, may be NULL) handed to fn one by one, in the order
 * and with the labels metrics_render writes them, without any text: what the
 * remote-write push records. 0, or -EINVAL as metrics_render (fn may have been called:
 * the samples must then be thrown away). */
int metrics_visit(const struct frame *f, const struct counters *x, metrics_visit_fn fn, void *arg);

#define METRICS_KEY_MAX 1024 /* bytes of one series key, and of one exposition line */

/* Write p's series key, name{base,key="val"} as the exposition line has it before the
 * value (the one writer of a key, for /metrics and the push), into out (cap bytes, no
 * NUL). Returns its length, or 0 when it does not fit. */
size_t metrics_series_key(char *out, size_t cap, const struct metric_point *p);

/* Whether every code-rendered family of the areas' tables (enum metric_code) has its
 * render function (test_field_coverage checks it; a row without one fails the render). */
bool metrics_code_complete(void);

/* Format a sample value as Prometheus reads it: integers without a fraction, other
 * values with the fewest digits (up to 17) that read back to the same double, "+Inf",
 * "-Inf", "NaN". Writes at most cap bytes (NUL included). Returns the length. */
size_t metrics_fmt_value(char *out, size_t cap, double v);

/* Append s to out as a label value: backslash, double quote and newline escaped, other
 * control bytes and invalid UTF-8 replaced by '?'. */
void metrics_put_label_value(struct strbuf *out, const char *s);

#endif
