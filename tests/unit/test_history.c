/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the dashboard's history ring (core/history.c): record periods and
 * capacity, wrap-around, worst-of folding of GPU samples between host ticks, the
 * memory bound, markers, copies and layout growth. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history.h"
#include "util/clock.h"

#define MS (1000000LL)

static struct frame fr;

static void host_tick(struct history *h, int64_t mono_ns, bool gpu)
{
        struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST) | (gpu ? VCLOCK_BIT(VCLOCK_GPU) : 0),
                         .mono_ns = mono_ns,
                         .real_ns = 1700000000LL * NSEC_PER_SEC + mono_ns};
        history_push(h, &fr, &t);
}

static void gpu_tick(struct history *h, int64_t mono_ns)
{
        struct tick t = {.due = VCLOCK_BIT(VCLOCK_GPU),
                         .mono_ns = mono_ns,
                         .real_ns = 1700000000LL * NSEC_PER_SEC + mono_ns};
        history_push(h, &fr, &t);
}

static void one_gpu(unsigned nfans)
{
        frame_clear(&fr);
        fr.ngpus = 1;
        gpu_frame_clear(&fr.gpus[0]);
        fr.gpus[0].present = true;
        fr.gpus[0].ok = true;
        fr.gpus[0].nfans = nfans;
}

static void set_gpu(double temp, double fan, double limit, double clock, double mask)
{
        struct gpu_frame *g = &fr.gpus[0];
        g->temp_c = temp;
        g->fan_speed_pct[0] = fan;
        g->power_w = 200;
        g->power_limit_w = limit;
        g->gpu_clock_mhz = clock;
        g->mem_clock_mhz = 9501;
        g->util_gpu_pct = 50;
        g->throttle_valid = VAL_OK(mask);
        g->throttle_mask = g->throttle_valid ? (uint64_t)mask : 0;
}

