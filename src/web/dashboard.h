/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard: the page GET / serves. One self-contained HTML page (inline CSS and
 * SVG, no script, no external asset) that reloads itself, with the charts of the last
 * 15 minutes from the history ring (core/history.h), grouped:
 *   Host           CPU %, memory available, temperature, /dev/shm used
 *   Processes      count and PSS of every watch (with --watch)
 *   Raspberry Pi   temperature, ARM clock, core voltage; throttle conditions as bands
 *   GPU N          temperature and fans, power and its limit, clocks, utilisation;
 *                  clock-event (throttle) reasons as bands, anomaly markers, a red
 *                  band and a banner while the GPU is lost
 * Every chart carries the markers of recent events.log lines (a line naming gpu=N
 * only on that GPU's charts), and a legend of its bands and markers. A header names
 * the host, vigil's version and uptime, what happened (the findings), the current
 * values, and links to /metrics and to the report of a recorded day. The recent
 * events are listed as sentences.
 *
 * Rendering is pure: it reads a history copy and a frame copy and never samples. Its
 * cost and size are bounded by the history's records (900 at most) per series: with 15
 * minutes of noisy values about 130 KB for a Pi, 740 KB for 8 GPUs with 2 fans, and
 * 2.7 MB at the ceiling (16 GPUs with 8 fans, 16 watches). */
#ifndef VIGIL_WEB_DASHBOARD_H
#define VIGIL_WEB_DASHBOARD_H

#include <stdint.h>

#include "core/findings.h"
#include "core/frame.h"
#include "core/health.h"
#include "core/history.h"
#include "util/strbuf.h"

#define DASHBOARD_REFRESH_S 10

struct dashboard_info {
        const char *hostname; /* NULL: none */
        int64_t now_mono_ns;  /* for vigil's uptime (frame self.started_mono_ns) */
        unsigned refresh_s;   /* the page reloads itself after this long; 0: never */
        /* What happened (core/run_findings.h), shown first; NULL: not shown. */
        const struct findings *findings;
        /* The day whose report the page links to (/report?day=), "YYYY-MM-DD"; NULL or
         * "": no link (nothing is recorded, --no-log). */
        const char *today;
        const char *finding; /* the post-mortem of the previous run, one line; NULL: none */
        /* The health verdict (its last published copy), the page's first panel; NULL:
         * not shown. */
        const struct health *health;
};

/* Append the page for history h (NULL: no charts) and frame f (the last published) to
 * out. Returns 0, -ENOMEM, or -ENOSPC when out overflowed its bound (the page is then
 * incomplete and must not be served). */
int dashboard_render(struct strbuf *out, const struct history *h, const struct frame *f,
                     const struct dashboard_info *info);

#endif
