/* SPDX-License-Identifier: Apache-2.0 */
/* Axis helpers of the SVG chart renderer (report/svg.c): nice tick steps and labels. */
#ifndef VIGIL_REPORT_SVG_AXIS_H
#define VIGIL_REPORT_SVG_AXIS_H

#include <stddef.h>

#include "report/svg.h"

/* A step of 1, 2 or 5 times a power of ten giving about `target` intervals over range. */
double svg_nice_step(double range, int target);
/* A time step (1 s ... 30 days) giving at most 8 intervals over range seconds. */
double svg_time_step(double range);
/* The same with at most max intervals (at least 1): as many labels as a width holds. */
double svg_time_step_max(double range, unsigned max);
/* Seconds east of UTC of local time at Unix time t (0 when t is not a calendar time). */
long svg_local_offset_s(double t);
/* The label of a time tick at t into buf: local "HH:MM:SS", "HH:MM" or "MM-DD" (at
 * midnight or for day steps), or the time since origin ("0", "30s", "5m", "1h30m"). */
void svg_time_label(char *buf, size_t cap, double t, double step, enum svg_time_axis axis,
                    double origin);

#endif
