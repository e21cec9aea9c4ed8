/* SPDX-License-Identifier: Apache-2.0 */
/* Marks on the HTML report's charts (internal to report/html*.c): the Pi's throttle
 * conditions as shaded bands, a GPU's anomaly flags as counted markers (one per chart
 * stretch, saying how many of which), and a legend for both under a chart. */
#ifndef VIGIL_REPORT_HTML_MARKS_H
#define VIGIL_REPORT_HTML_MARKS_H

#include <stddef.h>

#include "report/gpu_acc.h"
#include "core/host_acc.h"
#include "report/svg.h"
#include "util/strbuf.h"

#define HTML_MARK_LABEL 160
#define HTML_BAND_LABEL 64
#define HTML_MARK_SLOTS 120 /* stretches of a chart's width: at most one marker each */

/* Bands for each throttle condition active now ("NOW:..." in the Pi's flags) between
 * the flag changes a holds, until the next change or its last row; at most cap. */
size_t html_pi_bands(const struct host_acc *a, struct svg_band *out, char (*lab)[HTML_BAND_LABEL],
                     size_t cap);

/* a's anomaly and failure moments in [x0, x1] grouped into HTML_MARK_SLOTS stretches:
 * one marker per stretch that has any, labelled "N anomaly flags: TYPE xK, ...". out
 * and lab hold HTML_MARK_SLOTS entries. Returns the markers written. */
size_t html_counted_marks(const struct gpu_acc *a, double x0, double x1, struct svg_marker *out,
                          char (*lab)[HTML_MARK_LABEL]);

/* A legend (<div class="legend">) of the distinct band labels and marker colours. */
void html_legend(struct strbuf *out, const struct svg_band *b, size_t nb,
                 const struct svg_marker *m, size_t nm);

#endif
