/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the leak-trend detector (detect/trend.c) on synthetic hours of samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vigil.h"
#include "core/eventlog.h"
#include "metrics/metrics.h"
#include "util/pfile.h"

extern const struct vigil_detector vigil_detector_trend;

#define MIN_NS (60LL * 1000000000LL)

struct fixture {
        char dir[64];
        struct vigil_options opt;
        struct vigil_ctx ctx;
        struct frame frame;
        struct counters extra;
};

static struct fixture fx;

static int setup(void **state)
{
        (void)state;
        memset(&fx, 0, sizeof(fx));
        snprintf(fx.dir, sizeof(fx.dir), "/tmp/vigil-trend-XXXXXX");
        if (!mkdtemp(fx.dir))
                return -1;
        options_defaults(&fx.opt);
        fx.opt.quiet = true;
        frame_clear(&fx.frame);
        counters_clear(&fx.extra);
        fx.ctx.opt = &fx.opt;
        fx.ctx.frame = &fx.frame;
        fx.ctx.extra = &fx.extra;
        fx.ctx.log_dir = fx.dir;
        fx.frame.nwatches = 2;
        snprintf(fx.frame.watches[0].name, 32, "player");
        snprintf(fx.frame.watches[1].name, 32, "chromium");
        return eventlog_open(&fx.ctx.events, fx.dir);
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        eventlog_close(fx.ctx.events);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", fx.dir);
        return system(cmd);
}

/* Feed one sample a minute for the given minutes; chromium count from count_at(). */
static void feed(void *st, int minutes, double (*count_at)(int), double player_pss_mb)
{
        struct tick t;
        memset(&t, 0, sizeof(t));
        t.due = VCLOCK_BIT(VCLOCK_HOST);
        for (int m = 0; m < minutes; m++) {
                t.mono_ns = (int64_t)m * MIN_NS + 1;
                t.real_ns = 1796212800LL * 1000000000LL + t.mono_ns;
                fx.frame.host.sampled_real_ns = t.real_ns;
                fx.frame.watches[1].count = count_at(m);
                fx.frame.watches[1].pss_bytes = 100.0 * 1048576;
                fx.frame.watches[0].count = 1;
                fx.frame.watches[0].first_pss_bytes = player_pss_mb * 1048576;
                vigil_detector_trend.feed(st, &fx.ctx, &t);
        }
}

static double rising_count(int minute)
{
        /* 3 more processes an hour, with spikes a mean would chase. */
        return 10 + minute * 3 / 60.0 + (minute % 7 == 0 ? 5 : 0);
}

static double steady_count(int minute)
{
        return 10 + (minute % 7 == 0 ? 5 : 0);
}

static bool log_has(const char *needle)
{
        char buf[8192], path[128];
        snprintf(path, sizeof(path), "%s/events.log", fx.dir);
        return read_file_at(NULL, path, buf, sizeof(buf)) > 0 && strstr(buf, needle);
}

/* A player whose PSS grows 60 MB an hour on a machine with 1200 MB available: the
 * TREND line says when memory runs out at that rate (1200 / 60 = 20 h). */
static void test_rising_pss_says_when_memory_runs_out(void **state)
{
        (void)state;
        void *st;
        struct tick t;
        assert_int_equal(vigil_detector_trend.init(&fx.ctx, &st), 0);
        memset(&t, 0, sizeof(t));
        t.due = VCLOCK_BIT(VCLOCK_HOST);
        for (int m = 0; m < 90; m++) {
                t.mono_ns = (int64_t)m * MIN_NS + 1;
                t.real_ns = 1796212800LL * 1000000000LL + t.mono_ns;
                fx.frame.host.sampled_real_ns = t.real_ns;
                fx.frame.host.mem_avail_bytes = 1200.0 * 1048576;
                fx.frame.watches[1].count = 10;
                fx.frame.watches[1].pss_bytes = 100.0 * 1048576;
                fx.frame.watches[0].count = 1;
                fx.frame.watches[0].first_pss_bytes = (200.0 + m) * 1048576;
                vigil_detector_trend.feed(st, &fx.ctx, &t);
        }
        assert_true(log_has("type=TREND field=player_pss_mb state=rising slope_per_h=+60.00"));
        assert_true(log_has(" runs_out_in=20.0h"));
        vigil_detector_trend.fini(st);
}

static void test_rising_count_is_a_leak(void **state)
{
        (void)state;
        void *st;
        assert_int_equal(vigil_detector_trend.init(&fx.ctx, &st), 0);
        feed(st, 90, rising_count, 200);
        assert_true(log_has("type=TREND field=chromium_procs state=rising slope_per_h=+3.00"));
        assert_false(log_has("field=player_pss_mb"));
        assert_int_equal(fx.extra.nrules, 1);
        assert_string_equal(fx.extra.rules[0].name, "chromium_count_rising");
        assert_true(fx.extra.rules[0].active);
        vigil_detector_trend.fini(st);
}

static void test_steady_with_spikes_is_not(void **state)
{
        (void)state;
        void *st;
        assert_int_equal(vigil_detector_trend.init(&fx.ctx, &st), 0);
        feed(st, 90, steady_count, 200);
        assert_false(log_has("type=TREND"));
        vigil_detector_trend.fini(st);
}

static void test_too_short_is_not_judged(void **state)
{
        (void)state;
        void *st;
        assert_int_equal(vigil_detector_trend.init(&fx.ctx, &st), 0);
        feed(st, 25, rising_count, 200);
        assert_false(log_has("type=TREND"));
        vigil_detector_trend.fini(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_rising_count_is_a_leak, setup, teardown),
            cmocka_unit_test_setup_teardown(test_rising_pss_says_when_memory_runs_out, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_steady_with_spikes_is_not, setup, teardown),
            cmocka_unit_test_setup_teardown(test_too_short_is_not_judged, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
