/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: streaming statistics (report/stats.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void test_acc(void **state)
{
        (void)state;
        struct stat_acc a;
        stat_acc_init(&a);
        assert_true(isnan(stat_acc_mean(&a)));
        stat_acc_add(&a, 3);
        stat_acc_add(&a, NAN);
        stat_acc_add(&a, 1);
        stat_acc_add(&a, 2);
        assert_int_equal(a.n, 3);
        assert_true(a.min == 1 && a.max == 3 && a.sum == 6);
        assert_true(stat_acc_mean(&a) == 2);
        stat_acc_add(&a, -0.5);
        assert_true(a.min == -0.5);
}

/* Expected values are Python's repr() of the reference trend() on the same lists. */
static void test_quarter_delta_matches_python(void **state)
{
        (void)state;
        const double v[] = {47.2, 48.1, 47.9, 50.3, 51.0, 49.8, 52.25,
                            53.1, 52.7, 54.4, 55.0, 0.3,  0.1};
        assert_true(isnan(stat_quarter_delta(v, 7)));
        assert_true(stat_quarter_delta(v, 8) == 5.0249999999999915);
        assert_true(stat_quarter_delta(v, 11) == 7.049999999999997);
        assert_true(stat_quarter_delta(v, 13) == -29.266666666666676);
        const double ints[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assert_true(stat_quarter_delta(ints, 10) == 8.0); /* (9+10)/2 - (1+2)/2 */
        assert_true(stat_quarter_delta(ints, 9) == 7.0);  /* k = 2 */

        /* The series gives the same figure, bit for bit, while it fits. */
        struct stat_series s;
        assert_int_equal(stat_series_init(&s, 64), 0);
        for (size_t i = 0; i < 13; i++) {
                stat_series_add(&s, (double)i, v[i]);
                if (i == 5)
                        stat_series_add(&s, 5.5, NAN); /* a missing value does not count */
        }
        assert_true(stat_series_exact(&s));
        assert_int_equal(s.total, 13);
        assert_true(stat_series_quarter_delta(&s) == -29.266666666666676);
        stat_series_free(&s);
        stat_series_free(&s);
}

static void test_series_decimation(void **state)
{
        (void)state;
        struct stat_series s;
        assert_int_equal(stat_series_init(&s, 0), -EINVAL);
        assert_int_equal(stat_series_init(&s, 8), 0);
        for (int i = 0; i < 20; i++)
                stat_series_add(&s, i, i);
        /* 0..7 fill it; 8 halves to pairs; 16 halves again to fours. */
        assert_int_equal(s.n, 5);
        assert_int_equal(s.stride, 4);
        assert_int_equal(s.total, 20);
        assert_false(stat_series_exact(&s));
        const double sums[] = {6, 22, 38, 54, 70};
        for (size_t i = 0; i < 5; i++) {
                assert_true(s.p[i].t == 4.0 * (double)i);
                assert_true(s.p[i].sum == sums[i]);
                assert_int_equal(s.p[i].n, 4);
                assert_true(s.p[i].span_s == 3);
                assert_true(s.p[i].min == 4 * i && s.p[i].max == 4 * i + 3);
                assert_true(s.p[i].flags & STAT_P_MIN_FIRST);
        }
        /* Merged: head = 6 + 1 * 5.5, tail = 1 * 13.5 + 70 (exact would be 15). */
        assert_near(stat_series_quarter_delta(&s), 83.5 / 5 - 11.5 / 5, 1e-12);

        double x[16], y[16];
        assert_int_equal(stat_series_chart(&s, x, y, 16), 10);
        assert_true(x[0] == 0 && y[0] == 0 && x[1] == 3 && y[1] == 3);
        assert_true(x[9] == 19 && y[9] == 19);
        stat_series_free(&s);

        /* Many values: memory stays at cap points, the order and the total stay. */
        assert_int_equal(stat_series_init(&s, 100), 0);
        for (int i = 0; i < 100000; i++)
                stat_series_add(&s, i, (i % 1000) == 999 ? 500 : 1);
        assert_true(s.n <= 100 && s.n > 50);
        uint64_t total = 0;
        float top = 0;
        for (size_t i = 0; i < s.n; i++) {
                total += s.p[i].n;
                if (i)
                        assert_true(s.p[i].t > s.p[i - 1].t);
                top = fmaxf(top, s.p[i].max);
        }
        assert_int_equal(total, 100000);
        assert_true(top == 500); /* a one-sample spike survives merging */
        stat_series_free(&s);
}

static void test_series_gap_and_min_order(void **state)
{
        (void)state;
        struct stat_series s;
        assert_int_equal(stat_series_init(&s, 8), 0);
        stat_series_add(&s, 0, 1);
        stat_series_add(&s, 1, NAN);
        stat_series_add(&s, 2, 3);
        assert_int_equal(s.n, 2);
        assert_true(s.p[1].flags & STAT_P_GAP_BEFORE);
        double x[8], y[8];
        assert_int_equal(stat_series_chart(&s, x, y, 8), 3);
        assert_true(x[0] == 0 && y[0] == 1);
        assert_true(x[1] == 2 && isnan(y[1]));
        assert_true(x[2] == 2 && y[2] == 3);
        stat_series_free(&s);

        /* A falling bucket draws its maximum first. */
        assert_int_equal(stat_series_init(&s, 8), 0);
        for (int i = 0; i < 14; i++)
                stat_series_add(&s, i, 100 - i);
        stat_series_add(&s, 16, 0);
        assert_int_equal(s.stride, 2);
        assert_int_equal(s.n, 8);
        assert_false(s.p[0].flags & STAT_P_MIN_FIRST);
        double cx[24], cy[24];
        assert_int_equal(stat_series_chart(&s, cx, cy, 24), 15);
        assert_true(cy[0] == 100 && cy[1] == 99 && cx[1] == 1);
        assert_true(cx[14] == 16 && cy[14] == 0);
        stat_series_free(&s);
}

static int cmp_d(const void *a, const void *b)
{
        double l = *(const double *)a, r = *(const double *)b;
        return (l > r) - (l < r);
}

static void test_median_selection(void **state)
{
        (void)state;
        double v[301], w[301];
        uint32_t seed = 12345;
        assert_true(isnan(stat_median(v, 0)));
        for (size_t n = 1; n <= 301; n += 7) {
                for (size_t i = 0; i < n; i++) {
                        seed = seed * 1103515245u + 12345u;
                        v[i] = (double)((seed >> 16) % 50); /* many duplicates */
                        w[i] = v[i];
                }
                qsort(w, n, sizeof(double), cmp_d);
                double want = n & 1 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
                assert_true(stat_median(v, n) == want);
        }
        double even[] = {4, 1, 3, 2};
        assert_true(stat_median(even, 4) == 2.5);
}

static void test_theil_sen(void **state)
{
        (void)state;
        double slope = 7, level = 7;
        /* Slopes: six of 1, then 25, 33, 49, 97: the outlier does not move the median. */
        const double x1[] = {0, 1, 2, 3, 4}, y1[] = {0, 1, 2, 3, 100};
        assert_int_equal(stat_theil_sen(x1, y1, 5, &slope, &level), 0);
        assert_true(slope == 1);
        assert_true(level == 4); /* median of 4, 4, 4, 4, 100 */
        /* Slopes -1, 0.5, 1, 4/3, 2, 3: median (1 + 4/3) / 2 = 7/6.
         * Levels at x=3: 4.5, 5.33, 3.17, 5: median 4.75. */
        const double x2[] = {0, 1, 2, 3}, y2[] = {1, 3, 2, 5};
        assert_int_equal(stat_theil_sen(x2, y2, 4, &slope, &level), 0);
        assert_near(slope, 7.0 / 6.0, 1e-15);
        assert_near(level, 4.75, 1e-15);
        /* Equal x never divides by zero; no distinct x at all is an error. */
        const double x3[] = {5, 5}, y3[] = {1, 2};
        slope = 9;
        assert_int_equal(stat_theil_sen(x3, y3, 2, &slope, &level), -EINVAL);
        assert_true(slope == 9);
        assert_int_equal(stat_theil_sen(x3, y3, 1, &slope, &level), -EINVAL);
        const double x4[] = {0, 0, 10}, y4[] = {0, 4, 10};
        assert_int_equal(stat_theil_sen(x4, y4, 3, &slope, &level), 0);
        assert_near(slope, 0.8, 1e-15); /* slopes 1 and 0.6 */

        /* Over a decimated series: a steady leak of 0.05 per second. */
        struct stat_series s;
        assert_int_equal(stat_series_init(&s, STAT_SERIES_CAP), 0);
        for (int i = 0; i < 20000; i++)
                stat_series_add(&s, 1.8e9 + 10.0 * i, 1000 - 0.5 * i + ((i % 97) == 0 ? 300 : 0));
        assert_false(stat_series_exact(&s));
        assert_int_equal(stat_series_theil_sen(&s, 1, &slope, &level), -EINVAL);
        assert_int_equal(stat_series_theil_sen(&s, STAT_TS_MAX_POINTS, &slope, &level), 0);
        assert_near(slope, -0.05, 0.002);
        stat_series_free(&s);
}

static void test_hours_to_zero(void **state)
{
        (void)state;
        assert_true(stat_hours_to_zero(100, -10) == 10);
        assert_true(stat_hours_to_zero(-3, -10) == 0);
        assert_true(isnan(stat_hours_to_zero(100, 0)));
        assert_true(isnan(stat_hours_to_zero(100, 2)));
        assert_true(isnan(stat_hours_to_zero(NAN, -2)));
        assert_true(isnan(stat_hours_to_zero(5, NAN)));
}

/* Mann-Kendall: S and its variance by hand. */
static void test_mann_kendall(void **state)
{
        (void)state;
        double up[10], same[5] = {3, 3, 3, 3, 3}, ties[4] = {1, 2, 2, 3};
        for (int i = 0; i < 10; i++)
                up[i] = i;
        /* S = 45, var = 10*9*25/18 = 125: z = 44 / sqrt(125). */
        assert_true(fabs(stat_mann_kendall_z(up, 10) - 44 / sqrt(125)) < 1e-12);
        for (int i = 0; i < 10; i++)
                up[i] = -i;
        assert_true(fabs(stat_mann_kendall_z(up, 10) + 44 / sqrt(125)) < 1e-12);
        assert_true(stat_mann_kendall_z(same, 5) == 0);
        /* S = 5; var = (4*3*13 - 2*1*9) / 18 = 138 / 18. */
        assert_true(fabs(stat_mann_kendall_z(ties, 4) - 4 / sqrt(138.0 / 18)) < 1e-12);
        assert_true(isnan(stat_mann_kendall_z(up, 2)));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_acc),
            cmocka_unit_test(test_quarter_delta_matches_python),
            cmocka_unit_test(test_series_decimation),
            cmocka_unit_test(test_series_gap_and_min_order),
            cmocka_unit_test(test_median_selection),
            cmocka_unit_test(test_theil_sen),
            cmocka_unit_test(test_hours_to_zero),
            cmocka_unit_test(test_mann_kendall),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
