/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: printf-free number formatting (util/numfmt.c), byte for byte against
 * glibc's snprintf over millions of pseudo-random values (fixed seed) and the edges. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/strbuf.h"
#include "test_rng.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
        return test_rng_next(&rng_state);
}

static double from_bits(uint64_t bits)
{
        double d;
        memcpy(&d, &bits, sizeof(d));
        return d;
}

static unsigned long checked;

/* One value at every precision: numfmt_fixed must take every finite |v| < 2^64 and
 * write snprintf's bytes; it must decline the rest. */
static void check_fixed(double v)
{
        for (int dec = 0; dec <= 3; dec++) {
                char want[400], got[NUMFMT_MAX + 1];
                int wn = snprintf(want, sizeof(want), "%.*f", dec, v);
                memset(got, 0x55, sizeof(got));
                size_t n = numfmt_fixed(got, v, dec);
                bool takes = isfinite(v) && fabs(v) < 18446744073709551616.0;
                if (!takes) {
                        if (n != 0)
                                fail_msg("%a (%.*f) should be declined", v, dec, v);
                        continue;
                }
                if (n == 0 || n > NUMFMT_MAX || n != (size_t)wn || memcmp(got, want, n) != 0)
                        fail_msg("%a at %d decimals: snprintf \"%s\", numfmt \"%.*s\"", v, dec,
                                 want, (int)(n > NUMFMT_MAX ? NUMFMT_MAX : n), got);
                checked++;
        }
}

static void check_both_signs(double v)
{
        check_fixed(v);
        check_fixed(-v);
}

static void test_fixed_edges(void **state)
{
        (void)state;
        static const double edges[] = {
            0.0,
            0.4,
            0.5,
            0.6,
            1.5,
            2.5,
            0.125, /* exact binary ties at 2 decimals: to even, 0.12 */
            0.375,
            0.0625,
            0.0005,
            0.0015,
            0.005,
            0.015,
            0.045,
            1.005,
            1.0005,
            287.5,
            412.345,
            1008.5,
            999.9995,
            999.995,
            9.9995,
            0.9995,
            0.9999999,
            DBL_MIN,
            DBL_TRUE_MIN,
            DBL_EPSILON,
            4503599627370495.5, /* 2^52 - 0.5 */
            4503599627370496.0,
            9007199254740991.0,
            9007199254740992.0,
            9007199254740993.0,
            18446744073709549568.0, /* the largest double below 2^64 */
            18446744073709551616.0, /* 2^64: declined */
            1e300,
            DBL_MAX,
        };
        for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
                check_both_signs(edges[i]);
        check_fixed(NAN);
        check_fixed(-NAN);
        check_fixed(INFINITY);
        check_fixed(-INFINITY);
        /* A spot check that the comparison itself bites. */
        char buf[NUMFMT_MAX];
        assert_int_equal(numfmt_fixed(buf, -0.0, 0), 2);
        assert_memory_equal(buf, "-0", 2);
        assert_int_equal(numfmt_fixed(buf, 287.5, 0), 3);
        assert_memory_equal(buf, "288", 3);
        assert_int_equal(numfmt_fixed(buf, 0.125, 2), 4);
        assert_memory_equal(buf, "0.12", 4);
        assert_int_equal(numfmt_fixed(buf, 1.0, 4), 0);
        assert_int_equal(numfmt_fixed(buf, 1.0, -1), 0);
}

/* Every double's bit pattern is equally likely: all exponents, subnormals, NaNs. */
static void test_fixed_random_bits(void **state)
{
        (void)state;
        for (int i = 0; i < 200000; i++)
                check_fixed(from_bits(rnd()));
}

/* Magnitudes spread evenly over 2^-1074 .. 2^70, where the fast path works. */
static void test_fixed_random_magnitudes(void **state)
{
        (void)state;
        for (int i = 0; i < 300000; i++) {
                uint64_t r = rnd();
                uint64_t bexp = (r >> 52) % 1145; /* biased exponent 0 .. 1144 (2^121) */
                if (bexp > 1023 + 70)
                        bexp = (bexp % 1094);
                check_fixed(from_bits((r & (1ULL << 63)) | (bexp << 52) | (rnd() >> 12)));
        }
}

/* What the GPU row formats: readings in whole units and NVML's mW, mJ, mV scaled
 * down, decimal ties (x.5, x.xx5, x.xxx5) that are not binary ties, and exact
 * binary ties (k / 2^n). */
