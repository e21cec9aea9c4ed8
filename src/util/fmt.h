/* SPDX-License-Identifier: Apache-2.0 */
/* Value and time formatting in the formats the reference scripts' users rely on. */
#ifndef VIGIL_UTIL_FMT_H
#define VIGIL_UTIL_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Python's repr() of a float: the shortest string that reads back to the same double,
 * always with a '.' or exponent ("12.0", "0.52", "1800.457088", "1e+16").
 * NaN writes "". Returns the length. */
size_t fmt_pyfloat(char *out, size_t cap, double v);

/* The same by the general method alone (the shortest of %.{1..17}e that strtod reads
 * back): what fmt_pyfloat does, from the first precision that can do, when its fast
 * path (up to 17 decimals while v * 10^decimals <= 2^50) finds no string. For the
 * tests that hold the two to the same output. */
size_t fmt_pyfloat_general(char *out, size_t cap, double v);

/* Local time as "YYYY-MM-DDTHH:MM:SS.mmm" (the host log's timestamp). */
size_t fmt_time_iso_ms(char *out, size_t cap, int64_t realtime_ns);
/* Local time as "YYYY/MM/DD HH:MM:SS.mmm" (the GPU log's timestamp). */
size_t fmt_time_gpu(char *out, size_t cap, int64_t realtime_ns);
/* The text of the last whole second fmt_time_gpu_cached formatted. Owned and kept by
 * the caller (zeroed before first use: valid false), one per stream of timestamps. */
struct fmt_sec_cache {
        int64_t sec; /* the second (UTC, since the epoch) text is for */
        bool valid;
        size_t len;
        char text[32]; /* "YYYY/MM/DD HH:MM:SS", not NUL-terminated */
};
/* fmt_time_gpu with one localtime_r per whole second instead of one per call: the
 * same bytes, as long as the time zone rules do not change within one second (a
 * different second is always formatted from scratch, DST and TZ changes included). */
size_t fmt_time_gpu_cached(struct fmt_sec_cache *c, char *out, size_t cap, int64_t realtime_ns);
/* Local time as "YYYY-MM-DDTHH:MM:SS.uuuuuu" (Python's datetime.isoformat(), events.log). */
size_t fmt_time_iso_us(char *out, size_t cap, int64_t realtime_ns);
/* UTC as "YYYY-MM-DDTHH:MM:SS.uuuuuu+00:00" (snapshot headers). */
size_t fmt_time_utc_iso(char *out, size_t cap, int64_t realtime_ns);
/* Local date "YYYY-MM-DD" (daily file names). */
size_t fmt_date(char *out, size_t cap, int64_t realtime_ns);
/* fmt_date with one localtime_r per whole second, on the same terms as
 * fmt_time_gpu_cached. A cache serves one of the two functions, never both. */
size_t fmt_date_cached(struct fmt_sec_cache *c, char *out, size_t cap, int64_t realtime_ns);
/* Local "YYYYMMDD-HHMMSS" (snapshot file names). */
size_t fmt_stamp(char *out, size_t cap, int64_t realtime_ns);

#endif
