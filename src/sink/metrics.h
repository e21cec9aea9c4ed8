/* The Prometheus text exposition format (version 0.0.4) of a frame: what GET /metrics
 * serves. Rendering is pure: it reads a frame copy and the counters that live outside
 * the frame (struct counters) and never samples.
 *
 * Names follow Prometheus conventions: prefix vigil_, base units (celsius, watts,
 * bytes, seconds, hertz, ratio 0-1), _total on counters, _info for metadata. A missing
 * value (NAN) has no sample; a family without samples is left out entirely. */
#ifndef VIGIL_SINK_METRICS_H
#define VIGIL_SINK_METRICS_H

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