static void test_fixed_readings(void **state)
{
        (void)state;
        for (int i = 0; i < 150000; i++) {
                uint64_t r = rnd();
                int64_t n = (int64_t)(r >> 40); /* 0 .. 2^24 */
                if (r & 1)
                        n = -n;
                check_fixed((double)n);
                check_fixed((double)n / 1000.0);
                check_fixed((double)n / 100.0);
                check_fixed((double)n / 10.0 + 0.05);
                check_fixed((double)(n * 10 + 5) / 10000.0);
                check_fixed((double)n / (double)(1u << (r >> 60)));
                check_fixed((double)(int64_t)(rnd() >> 11) / 1000.0); /* up to 2^53 mJ */
                check_fixed((double)(rnd() >> (rnd() & 63)));         /* whole, 0 .. 2^64 */
        }
}

static void test_fixed_count(void **state)
{
        (void)state;
        /* Millions of comparisons ran, not a silently skipped loop. */
        assert_true(checked > 5000000);
}

static void check_ints(uint64_t u)
{
        char want[40], got[NUMFMT_MAX];
        int wn = snprintf(want, sizeof(want), "%llu", (unsigned long long)u);
        size_t n = numfmt_u64(got, u);
        if (n != (size_t)wn || memcmp(got, want, n) != 0)
                fail_msg("%%llu of %s: got \"%.*s\"", want, (int)n, got);
        wn = snprintf(want, sizeof(want), "0x%04llx", (unsigned long long)u);
        n = numfmt_hex04(got, u);
        if (n != (size_t)wn || memcmp(got, want, n) != 0)
                fail_msg("0x%%04llx of %llx: got \"%.*s\"", (unsigned long long)u, (int)n, got);
}

static void test_integers(void **state)
{
        (void)state;
        static const uint64_t edges[] = {0,
                                         1,
                                         9,
                                         10,
                                         0xf,
                                         0x10,
                                         0xfff,
                                         0x1000,
                                         0xffff,
                                         0x10000,
                                         99,
                                         100,
                                         INT64_MAX,
                                         (uint64_t)INT64_MAX + 1,
                                         UINT64_MAX,
                                         UINT64_MAX - 1,
                                         10000000000000000000ULL};
        for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
                check_ints(edges[i]);
                check_ints(0 - edges[i]);
        }
        for (int i = 0; i < 1000000; i++)
                check_ints(rnd() >> (rnd() & 63));
}

/* sb_fixed: numfmt's bytes where it writes, printf's where it declines. */
static void test_sb_fixed(void **state)
{
        (void)state;
        const double vs[] = {0.0,
                             -0.0,
                             1.25,
                             2.5,
                             99.95,
                             -0.04,
                             1e20,
                             -1e30,
                             INFINITY,
                             -INFINITY,
                             18446744073709549568.0,
                             123456.789};
        for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
                for (int dec = 0; dec <= 3; dec++) {
                        char buf[128], want[128];
                        struct strbuf sb;
                        sb_init_fixed(&sb, buf, sizeof(buf));
                        sb_fixed(&sb, '\0', vs[i], dec);
                        sb_fixed(&sb, ',', vs[i], dec);
                        snprintf(want, sizeof(want), "%.*f,%.*f", dec, vs[i], dec, vs[i]);
                        assert_false(sb.overflow);
                        assert_int_equal(sb.len, strlen(want));
                        assert_memory_equal(buf, want, sb.len);
                }
        /* Near a fixed buffer's end (written through a copy there): the same bytes when
         * they fit, else none of them and the overflow flag; NUL-terminated either way. NaN
         * (printf's "nan") too, after a direct attempt that declined. */
        for (size_t cap = 2; cap <= 48; cap++) {
                char buf[48];
                struct strbuf sb;
                sb_init_fixed(&sb, buf, cap);
                sb_puts(&sb, "a");
                sb_fixed(&sb, ',', -123.456, 2);
                sb_fixed(&sb, ',', NAN, 1);
                const char *want = cap >= 14   ? "a,-123.46,nan"
                                   : cap >= 10 ? "a,-123.46"
                                   : cap >= 6  ? "a,nan" /* what fits after a drop */
                                               : "a";
                assert_string_equal(buf, want);
                assert_int_equal(sb.len, strlen(want));
                assert_int_equal(sb.overflow, cap < 14);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fixed_edges),
            cmocka_unit_test(test_fixed_random_bits),
            cmocka_unit_test(test_fixed_random_magnitudes),
            cmocka_unit_test(test_fixed_readings),
            cmocka_unit_test(test_fixed_count),
            cmocka_unit_test(test_integers),
            cmocka_unit_test(test_sb_fixed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
