/* SPDX-License-Identifier: Apache-2.0 */
/* Time stamps of vigil's logs, read back as Unix time. */
#ifndef VIGIL_REPORT_TSTAMP_H
#define VIGIL_REPORT_TSTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Remembers the local-time offset of the last hour parsed, so a day of rows costs
 * one mktime() per hour. Zero-initialise before use. */
struct tstamp_cache {
        bool valid;
        int year, mon, day, hour;
        time_t hour_start; /* Unix time of HH:00:00 local */
};

/* Parse a local time stamp "YYYY-MM-DDTHH:MM:SS[.fff]" (host log, events.log),
 * "YYYY/MM/DD HH:MM:SS[.fff]" (GPU log) or "YYYY-MM-DD HH:MM:SS[.fff]", optionally
 * followed by a blank and more text, into Unix seconds (with the fraction).
 * 0 or -EINVAL; *ret untouched on failure. */
int tstamp_parse(struct tstamp_cache *c, const char *s, size_t n, double *ret);

#endif
