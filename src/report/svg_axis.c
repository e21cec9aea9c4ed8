/* SPDX-License-Identifier: Apache-2.0 */
/* Tick steps and time labels for the SVG charts. See svg_axis.h. */
#include "report/svg_axis.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* A step of 1, 2 or 5 times a power of ten giving about `target` intervals. */
double svg_nice_step(double range, int target)
{
        double raw = range / target;
        double mag = pow(10.0, floor(log10(raw)));
        double norm = raw / mag;
        double m = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
        return m * mag;
}

static const double time_steps[] = {
    1,    2,    5,    10,    15,    30,    60,    120,    300,    600,     900,
    1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000,
};

double svg_time_step(double range)
{
        return svg_time_step_max(range, 8);
}

double svg_time_step_max(double range, unsigned max)
{
        if (max < 1)
                max = 1;
        size_t n = sizeof(time_steps) / sizeof(time_steps[0]);
        for (size_t i = 0; i < n; i++) {
                if (range / time_steps[i] <= max)
                        return time_steps[i];
        }
        return ceil(range / max / 86400) * 86400;
}

/* Times beyond this are not calendar times (and would not fit a time_t cast). */
#define TIME_LIMIT 1e15

long svg_local_offset_s(double t)
{
        struct tm tm;
        if (!(fabs(t) < TIME_LIMIT))
                return 0;
        time_t tt = (time_t)t;
        if (!localtime_r(&tt, &tm))
                return 0;
        return tm.tm_gmtoff;
}

void svg_time_label(char *buf, size_t cap, double t, double step, enum svg_time_axis axis,
                    double origin)
{
        if (axis == SVG_TIME_ELAPSED) {
                long long e = llround(t - origin);
                long long d = e / 86400, h = e % 86400 / 3600, m = e % 3600 / 60, sec = e % 60;
                if (e == 0)
                        snprintf(buf, cap, "0");
                else if (d && h)
                        snprintf(buf, cap, "%lldd%lldh", d, h);
                else if (d)
                        snprintf(buf, cap, "%lldd", d);
                else if (h && m)
                        snprintf(buf, cap, "%lldh%02lldm", h, m);
                else if (h)
                        snprintf(buf, cap, "%lldh", h);
                else if (m && sec)
                        snprintf(buf, cap, "%lldm%02llds", m, sec);
                else if (m)
                        snprintf(buf, cap, "%lldm", m);
                else
                        snprintf(buf, cap, "%llds", sec);
                return;
        }
        struct tm tm;
        time_t tt = fabs(t) < TIME_LIMIT ? (time_t)floor(t + 0.5) : 0;
        if (!(fabs(t) < TIME_LIMIT) || !localtime_r(&tt, &tm)) {
                snprintf(buf, cap, "?");
                return;
        }
        bool midnight = tm.tm_hour == 0 && tm.tm_min == 0 && tm.tm_sec == 0;
        size_t n;
        if (step < 60)
                n = strftime(buf, cap, "%H:%M:%S", &tm);
        else if (step >= 86400 || midnight)
                n = strftime(buf, cap, "%m-%d", &tm);
        else
                n = strftime(buf, cap, "%H:%M", &tm);
        if (n == 0)
                snprintf(buf, cap, "?");
}
