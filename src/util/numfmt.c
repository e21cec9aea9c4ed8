/* SPDX-License-Identifier: Apache-2.0 */
/* Number formatting without printf. See numfmt.h.
 *
 * Doubles are formatted from their exact binary value: v = m * 2^e with an integer m
 * of at most 53 bits, so the integer part and the fraction's scaled digits, with the
 * remainder that decides the rounding, are all exact 64-bit integer arithmetic. That
 * is what glibc's printf does with big numbers, hence the same bytes, ties included. */
#include "util/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/hot.h"

VIGIL_HOT size_t numfmt_u64(char *out, uint64_t v)
{
        char tmp[20];
        size_t n = 0;
        do {
                tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
                v /= 10;
        } while (v);
        memcpy(out, tmp + sizeof(tmp) - n, n);
        return n;
}

VIGIL_HOT size_t numfmt_hex04(char *out, uint64_t v)
{
        static const char hex[] = "0123456789abcdef";
        char tmp[16];
        size_t n = 0;
        do {
                tmp[sizeof(tmp) - 1 - n++] = hex[v & 0xf];
                v >>= 4;
        } while (v);
        out[0] = '0';
        out[1] = 'x';
        size_t pad = n < 4 ? 4 - n : 0;
        memset(out + 2, '0', pad);
        memcpy(out + 2 + pad, tmp + sizeof(tmp) - n, n);
        return 2 + pad + n;
}

/* |v| split exactly: int_part, and the fraction as frac / 2^shift (frac < 2^53).
 * shift 0 means no fraction. False for NaN, infinities and |v| >= 2^64. */
static bool split_abs(double v, uint64_t *int_part, uint64_t *frac, unsigned *shift)
{
        uint64_t bits;
        memcpy(&bits, &v, sizeof(bits));
        unsigned bexp = (unsigned)(bits >> 52) & 0x7ff;
        uint64_t m = bits & ((1ULL << 52) - 1);
        if (bexp == 0x7ff)
                return false;
        if (bexp)
                m |= 1ULL << 52;
        /* |v| = m * 2^(bexp - 1075), subnormals (bexp 0) at 2^-1074. */
        int e = (bexp ? (int)bexp : 1) - 1075;
        if (e >= 0) {
                if (e > 11)
                        return false; /* 2^53 * 2^12 > 2^64 */
                *int_part = m << e;
                *frac = 0;
                *shift = 0;
                return true;
        }
        unsigned k = (unsigned)-e;
        if (k >= 64) {
                /* |v| < 2^53 * 2^-64: no integer part; keep the fraction at 2^-63 scale
                 * with a sticky low bit, enough to round it (it is far below a half). */
                *int_part = 0;
                *frac = m ? 1 : 0;
                *shift = 63;
                return true;
        }
        *int_part = m >> k;
        *frac = m & ((1ULL << k) - 1);
        *shift = k;
        return true;
}

VIGIL_HOT size_t numfmt_fixed(char *out, double v, int decimals)
{
        static const uint64_t scales[] = {1, 10, 100, 1000};
        uint64_t ip, frac;
        unsigned k;
        if (decimals < 0 || decimals > 3)
                return 0;
        if (!split_abs(v, &ip, &frac, &k))
                return 0;
        uint64_t scale = scales[decimals];
        /* The fraction's decimals: digits + rem / 2^k, exact (frac * 1000 < 2^63). */
        uint64_t digits = 0;
        int half_cmp = -1; /* the remainder against a half: -1 below, 0 equal, 1 above */
        if (k) {
                uint64_t p = frac * scale;
                uint64_t rem = p & ((1ULL << k) - 1);
                uint64_t half = 1ULL << (k - 1);
                digits = p >> k;
                half_cmp = rem < half ? -1 : rem > half;
        }
        uint64_t last = decimals ? digits : ip;
        if (half_cmp > 0 || (half_cmp == 0 && (last & 1))) {
                if (++digits == scale) {
                        digits = 0;
                        ip++; /* cannot wrap: ip < 2^64 - 2^11 here */
                }
        }
        size_t n = 0;
        if (signbit(v)) /* -0.0 and small negatives print "-0" too */
                out[n++] = '-';
        n += numfmt_u64(out + n, ip);
        if (decimals) {
                out[n++] = '.';
                for (int i = decimals - 1; i >= 0; i--) {
                        out[n + (size_t)i] = (char)('0' + digits % 10);
                        digits /= 10;
                }
                n += (size_t)decimals;
        }
        return n;
}
