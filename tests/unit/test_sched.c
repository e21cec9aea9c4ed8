/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the absolute-deadline scheduler (core/sched.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/sched.h"

#define MS 1000000LL

static void test_deadlines_do_not_drift(void **state)
{
        (void)state;
        struct sched s;
        sched_init(&s, 1000 * MS);
        sched_enable(&s, VCLOCK_HOST, 100 * MS);
        assert_int_equal(sched_next(&s), 1100 * MS);
        /* Waking 7 ms late samples now but keeps the series: the next is still at 1200. */
        assert_int_equal(sched_due(&s, 1107 * MS), VCLOCK_BIT(VCLOCK_HOST));
        assert_int_equal(sched_next(&s), 1200 * MS);
        assert_int_equal(sched_missed(&s), 0);
        /* Early wake-up (spurious): nothing due. */
        assert_int_equal(sched_due(&s, 1199 * MS), 0);
}

static void test_late_ticks_are_missed_not_shifted(void **state)
{
        (void)state;
        struct sched s;
        sched_init(&s, 0);
        sched_enable(&s, VCLOCK_HOST, 100 * MS);
        /* Deadlines 100, 200, 300 passed; waking at 350 samples the 300 one. */
        assert_int_equal(sched_due(&s, 350 * MS), VCLOCK_BIT(VCLOCK_HOST));
        assert_int_equal(sched_missed(&s), 2);
        assert_int_equal(sched_next(&s), 400 * MS);
}

static void test_several_clocks(void **state)
{
        (void)state;
        struct sched s;
        sched_init(&s, 0);
        sched_enable(&s, VCLOCK_HOST, 1000 * MS);
        sched_enable(&s, VCLOCK_GPU, 100 * MS);
        unsigned host_ticks = 0, gpu_ticks = 0;
        for (int i = 0; i < 30; i++) {
                int64_t next = sched_next(&s);
                unsigned due = sched_due(&s, next);
                host_ticks += !!(due & VCLOCK_BIT(VCLOCK_HOST));
                gpu_ticks += !!(due & VCLOCK_BIT(VCLOCK_GPU));
        }
        assert_int_equal(gpu_ticks, 30);
        assert_int_equal(host_ticks, 3);
        assert_int_equal(sched_missed(&s), 0);
        assert_false(s.c[VCLOCK_PSS].enabled);
}

static void test_lateness_quantiles(void **state)
{
        (void)state;
        struct sched s;
        sched_init(&s, 0);
        assert_int_equal(sched_lateness_quantile(&s, 0.5), -1);
        sched_enable(&s, VCLOCK_HOST, 10 * MS);
        for (int i = 1; i <= 100; i++) {
                int64_t late = i == 100 ? 5 * MS : 50000; /* 99 at 50 us, one at 5 ms */
                sched_due(&s, i * 10 * MS + late);
        }
        int64_t p50 = sched_lateness_quantile(&s, 0.5);
        int64_t p99 = sched_lateness_quantile(&s, 0.99);
        int64_t p100 = sched_lateness_quantile(&s, 1.0);
        assert_true(p50 >= 50000 && p50 < 60000);
        assert_true(p99 >= 50000 && p99 < 60000);
        assert_true(p100 >= 5 * MS && p100 < 6 * MS);
}

/* The bucket found from the octave is the one a walk from bucket 0 finds, at every
 * bucket's edges and far beyond the last bound. */
static unsigned walk_bucket(int64_t ns)
{
        unsigned b = 0;
        while (b < SCHED_LATENESS_BUCKETS - 1 && sched_bucket_bound_ns(b) < (double)ns)
                b++;
        return b;
}

static void test_lateness_bucket_is_the_walk(void **state)
{
        (void)state;
        const int64_t fixed[] = {INT64_MIN, -5, 0, 1, 999, 1000, 1001, 1999, 2000, 2001, INT64_MAX};
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
                assert_int_equal(sched_lateness_bucket(fixed[i]), walk_bucket(fixed[i]));
        for (unsigned b = 0; b < SCHED_LATENESS_BUCKETS; b++) {
                int64_t edge = (int64_t)sched_bucket_bound_ns(b);
                for (int64_t d = -2; d <= 2; d++)
                        assert_int_equal(sched_lateness_bucket(edge + d), walk_bucket(edge + d));
        }
        uint64_t x = 88172645463325252ULL; /* xorshift64: values over every octave */
        for (int i = 0; i < 200000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                int64_t ns = (int64_t)(x >> (x % 63));
                assert_int_equal(sched_lateness_bucket(ns), walk_bucket(ns));
        }
        assert_int_equal(sched_lateness_bucket(INT64_MAX), SCHED_LATENESS_BUCKETS - 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_deadlines_do_not_drift),
            cmocka_unit_test(test_late_ticks_are_missed_not_shifted),
            cmocka_unit_test(test_several_clocks),
            cmocka_unit_test(test_lateness_quantiles),
            cmocka_unit_test(test_lateness_bucket_is_the_walk),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
