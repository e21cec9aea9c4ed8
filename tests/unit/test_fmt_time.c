/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the GPU log's timestamp with a per-second cache (fmt_time_gpu_cached in
 * util/fmt.c) writes what fmt_time_gpu writes, across DST changes, zones with odd
 * offsets, clock jumps back and forth, and a time zone changed between two seconds;
 * the daily files' date with one (fmt_date_cached) what fmt_date writes, across local
 * midnights. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/fmt.h"
#include "test_rng.h"

#define NS 1000000000LL

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
        return test_rng_next(&rng_state);
}

static void use_tz(const char *tz)
{
        setenv("TZ", tz, 1);
        tzset();
}

static unsigned long compared;

static void same(struct fmt_sec_cache *c, int64_t ns)
{
        char want[40], got[40];
        memset(got, 0x55, sizeof(got));
        size_t wn = fmt_time_gpu(want, sizeof(want), ns);
        size_t gn = fmt_time_gpu_cached(c, got, sizeof(got), ns);
        if (wn != gn || strlen(got) != gn || memcmp(want, got, wn + 1) != 0)
                fail_msg("TZ=%s ns=%lld: \"%s\" but cached \"%.*s\"", getenv("TZ"), (long long)ns,
                         want, (int)sizeof(got), got);
        compared++;
}

/* Walk from start for span_s seconds in 0..300 ms steps, now and then jumping back. */
static void walk(struct fmt_sec_cache *c, int64_t start_s, int64_t span_s)
{
        int64_t ns = start_s * NS, end = (start_s + span_s) * NS;
        while (ns < end) {
                same(c, ns);
                uint64_t r = rnd();
                if (r % 97 == 0)
                        ns -= (int64_t)(r % (3 * NS)); /* the wall clock set back */
                else
                        ns += (int64_t)(r % (300 * 1000000));
        }
}

static void test_dst_transitions(void **state)
{
        (void)state;
        static const struct {
                const char *tz;
                int64_t at_s; /* a transition, UTC */
        } t[] = {
            {"Europe/Berlin", 1774746000},       /* 2026-03-29 01:00 UTC, +1 -> +2 */
            {"Europe/Berlin", 1792890000},       /* 2026-10-25 01:00 UTC, +2 -> +1 */
            {"America/New_York", 1772953200},    /* 2026-03-08 07:00 UTC */
            {"America/New_York", 1793512800},    /* 2026-11-01 06:00 UTC */
            {"Australia/Lord_Howe", 1775314800}, /* 2026-04-04 15:00 UTC, half-hour DST */
            {"Asia/Kolkata", 1774746000},        /* +5:30, no DST */
            {"CET-1CEST,M3.5.0,M10.5.0/3", 1774746000},
            {"UTC", 0},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct fmt_sec_cache c = {0};
                use_tz(t[i].tz);
                walk(&c, t[i].at_s - 3600, 2 * 3600);
        }
        /* Before 1970 the seconds round down, not toward zero. */
        struct fmt_sec_cache c = {0};
        use_tz("Europe/Berlin");
        walk(&c, -5, 10);
        assert_true(compared > 100000);
}

/* Every transition of a year, stepping an hour at a time, with the cache kept. */
static void test_year_hourly(void **state)
{
        (void)state;
        struct fmt_sec_cache c = {0};
        use_tz("America/New_York");
        for (int64_t s = 1767225600; s < 1767225600 + 366 * 86400; s += 3599)
                same(&c, s * NS + (int64_t)(rnd() % NS));
}

/* The time zone changes between two seconds (tzset, as after a new TZ): the next
 * second is in the new zone. */
static void test_tz_change(void **state)
{
        (void)state;
        struct fmt_sec_cache c = {0};
        char got[40];
        int64_t s = 1773482700; /* 2026-03-14 10:05:00 UTC */
        use_tz("UTC");
        same(&c, s * NS + 100000000);
        fmt_time_gpu_cached(&c, got, sizeof(got), s * NS + 200000000);
        assert_string_equal(got, "2026/03/14 10:05:00.200");
        use_tz("Asia/Kolkata");
        fmt_time_gpu_cached(&c, got, sizeof(got), (s + 1) * NS);
        assert_string_equal(got, "2026/03/14 15:35:01.000");
        same(&c, (s + 1) * NS + 999999999);
        use_tz("UTC");
        same(&c, (s + 2) * NS);
}

/* A buffer too small for the cached text gets what fmt_time_gpu writes there. */
static void test_small_buffer(void **state)
{
        (void)state;
        struct fmt_sec_cache c = {0};
        char want[40], got[40];
        use_tz("UTC");
        for (size_t cap = 1; cap <= 25; cap++) {
                memset(want, 0, sizeof(want));
                memset(got, 0, sizeof(got));
                size_t wn = fmt_time_gpu(want, cap, 1773482700LL * NS + 5000000);
                size_t gn = fmt_time_gpu_cached(&c, got, cap, 1773482700LL * NS + 5000000);
                assert_int_equal(wn, gn);
                assert_memory_equal(want, got, cap);
        }
}

static void same_date(struct fmt_sec_cache *c, int64_t ns, size_t cap)
{
        char want[40], got[40];
        memset(want, 0x55, sizeof(want));
        memset(got, 0x55, sizeof(got));
        size_t wn = fmt_date(want, cap, ns);
        size_t gn = fmt_date_cached(c, got, cap, ns);
        if (wn != gn || memcmp(want, got, sizeof(got)) != 0)
                fail_msg("TZ=%s ns=%lld cap=%zu: \"%s\" but cached \"%.*s\"", getenv("TZ"),
                         (long long)ns, cap, want, (int)gn, got);
}

/* Local midnights (and DST changes) in several zones, in 0..300 ms steps with jumps
 * back, then buffers too small for the date. */
static void test_date_cached(void **state)
{
        (void)state;
        static const char *const zones[] = {"Europe/Berlin", "America/New_York",
                                            "Australia/Lord_Howe", "Asia/Kolkata", "UTC"};
        unsigned long n = 0;
        for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
                struct fmt_sec_cache c = {0};
                use_tz(zones[i]);
                /* 2026-03-28 12:00 UTC for 40 hours: two local midnights everywhere, and
                 * the DST change of 2026-03-29 in Berlin. */
                int64_t ns = 1774699200LL * NS, end = ns + 40 * 3600 * NS;
                while (ns < end) {
                        same_date(&c, ns, 40);
                        n++;
                        uint64_t r = rnd();
                        if (r % 97 == 0)
                                ns -= (int64_t)(r % (3 * NS));
                        else
                                ns += (int64_t)(r % (300 * 1000000)) * (r % 3 == 0 ? 10 : 1);
                }
        }
        assert_true(n > 100000);
        struct fmt_sec_cache c = {0};
        use_tz("UTC");
        for (size_t cap = 1; cap <= 12; cap++)
                same_date(&c, 1773482700LL * NS + 5000000, cap);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_dst_transitions), cmocka_unit_test(test_year_hourly),
            cmocka_unit_test(test_tz_change),       cmocka_unit_test(test_small_buffer),
            cmocka_unit_test(test_date_cached),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
