/* SPDX-License-Identifier: Apache-2.0 */
/* Sample values and label values as the Prometheus text format writes them. See
 * metrics.h (metrics_fmt_value, metrics_put_label_value).
 *
 *   vigil_gpu_power_watts{gpu="0",uuid="GPU-5d6c..."} 231.5
 *
 * Most values are integers or short decimals: those are written without printf, which
 * keeps a scrape cheap; only values that need 16-17 digits take the general path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"

static size_t put_u64(char *out, size_t cap, uint64_t u)
{
        char tmp[24];
        size_t n = 0;
        do {
                tmp[n++] = (char)('0' + u % 10);
                u /= 10;
        } while (u);
        if (n >= cap)
                return 0;
        for (size_t i = 0; i < n; i++)
                out[i] = tmp[n - 1 - i];
        out[n] = '\0';
        return n;
}

/* round(x) for 0 <= x < 2^53, without libm: the integer part fits a uint64 exactly,
 * and so does x minus it. */
static double round_nonneg(double x)
{
        double t = (double)(uint64_t)x;
        return x - t >= 0.5 ? t + 1.0 : t;
}

/* Fixed notation with the fewest decimals that read back to v (|v| in [1e-5, 1e15)).
 * n / 10^d is one correctly rounded division, which is what reading "n e-d" gives
 * when n < 2^53, so the test is exact. 0 when no such form exists. */
static size_t fmt_fixed(char *out, size_t cap, double v)
{
        static const double p10[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                     1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
        double a = fabs(v);
        if (!(a >= 1e-5 && a < 1e15))
                return 0;
        for (unsigned d = 1; d < sizeof(p10) / sizeof(p10[0]); d++) {
                double x = a * p10[d];
                if (x >= 9007199254740992.0)
                        return 0;
                double s = round_nonneg(x);
                if (s >= 9007199254740992.0)
                        return 0;
                if (s / p10[d] != a)
                        continue;
                char digits[24];
                size_t nd = put_u64(digits, sizeof(digits), (uint64_t)s);
                size_t lead = nd <= d ? d + 1 - nd : 0; /* zeros before the digits */
                size_t len = (v < 0) + lead + nd + 1;
                if (len + 1 > cap)
                        return 0;
                char *p = out;
                if (v < 0)
                        *p++ = '-';
                for (size_t i = 0; i < lead + nd; i++) {
                        if (i == lead + nd - d)
                                *p++ = '.';
                        *p++ = i < lead ? '0' : digits[i - lead];
                }
                *p = '\0';
                return (size_t)(p - out);
        }
        return 0;
}

size_t metrics_fmt_value(char *out, size_t cap, double v)
{
        if (cap == 0)
                return 0;
        const char *word = isnan(v) ? "NaN" : isinf(v) ? (v > 0 ? "+Inf" : "-Inf") : NULL;
        if (word) {
                int n = snprintf(out, cap, "%s", word);
                return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
        }
        if (fabs(v) < 1e15 && v == (double)(int64_t)v) {
                if (v >= 0)
                        return put_u64(out, cap, (uint64_t)v);
                if (cap < 2)
                        return 0;
                out[0] = '-';
                size_t n = put_u64(out + 1, cap - 1, (uint64_t)-v);
                return n ? n + 1 : 0;
        }
        size_t n = fmt_fixed(out, cap, v);
        if (n)
                return n;
        /* Very large, very small, or 17 significant digits: the general form. */
        int m = snprintf(out, cap, "%.15g", v);
        if (m > 0 && (size_t)m < cap && strtod(out, NULL) == v)
                return (size_t)m;
        m = snprintf(out, cap, "%.17g", v);
        return m < 0 || (size_t)m >= cap ? 0 : (size_t)m;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static unsigned utf8_len(const unsigned char *s)
{
        unsigned n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
        if (n == 0 || s[0] > 0xf4)
                return 0;
        for (unsigned i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        }
        /* Overlong 3/4-byte forms, surrogates and code points past U+10FFFF. */
        if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
            (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
                return 0;
        return n;
}

void metrics_put_label_value(struct strbuf *out, const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
                const unsigned char *run = p;
                while (*p >= 0x20 && *p < 0x7f && *p != '\\' && *p != '"')
                        p++;
                sb_put(out, (const char *)run, (size_t)(p - run));
                if (!*p)
                        break;
                if (*p == '\\' || *p == '"' || *p == '\n') {
                        sb_putc(out, '\\');
                        sb_putc(out, *p == '\n' ? 'n' : (char)*p);
                        p++;
                } else if (*p >= 0x80 && utf8_len(p)) {
                        unsigned n = utf8_len(p);
                        sb_put(out, (const char *)p, n);
                        p += n;
                } else {
                        sb_putc(out, '?');
                        p++;
                }
        }
}
