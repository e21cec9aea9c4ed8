/* SPDX-License-Identifier: Apache-2.0 */
/* Formatting helpers. See fmt.h. */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hot.h"

/* The fast path of fmt_pyfloat, for what most readings are (a few decimals, or MB from
 * bytes or kB: an exact binary fraction of up to about ten decimals): the fewest
 * decimals k for which an integer r has r / 10^k == v, written as r with a point k
 * digits from its end. k is tried from 1 while v * 10^k is at most 2^50
 * (PYFLOAT_FAST_SCALED). Why that string is Python's repr of v:
 * - A k-decimal string d that reads back to v is within ulp(v) / 2 <= v * 2^-53 of v,
 *   so d * 10^k is within 2^50 * 2^-53 = 1/8 of v * 10^k; the product as computed is
 *   within ulp / 2 <= 1/8 of the exact one (it is at most 2^50). So llround of it is
 *   d * 10^k, and no second k-decimal string can read back (it would be 1 away).
 * - r <= 2^50 + 1 and 10^k (k <= 22) are exact doubles, so r / 10^k is the correctly
 *   rounded quotient (IEEE 754), which is what strtod reads from the string.
 * - The fewest decimals is the fewest significant digits, Python's shortest repr; it
 *   writes these numbers (1e-4 <= |v| < 1e16) in fixed notation with those digits.
 * Returns 0 when no k tried fits (the caller takes the general method) and then sets
 * *ret_prec to the fewest significant digits the general method can need: a string of
 * n digits has n - E - 1 decimals (E the exponent of v), and none with k or fewer
 * decimals read back. */
#define PYFLOAT_FAST_DECIMALS 17
#define PYFLOAT_FAST_SCALED   0x1p50

static size_t pyfloat_fast(char *out, size_t cap, double v, int *ret_prec)
{
        static const double pow10[PYFLOAT_FAST_DECIMALS + 1] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,
                                                                1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
        double a = fabs(v);
        *ret_prec = 1;
        if (a == 0 && cap >= 5) /* a reading of zero is common: "0.0", "-0.0" */
                return (size_t)(stpcpy(out, signbit(v) ? "-0.0" : "0.0") - out);
        if (!(a >= 1e-4 && a < 1e16))
                return 0;
        int k = 1;
        for (; k <= PYFLOAT_FAST_DECIMALS; k++) {
                double scaled = a * pow10[k];
                if (scaled > PYFLOAT_FAST_SCALED)
                        break;
                long long r = llround(scaled);
                if ((double)r / pow10[k] != a)
                        continue;
                char digits[24];
                int n = 0;
                for (; r > 0 || n <= k; r /= 10) /* backwards, at least k + 1 digits */
                        digits[n++] = (char)('0' + r % 10);
                for (int i = 0; i < n / 2; i++) {
                        char c = digits[i];
                        digits[i] = digits[n - 1 - i];
                        digits[n - 1 - i] = c;
                }
                if ((size_t)n + 1 + (v < 0) + 1 > cap)
                        return 0;
                char *p = out;
                if (v < 0)
                        *p++ = '-';
                memcpy(p, digits, (size_t)(n - k));
                p += n - k;
                *p++ = '.';
                memcpy(p, digits + n - k, (size_t)k);
                p += k;
                *p = '\0';
                return (size_t)(p - out);
        }
        if (k == 1) /* nothing tried: nothing known */
                return 0;
        /* Decimals 1 .. k - 1 failed (an integer's "X.0" among them), so n <= k + E
         * digits cannot do. E is at least e: the exact powers of ten from 1 up, and -4
         * below 1. */
        int e = -4;
        if (a >= 1)
                for (e = 0; e < PYFLOAT_FAST_DECIMALS && a >= pow10[e + 1]; e++)
                        ;
        int prec = k + e + 1;
        *ret_prec = prec < 1 ? 1 : prec > 17 ? 17 : prec;
        return 0;
}

static size_t pyfloat_general_from(char *out, size_t cap, double v, int prec0);

VIGIL_HOT size_t fmt_pyfloat(char *out, size_t cap, double v)
{
        int prec0 = 1;
        size_t fast = cap ? pyfloat_fast(out, cap, v, &prec0) : 0;
        return fast ? fast : pyfloat_general_from(out, cap, v, prec0);
}

size_t fmt_pyfloat_general(char *out, size_t cap, double v)
{
        return pyfloat_general_from(out, cap, v, 1);
}