static void test_periods(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_int_equal(history_capacity(h), 900);
        assert_int_equal(history_ticks_per_record(h), 1);
        assert_true(history_period_ns(h) == NSEC_PER_SEC);
        history_free(h);
        /* 10 ms: every 100th tick, still 15 minutes in 900 records. */
        h = history_new(10 * MS, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_int_equal(history_ticks_per_record(h), 100);
        assert_int_equal(history_capacity(h), 900);
        assert_true(history_period_ns(h) == NSEC_PER_SEC);
        history_free(h);
        /* 300 ms: every 4th (1.2 s), 750 records. */
        h = history_new(300 * MS, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_int_equal(history_ticks_per_record(h), 4);
        assert_int_equal(history_capacity(h), 750);
        history_free(h);
        /* 5 s (the signage profile): 180 records. */
        h = history_new(5 * NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_int_equal(history_ticks_per_record(h), 1);
        assert_int_equal(history_capacity(h), 180);
        assert_int_equal(history_count(h), 0);
        int64_t m, r;
        assert_false(history_anchor(h, &m, &r));
        history_free(h);
        assert_null(history_new(0, HISTORY_SPAN_NS, 900));
        assert_null(history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, 0));
        history_free(NULL);
}

static void test_wrap_around(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, 5 * NSEC_PER_SEC, 5);
        assert_int_equal(history_capacity(h), 5);
        frame_clear(&fr);
        for (int i = 0; i < 12; i++) {
                fr.host.cpu_total_pct = i;
                fr.host.mem_avail_bytes = 1000.0 * i;
                host_tick(h, (i + 1) * NSEC_PER_SEC, false);
                assert_int_equal(history_count(h), i < 5 ? i + 1 : 5);
        }
        for (size_t i = 0; i < 5; i++) {
                assert_true(history_host(h, i, HH_CPU_PCT) == 7.0 + (double)i);
                assert_true(history_host(h, i, HH_MEM_AVAIL_BYTES) == 7000.0 + 1000.0 * (double)i);
                assert_true(history_mono_ns(h, i) == (int64_t)(8 + i) * NSEC_PER_SEC);
                assert_true(isnan(history_host(h, i, HH_TEMP_C)));
        }
        assert_true(isnan(history_host(h, 5, HH_CPU_PCT)));
        int64_t m, r;
        assert_true(history_anchor(h, &m, &r));
        assert_true(m == 12 * NSEC_PER_SEC);
        assert_true(r == 1700000000LL * NSEC_PER_SEC + 12 * NSEC_PER_SEC);
        history_free(h);
}

/* Ten GPU samples at 100 ms between two host ticks: the record keeps the worst. */
static void test_gpu_worst_of(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        one_gpu(2);
        fr.gpus[0].fan_speed_pct[1] = 40;
        set_gpu(50, 30, 300, 1500, 0);
        host_tick(h, 0, true); /* the first record: one sample */
        assert_int_equal(history_count(h), 1);
        assert_int_equal(history_nfans(h, 0), 2);
        for (int k = 1; k < 10; k++) {
                if (k == 3)
                        set_gpu(91, 85, 250, 600, 0x4); /* one 100 ms spike */
                else if (k == 6)
                        set_gpu(52, 31, 300, 1500, 0x40);
                else
                        set_gpu(50, 30, 300, 1500, 0);
                if (k == 7)
                        snprintf(fr.gpus[0].flags, sizeof(fr.gpus[0].flags), "FAN_SPIKE");
                else
                        fr.gpus[0].flags[0] = '\0';
                gpu_tick(h, k * 100 * MS);
        }
        set_gpu(50, 30, 300, 1500, 0);
        host_tick(h, NSEC_PER_SEC, true);
        assert_int_equal(history_count(h), 2);
        assert_true(history_gpu(h, 1, 0, HG_TEMP_C) == 91);
        assert_true(history_gpu_fan(h, 1, 0, 0) == 85);
        assert_true(history_gpu_fan(h, 1, 0, 1) == 40);
        assert_true(history_gpu(h, 1, 0, HG_POWER_LIMIT_W) == 250);
        assert_true(history_gpu(h, 1, 0, HG_GPU_CLOCK_MHZ) == 600);
        assert_true(history_gpu(h, 1, 0, HG_MEM_CLOCK_MHZ) == 9501);
        assert_true(history_gpu(h, 1, 0, HG_POWER_W) == 200);
        assert_int_equal(history_gpu_mask(h, 1, 0), 0x44);
        assert_int_equal(history_gpu_flags(h, 1, 0), HIST_GPU_SEEN | HIST_GPU_FLAGGED);
        /* The next period is calm again; a failed sample marks it lost. */
        fr.gpus[0].ok = false;
        gpu_tick(h, 1500 * MS);
        fr.gpus[0].ok = true;
        host_tick(h, 2 * NSEC_PER_SEC, true);
        assert_true(history_gpu(h, 2, 0, HG_TEMP_C) == 50);
        assert_int_equal(history_gpu_mask(h, 2, 0), 0);
        assert_int_equal(history_gpu_flags(h, 2, 0), HIST_GPU_SEEN | HIST_GPU_FAILED);
        /* Out of range: missing. */
        assert_true(isnan(history_gpu(h, 2, 1, HG_TEMP_C)));
        assert_true(isnan(history_gpu_fan(h, 2, 0, 2)));
        assert_int_equal(history_gpu_flags(h, 3, 0), 0);
        history_free(h);
}

/* GPU every 2 s, host every 1 s: a period without a GPU sample keeps the last one. */
static void test_gpu_slower_than_host(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        one_gpu(1);
        set_gpu(60, 33, 300, 1400, 0);
        host_tick(h, 0, true);
        host_tick(h, NSEC_PER_SEC, false);
        assert_int_equal(history_count(h), 2);
        assert_true(history_gpu(h, 1, 0, HG_TEMP_C) == 60);
        assert_true(history_gpu_fan(h, 1, 0, 0) == 33);
        assert_int_equal(history_gpu_flags(h, 1, 0), HIST_GPU_SEEN);
        history_free(h);
}

/* 100 ms host ticks: a record per 10 ticks with the highest CPU and the lowest memory. */
static void test_host_decimation(void **state)
{
        (void)state;
        struct history *h = history_new(100 * MS, 10 * NSEC_PER_SEC, 10);
        assert_int_equal(history_ticks_per_record(h), 10);
        frame_clear(&fr);
        fr.rpi.present = true;
        for (int i = 0; i < 25; i++) {
                fr.host.cpu_total_pct = i == 4 ? 99 : 10;
                fr.host.mem_avail_bytes = i == 6 ? 1e6 : 2e9;
                fr.host.temp_c = 40 + i;
                fr.rpi.arm_hz = i == 2 ? 600e6 : 1500e6;
                fr.rpi.volt_core_v = 0.85;
                fr.rpi.throttled_valid = i == 5 || i == 8;
                fr.rpi.throttled = i == 5 ? 0x50005 : i == 8 ? 0x2 : 0;
                host_tick(h, (i + 1) * 100 * MS, false);
        }
        assert_int_equal(history_count(h), 2);
        assert_true(history_host(h, 0, HH_CPU_PCT) == 99);
        assert_true(history_host(h, 0, HH_MEM_AVAIL_BYTES) == 1e6);
        assert_true(history_host(h, 0, HH_TEMP_C) == 49);
        assert_true(history_host(h, 1, HH_CPU_PCT) == 10);
        assert_true(history_host(h, 1, HH_MEM_AVAIL_BYTES) == (double)2e9f);
        assert_true(history_host(h, 1, HH_TEMP_C) == 59);
        assert_true(history_rpi(h, 0, HR_ARM_HZ) == 600e6);
        assert_true(history_rpi(h, 1, HR_ARM_HZ) == 1500e6);
        assert_true(history_rpi(h, 0, HR_VOLT_V) == (double)0.85f);
        uint32_t w = 0;
        assert_true(history_rpi_throttled(h, 0, &w));
        assert_int_equal(w, 0x50007);
        assert_false(history_rpi_throttled(h, 1, &w));
        assert_true(history_mono_ns(h, 0) == NSEC_PER_SEC);
        assert_true(history_mono_ns(h, 1) == 2 * NSEC_PER_SEC);
        history_free(h);
}

static void fill_max_layout(void)
{
        frame_clear(&fr);
        fr.nwatches = VIGIL_MAX_WATCHES;
        for (unsigned w = 0; w < VIGIL_MAX_WATCHES; w++) {
                watch_frame_clear(&fr.watches[w]);
                fr.watches[w].count = w;
                fr.watches[w].pss_bytes = 1e6 * w;
        }
        fr.ngpus = VIGIL_MAX_GPUS;
        for (unsigned g = 0; g < VIGIL_MAX_GPUS; g++) {
                gpu_frame_clear(&fr.gpus[g]);
                fr.gpus[g].present = fr.gpus[g].ok = true;
                fr.gpus[g].nfans = VIGIL_MAX_FANS;
                fr.gpus[g].temp_c = g;
                for (unsigned k = 0; k < VIGIL_MAX_FANS; k++)
                        fr.gpus[g].fan_speed_pct[k] = 10 * g + k;
        }
}

/* The ceiling: VIGIL_MAX_GPUS (256) GPUs with 8 fans, 16 watches, a 10 ms interval, an
 * hour of ticks. */
static void test_memory_bound(void **state)
{
        (void)state;
        struct history *h = history_new(10 * MS, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        fill_max_layout();
        for (int64_t i = 0; i < 360000; i++)
                host_tick(h, (i + 1) * 10 * MS, i % 10 == 0);
        assert_int_equal(history_count(h), 900);
        /* 4393 slots of 4 bytes and a time per record, the record being built, markers,
         * the enforced limits' steps (16 of 16 B and a ring's two indices per GPU slot):
         * 15.9 MB, against 356 KB for 8 GPUs with 2 fans (the ring holds the GPUs
         * present, not the ceiling). */
        size_t slots = 9 + 2 * 16 + VIGIL_MAX_GPUS * (9 + 8);
        assert_int_equal(slots, 4393);
        assert_int_equal(history_bytes(h), 900 * (slots * 4 + 8) + slots * 4 + 128 * 168 +
                                               VIGIL_MAX_GPUS * (HISTORY_LIMIT_STEPS * 16 + 8));
        assert_true(history_bytes(h) < 16100000);
        assert_true(history_gpu_fan(h, 899, 15, 7) == 157);
        assert_true(history_watch(h, 899, 15, HW_PSS_BYTES) == 15e6);
        assert_true(history_watch(h, 0, 3, HW_PROCS) == 3);
        assert_true(history_mono_ns(h, 899) == 3600 * NSEC_PER_SEC);
        assert_true(history_mono_ns(h, 0) == 2701 * NSEC_PER_SEC);
        history_free(h);
}

static void test_markers(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        char text[64];
        for (int i = 0; i < 130; i++) {
                int n = snprintf(text, sizeof(text), "type=X n=%d", i);
                history_add_marker(h, i * MS, text, (size_t)n);
        }
        assert_int_equal(history_nmarkers(h), 128);
        int64_t mono;
        assert_string_equal(history_marker(h, 0, &mono), "type=X n=2");
        assert_true(mono == 2 * MS);
        assert_string_equal(history_marker(h, 127, &mono), "type=X n=129");
        assert_null(history_marker(h, 128, &mono));
        /* Cut at the length limit; a newline ends the text. */
        char big[400];
        memset(big, 'a', sizeof(big));
        history_add_marker(h, 5, big, sizeof(big));
        assert_int_equal(strlen(history_marker(h, 127, &mono)), HISTORY_MARKER_LEN - 1);
        history_add_marker(h, 6, "one\ntwo", 7);
        assert_string_equal(history_marker(h, 127, &mono), "one");
        history_free(h);
}

static void test_copy_and_growth(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, 4 * NSEC_PER_SEC, 4);
        struct history *c = history_new(1, 1, 1);
        assert_int_equal(history_copy(c, h), 0);
        assert_int_equal(history_count(c), 0);
        one_gpu(1);
        for (int i = 0; i < 6; i++) {
                set_gpu(40 + i, 20, 300, 1500, 0);
                host_tick(h, (i + 1) * NSEC_PER_SEC, true);
        }
        history_add_marker(h, 3 * NSEC_PER_SEC, "type=ANOMALY gpu=0 flag=FAN_SPIKE", 33);
        assert_int_equal(history_copy(c, h), 0);
        assert_int_equal(history_count(c), 4);
        assert_int_equal(history_capacity(c), 4);
        for (size_t i = 0; i < 4; i++) {
                assert_true(history_gpu(c, i, 0, HG_TEMP_C) == 42.0 + (double)i);
                assert_true(history_mono_ns(c, i) == history_mono_ns(h, i));
        }
        int64_t mono;
        assert_string_equal(history_marker(c, 0, &mono), "type=ANOMALY gpu=0 flag=FAN_SPIKE");
        /* The copy does not follow the source. */
        host_tick(h, 7 * NSEC_PER_SEC, true);
        assert_true(history_gpu(c, 0, 0, HG_TEMP_C) == 42);
        assert_true(history_gpu(h, 0, 0, HG_TEMP_C) == 43);
        assert_true(history_mono_ns(c, 3) == 6 * NSEC_PER_SEC);
        assert_true(history_mono_ns(h, 3) == 7 * NSEC_PER_SEC);
        /* A second GPU appears: a new layout, the ring starts again. */
        fr.ngpus = 2;
        fr.gpus[1] = fr.gpus[0];
        fr.gpus[1].nfans = 3;
        host_tick(h, 8 * NSEC_PER_SEC, true);
        assert_int_equal(history_ngpus(h), 2);
        assert_int_equal(history_nfans(h, 1), 3);
        assert_int_equal(history_count(h), 1);
        assert_true(history_gpu(h, 0, 1, HG_TEMP_C) == 45);
        assert_int_equal(history_copy(c, h), 0);
        assert_int_equal(history_ngpus(c), 2);
        assert_int_equal(history_count(c), 1);
        assert_true(history_gpu(c, 0, 1, HG_TEMP_C) == 45);
        /* A GPU that disappears from the frame keeps its slot. */
        fr.ngpus = 1;
        host_tick(h, 9 * NSEC_PER_SEC, true);
        assert_int_equal(history_count(h), 2);
        assert_true(isnan(history_gpu(h, 1, 1, HG_TEMP_C)));
        assert_int_equal(history_gpu_flags(h, 1, 1), 0);
        history_free(c);
        history_free(h);
}

/* The enforced power limit: a step line from its changes, the lowest of a record's
 * period, unknown before the first change kept; bounded (the oldest go). */
static void test_enforced_steps(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        one_gpu(1);
        set_gpu(50, 30, 600, 1500, 0);
        host_tick(h, 1 * NSEC_PER_SEC, true); /* not read yet */
        for (int i = 2; i <= 30; i++) {
                fr.gpus[0].enforced_limit_w = i < 10 ? 600 : i < 20 ? 300 : 600;
                if (i % 3 == 0)
                        fr.gpus[0].enforced_limit_w = VAL_MISSING; /* a sample without it */
                if (i == 25) {                                     /* 305 W between ticks */
                        fr.gpus[0].enforced_limit_w = 305;
                        gpu_tick(h, i * NSEC_PER_SEC - 500 * MS);
                        fr.gpus[0].enforced_limit_w = 600;
                }
                host_tick(h, i * NSEC_PER_SEC, true);
        }
        assert_int_equal(history_count(h), 30);
        assert_true(isnan(history_gpu_enforced(h, 0, 0)));
        assert_true(history_gpu_enforced(h, 1, 0) == 600);
        assert_true(history_gpu_enforced(h, 8, 0) == 600);  /* tick 9 */
        assert_true(history_gpu_enforced(h, 9, 0) == 300);  /* tick 10: the change */
        assert_true(history_gpu_enforced(h, 18, 0) == 300); /* tick 19 */
        assert_true(history_gpu_enforced(h, 19, 0) == 300); /* tick 20: 600 came in it */
        assert_true(history_gpu_enforced(h, 20, 0) == 600);
        assert_true(history_gpu_enforced(h, 24, 0) == 305); /* tick 25: a short dip */
        assert_true(history_gpu_enforced(h, 25, 0) == 600); /* 600 again from tick 25 */
        assert_true(history_gpu_enforced(h, 26, 0) == 600);
        assert_true(history_gpu_enforced(h, 29, 0) == 600);
        assert_true(isnan(history_gpu_enforced(h, 30, 0)));
        assert_true(isnan(history_gpu_enforced(h, 29, 1)));
        assert_true(isnan(history_gpu_enforced(h, 29, VIGIL_MAX_GPUS)));
        /* A copy carries them. */
        struct history *c = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_int_equal(history_copy(c, h), 0);
        assert_true(history_gpu_enforced(c, 9, 0) == 300);
        history_free(c);
        /* A limit that changes every tick: the last HISTORY_LIMIT_STEPS changes only. */
        for (int i = 31; i <= 60; i++) {
                fr.gpus[0].enforced_limit_w = 400 + i;
                host_tick(h, i * NSEC_PER_SEC, true);
        }
        assert_true(history_gpu_enforced(h, 59, 0) == 459); /* 460 came at its end */
        assert_true(history_gpu_enforced(h, 60 - HISTORY_LIMIT_STEPS, 0) ==
                    400 + 61 - HISTORY_LIMIT_STEPS);
        assert_true(isnan(history_gpu_enforced(h, 59 - HISTORY_LIMIT_STEPS, 0)));
        history_free(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_periods),         cmocka_unit_test(test_wrap_around),
            cmocka_unit_test(test_gpu_worst_of),    cmocka_unit_test(test_gpu_slower_than_host),
            cmocka_unit_test(test_host_decimation), cmocka_unit_test(test_memory_bound),
            cmocka_unit_test(test_markers),         cmocka_unit_test(test_copy_and_growth),
            cmocka_unit_test(test_enforced_steps),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
