/* SPDX-License-Identifier: Apache-2.0 */
/* Log time stamps. See tstamp.h.
 *
 * Samples: "2026-12-02T18:12:47.123" (host log), "2026/12/02 18:12:47.123" (GPU log),
 * "2026-12-02T18:12:47.123456 type=TDP_CHANGE ..." (events.log). */
#include "report/tstamp.h"

#include <errno.h>
#include <string.h>

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n)
{
        int v = 0;
        for (int i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        return v;
}

static int hour_start(struct tstamp_cache *c, int year, int mon, int day, int hour, time_t *ret)
{
        if (c->valid && c->year == year && c->mon == mon && c->day == day && c->hour == hour) {
                *ret = c->hour_start;
                return 0;
        }
        struct tm tm = {
            .tm_year = year - 1900,
            .tm_mon = mon - 1,
            .tm_mday = day,
            .tm_hour = hour,
            .tm_isdst = -1,
        };
        time_t t = mktime(&tm);
        if (t == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_hour == 23))
                return -EINVAL;
        c->valid = true;
        c->year = year;
        c->mon = mon;
        c->day = day;
        c->hour = hour;
        c->hour_start = t;
        *ret = t;
        return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static long long days_from_civil(int y, int m, int d)
{
        y -= m <= 2;
        long long era = (y >= 0 ? y : y - 399) / 400;
        long long yoe = y - era * 400;
        long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

/* An optional "Z", "+HH:MM" or "-HH:MM" at s[*pos]: 1 (and the offset east of UTC in
 * seconds) when there is one, 0 when there is none, -EINVAL when it is malformed. */
static int utc_offset(const char *s, size_t n, size_t *pos, long *ret)
{
        size_t i = *pos;
        if (i < n && s[i] == 'Z') {
                *ret = 0;
                *pos = i + 1;
                return 1;
        }
        if (i >= n || (s[i] != '+' && s[i] != '-'))
                return 0;
        if (n - i < 6 || s[i + 3] != ':')
                return -EINVAL;
        int h = digits(s + i + 1, 2), m = digits(s + i + 4, 2);
        if (h < 0 || h > 23 || m < 0 || m > 59)
                return -EINVAL;
        *ret = (s[i] == '-' ? -1 : 1) * (long)(h * 3600 + m * 60);
        *pos = i + 6;
        return 1;
}

int tstamp_parse(struct tstamp_cache *c, const char *s, size_t n, double *ret)
{
        if (n < 19)
                return -EINVAL;
        char dsep = s[4];
        if ((dsep != '-' && dsep != '/') || s[7] != dsep || (s[10] != 'T' && s[10] != ' ') ||
            s[13] != ':' || s[16] != ':')
                return -EINVAL;
        int year = digits(s, 4), mon = digits(s + 5, 2), day = digits(s + 8, 2);
        int hour = digits(s + 11, 2), min = digits(s + 14, 2), sec = digits(s + 17, 2);
        if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
            min < 0 || min > 59 || sec < 0 || sec > 60)
                return -EINVAL;
        double frac = 0;
        size_t i = 19;
        if (i < n && s[i] == '.') {
                long f = 0, scale = 1;
                size_t start = ++i;
                for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
                        if (scale < 1000000000) {
                                f = f * 10 + (s[i] - '0');
                                scale *= 10;
                        }
                }
                if (i == start)
                        return -EINVAL;
                frac = (double)f / (double)scale;
        }
        long offset_s;
        int r = utc_offset(s, n, &i, &offset_s);
        if (r < 0)
                return r;
        if (i < n && s[i] != ' ' && s[i] != '\t')
                return -EINVAL;
        if (r == 1) {
                /* An explicit offset: no local time involved. */
                long long days = days_from_civil(year, mon, day);
                *ret = (double)(days * 86400 + hour * 3600 + min * 60 + sec - offset_s) + frac;
                return 0;
        }
        time_t base;
        if (hour_start(c, year, mon, day, hour, &base) < 0)
                return -EINVAL;
        *ret = (double)base + min * 60 + sec + frac;
        return 0;
}
