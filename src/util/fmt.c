/* Formatting helpers. See fmt.h. */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fmt_pyfloat(char *out, size_t cap, double v)
{
        char tmp[40];
        if (cap == 0)
                return 0;
        if (isnan(v)) {
                out[0] = '\0';
                return 0;
        }
        if (isinf(v)) {
                return (size_t)snprintf(out, cap, "%s", v > 0 ? "inf" : "-inf");
        }
        /* Shortest round-trip digits, as Python's float_repr_style 'short'. */
        int prec;
        for (prec = 1; prec <= 17; prec++) {
                snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
                if (strtod(tmp, NULL) == v)
                        break;
        }
        /* tmp is d.ddde[+-]XX; Python prints fixed notation when -4 <= exp < 16. */
        char *e = strchr(tmp, 'e');
        int exp10 = (int)strtol(e + 1, NULL, 10);
        if (exp10 >= -4 && exp10 < 16) {
                int decimals = prec - 1 - exp10;
                if (decimals < 1)
                        decimals = 1;
                int n = snprintf(out, cap, "%.*f", decimals, v);
                /* Trim zeros the shortest form does not need, keeping one decimal. */
                if (n > 0 && (size_t)n < cap && strchr(out, '.')) {
                        while (n > 2 && out[n - 1] == '0' && out[n - 2] != '.')
                                out[--n] = '\0';
                }
                return n < 0 ? 0 : (size_t)n;
        }
        /* Exponent form: mantissa without trailing zeros, exponent at least 2 digits. */
        *e = '\0';
        size_t ml = strlen(tmp);
        if (strchr(tmp, '.')) {
                while (ml > 0 && tmp[ml - 1] == '0')
                        tmp[--ml] = '\0';
                if (ml > 0 && tmp[ml - 1] == '.')
                        tmp[--ml] = '\0';
        }
        int n = snprintf(out, cap, "%se%c%02d", tmp, exp10 < 0 ? '-' : '+', abs(exp10));
        return n < 0 ? 0 : (size_t)n;
}

static void split_local(int64_t ns, struct tm *tm, long *ret_frac_ns)
{
        time_t s = (time_t)(ns / 1000000000);
        long frac = (long)(ns % 1000000000);
        if (frac < 0) {
                frac += 1000000000;
                s -= 1;
        }
        localtime_r(&s, tm);
        *ret_frac_ns = frac;
}

enum local_fmt { LF_ISO, LF_GPU, LF_DATE, LF_STAMP };

static size_t fmt_local(char *out, size_t cap, int64_t ns, enum local_fmt kind, int frac_digits)
{
        struct tm tm;
        long frac;
        size_t n = 0;
        split_local(ns, &tm, &frac);
        switch (kind) {
        case LF_ISO:
                n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
                break;
        case LF_GPU:
                n = strftime(out, cap, "%Y/%m/%d %H:%M:%S", &tm);
                break;
        case LF_DATE:
                n = strftime(out, cap, "%Y-%m-%d", &tm);
                break;
        case LF_STAMP:
                n = strftime(out, cap, "%Y%m%d-%H%M%S", &tm);
                break;
        }
        if (n == 0 || frac_digits == 0)
                return n;
        long div = frac_digits == 3 ? 1000000 : 1000;
        int m = snprintf(out + n, cap - n, ".%0*ld", frac_digits, frac / div);
        return m < 0 ? n : n + (size_t)m;
}

size_t fmt_time_iso_ms(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_ISO, 3);
}

size_t fmt_time_gpu(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_GPU, 3);
}

size_t fmt_time_iso_us(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_ISO, 6);
}

size_t fmt_time_utc_iso(char *out, size_t cap, int64_t ns)
{
        struct tm tm;
        time_t s = (time_t)(ns / 1000000000);
        gmtime_r(&s, &tm);
        size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
        int m = snprintf(out + n, cap - n, ".%06ld+00:00", (long)(ns % 1000000000) / 1000);
        return m < 0 ? n : n + (size_t)m;
}

size_t fmt_date(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_DATE, 0);
}

size_t fmt_stamp(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_STAMP, 0);
}