/* The general method, trying precisions from prec0 (one known not to be too many). */
static size_t pyfloat_general_from(char *out, size_t cap, double v, int prec0)
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
        for (prec = prec0; prec <= 17; prec++) {
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

/* ns as whole seconds (rounded down) and the nanoseconds past them. */
static time_t split_ns(int64_t ns, long *ret_frac_ns)
{
        time_t s = (time_t)(ns / 1000000000);
        long frac = (long)(ns % 1000000000);
        if (frac < 0) {
                frac += 1000000000;
                s -= 1;
        }
        *ret_frac_ns = frac;
        return s;
}

enum local_fmt { LF_ISO, LF_GPU, LF_DATE, LF_STAMP };

/* The local time of second s in the given format; 0 when it does not fit. */
static size_t fmt_local_sec(char *out, size_t cap, time_t s, enum local_fmt kind)
{
        struct tm tm;
        localtime_r(&s, &tm);
        switch (kind) {
        case LF_ISO:
                return strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
        case LF_GPU:
                return strftime(out, cap, "%Y/%m/%d %H:%M:%S", &tm);
        case LF_DATE:
                return strftime(out, cap, "%Y-%m-%d", &tm);
        case LF_STAMP:
                return strftime(out, cap, "%Y%m%d-%H%M%S", &tm);
        }
        return 0;
}

/* Append ".mmm" (3 digits) or ".uuuuuu" (6) of frac_ns after out[0..n). */
static size_t put_frac(char *out, size_t cap, size_t n, long frac_ns, int frac_digits)
{
        long v = frac_ns / (frac_digits == 3 ? 1000000 : 1000);
        if (n + 1 + (size_t)frac_digits >= cap) {
                int m = snprintf(out + n, cap - n, ".%0*ld", frac_digits, v);
                return m < 0 ? n : n + (size_t)m;
        }
        out[n] = '.';
        for (int i = frac_digits; i >= 1; i--) {
                out[n + (size_t)i] = (char)('0' + v % 10);
                v /= 10;
        }
        n += 1 + (size_t)frac_digits;
        out[n] = '\0';
        return n;
}

static size_t fmt_local(char *out, size_t cap, int64_t ns, enum local_fmt kind, int frac_digits)
{
        long frac;
        time_t s = split_ns(ns, &frac);
        size_t n = fmt_local_sec(out, cap, s, kind);
        if (n == 0 || frac_digits == 0)
                return n;
        return put_frac(out, cap, n, frac, frac_digits);
}

VIGIL_HOT size_t fmt_time_iso_ms(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_ISO, 3);
}

size_t fmt_time_gpu(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_GPU, 3);
}

/* Make c hold second s in kind's format. False when it does not fit (c left invalid). */
static bool sec_cache_fill(struct fmt_sec_cache *c, time_t s, enum local_fmt kind)
{
        if (c->valid && c->sec == (int64_t)s)
                return true;
        /* Any other second, earlier or later, is formatted from scratch: the UTC offset
         * (DST, a new TZ) may differ from one second to the next. */
        c->valid = false;
        c->len = fmt_local_sec(c->text, sizeof(c->text), s, kind);
        if (c->len == 0)
                return false;
        c->sec = (int64_t)s;
        c->valid = true;
        return true;
}

VIGIL_HOT size_t fmt_time_gpu_cached(struct fmt_sec_cache *c, char *out, size_t cap, int64_t ns)
{
        long frac;
        time_t s = split_ns(ns, &frac);
        if (!sec_cache_fill(c, s, LF_GPU) || c->len + 5 > cap)
                return fmt_time_gpu(out, cap, ns);
        memcpy(out, c->text, c->len);
        return put_frac(out, cap, c->len, frac, 3);
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

VIGIL_HOT size_t fmt_date_cached(struct fmt_sec_cache *c, char *out, size_t cap, int64_t ns)
{
        long frac;
        time_t s = split_ns(ns, &frac);
        if (!sec_cache_fill(c, s, LF_DATE) || c->len + 1 > cap)
                return fmt_date(out, cap, ns);
        memcpy(out, c->text, c->len);
        out[c->len] = '\0';
        return c->len;
}

size_t fmt_stamp(char *out, size_t cap, int64_t ns)
{
        return fmt_local(out, cap, ns, LF_STAMP, 0);
}
