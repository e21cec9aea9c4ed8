/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the GPU anomaly rules (detect/gpu_rules.c). Readings go in sample by
 * sample; the flags column, the counters and the log lines come out, compared with what
 * the reference logger produces for the same readings (and, where it is wrong, with
 * what it should produce). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/options.h"
#include "core/counters.h"
#include "detect/gpu_rules.h"

#define NS  1000000000LL
#define NaN VAL_MISSING

/* One sample's readings (NVML units); fan NaN = not read. */
struct reading {
        double temp, power_mw, limit_mw, fan0, fan1;
        double reasons;
        const char *flags; /* expected flags column */
};

struct rig {
        struct vigil_options opt;
        struct gpu_rules rules;
        struct gpu_stats stats;
        struct gpu_frame g;
        struct gpu_rules_out out;
        int64_t mono;
};

static void rig_init(struct rig *r)
{
        memset(r, 0, sizeof(*r));
        options_defaults(&r->opt);
        gpu_rules_init(&r->rules, &r->opt, &r->stats, 1);
        r->mono = 1000 * NS;
}

static void frame_of(struct gpu_frame *g, const struct reading *x)
{
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->present = g->sampled = g->ok = true;
        g->index = 0;
        g->nfans = 2;
        g->temp_c = x->temp;
        g->power_w = VAL_OK(x->power_mw) ? x->power_mw / 1000.0 : NaN;
        g->power_limit_w = VAL_OK(x->limit_mw) ? x->limit_mw / 1000.0 : NaN;
        g->fan_speed_pct[0] = x->fan0;
        g->fan_speed_pct[1] = x->fan1;
        g->throttle_valid = VAL_OK(x->reasons);
        g->throttle_mask = g->throttle_valid ? (uint64_t)x->reasons : 0;
}

/* Feed one reading 100 ms after the last; returns the flags column. */
static const char *feed(struct rig *r, const struct reading *x)
{
        frame_of(&r->g, x);
        r->mono += NS / 10;
        gpu_rules_step(&r->rules, 0, &r->g, &r->stats, r->mono, &r->out);
        return r->g.flags;
}

static void feed_table(struct rig *r, const struct reading *t, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                const char *got = feed(r, &t[i]);
                if (strcmp(got, t[i].flags) != 0)
                        fail_msg("sample %zu: flags '%s', expected '%s'", i + 1, got, t[i].flags);
        }
}

/* A quiet sample: 45 C, 85 W of 600 W, fans 30 %, idle. */
#define QUIET                                                                                      \
        {                                                                                          \
                45, 85000, 600000, 30, 30, 1, ""                                                   \
        }

static bool logged(const struct rig *r, const char *line)
{
        for (unsigned i = 0; i < r->out.nlog; i++)
                if (!strcmp(r->out.log[i], line))
                        return true;
        return false;
}

static bool evented(const struct rig *r, const char *line)
{
        for (unsigned i = 0; i < r->out.nevent; i++)
                if (!strcmp(r->out.event[i], line))
                        return true;
        return false;
}

/* FAN_SPIKE: |speed - previous| >= 15, only once more than 2 samples came before; the
 * previous speed is remembered during the warm-up too. */
static void test_fan_spike_warmup_and_threshold(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        const struct reading t[] = {
            {45, 85000, 600000, 30, 30, 1, ""},
            {45, 85000, 600000, 60, 30, 1, ""},          /* +30 during warm-up: no flag */
            {45, 85000, 600000, 30, 30, 1, ""},          /* -30, still warm-up (2 before) */
            {45, 85000, 600000, 60, 30, 1, "FAN_SPIKE"}, /* 3 before: flagged */
            {45, 85000, 600000, 60, 45, 1, "FAN_SPIKE"}, /* fan1 +15: exactly the threshold */
            {45, 85000, 600000, 60, 31, 1, ""},          /* -14 */
            {45, 85000, 600000, 46, 31, 1, ""},          /* -14 */
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
        assert_int_equal(r.stats.anomalies[GPU_ANOM_FAN_SPIKE], 2);
        assert_int_equal(r.stats.samples, 7);
}

/* A fan read that fails is missing: no spike from a made-up 0, and the next good read
 * compares with the last good one. */
static void test_fan_missing_is_not_zero(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        const struct reading t[] = {
            QUIET,
            QUIET,
            QUIET,
            QUIET,
            {45, 85000, 600000, NaN, 30, 1, ""}, /* the reference: 0 -> FAN_SPIKE */
            {45, 85000, 600000, 30, 30, 1, ""},  /* the reference: 0 -> 30, FAN_SPIKE */
            {45, 85000, 600000, 50, 30, 1, "FAN_SPIKE"},
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
}

/* TEMP_FAN_INV: temp >= 85 and the fastest fan <= 55, after more than 10 samples. */
static void test_inversion(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        struct reading hot = {90, 85000, 600000, 45, 38, 1, ""};
        for (int i = 0; i < 11; i++)
                assert_string_equal(feed(&r, &hot), "");
        assert_string_equal(feed(&r, &hot), "TEMP_FAN_INV(90C@45%)");
        assert_true(logged(&r, "ANOMALY: 90C but fans at 45% (expected >55% above 85C)"));
        assert_true(evented(&r, "type=ANOMALY gpu=0 flag=TEMP_FAN_INV(90C@45%)"));
        /* The next one is flagged and counted, but not logged again within 60 s. */
        struct reading edge = {85, 85000, 600000, 55, 38, 1, ""};
        assert_string_equal(feed(&r, &edge), "TEMP_FAN_INV(85C@55%)");
        assert_int_equal(r.out.nlog, 0);
        assert_int_equal(r.out.nevent, 0);
        struct reading cool = {84, 85000, 600000, 45, 50, 1, ""};
        assert_string_equal(feed(&r, &cool), "");
        struct reading fast = {95, 85000, 600000, 45, 56, 1, ""};
        assert_string_equal(feed(&r, &fast), "");
        assert_int_equal(r.stats.anomalies[GPU_ANOM_FAN_INVERSION], 2);
        /* 61 s later the line comes again, with the count it held back. */
        r.mono += 61 * NS;
        assert_string_equal(feed(&r, &hot), "FAN_SPIKE|TEMP_FAN_INV(90C@45%)"); /* 56 -> 38 */
        assert_true(logged(&r, "ANOMALY: 90C but fans at 45% (expected >55% above 85C)"));
        assert_true(evented(&r, "type=ANOMALY gpu=0 flag=TEMP_FAN_INV(90C@45%) suppressed=1"));
}

/* A GPU with no fan reading (passively cooled) is not a fan at 0 %. */
static void test_inversion_needs_a_fan_reading(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        struct reading hot = {90, 85000, 600000, NaN, NaN, 1, ""};
        for (int i = 0; i < 20; i++)
                assert_string_equal(feed(&r, &hot), "");
}

/* SPUR_THROT: SwPowerCap (0x4) while 0 < power < 25 % of the limit, after 10 samples. */
static void test_spurious_throttle(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        struct reading spur = {45, 60000, 600000, 30, 30, 0x5, ""};
        for (int i = 0; i < 11; i++)
                assert_string_equal(feed(&r, &spur), "");
        assert_string_equal(feed(&r, &spur), "SPUR_THROT(10%ofLim)");
        assert_true(logged(&r, "ANOMALY: SwPowerCap at 60W (10% of 600W limit)"));
        const struct reading t[] = {
            {45, 149999, 600000, 30, 30, 0x4, "SPUR_THROT(25%ofLim)"}, /* 24.99983 % */
            {45, 150000, 600000, 30, 30, 0x4, ""},                     /* exactly 25 % */
            {45, 0, 600000, 30, 30, 0x4, ""},                          /* 0 W: not > 0 */
            {45, 60000, 600000, 30, 30, 0x1, ""},                      /* no SwPowerCap */
            {45, 60000, NaN, 30, 30, 0x4, ""},                         /* limit unknown */
            {45, 3000, 600000, 30, 30, 0x4, "SPUR_THROT(0%ofLim)"},
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
        assert_int_equal(r.stats.anomalies[GPU_ANOM_SPURIOUS_THROTTLE], 3);
}

/* Every sample over the limit is a breach; only more than +50 W is flagged PWR+NNW,
 * from the first sample on. */
static void test_power_breach(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        const struct reading t[] = {
            {45, 700000, 600000, 30, 30, 0, "PWR+100W"}, /* the first sample */
            {45, 650000, 600000, 30, 30, 0, ""},         /* +50: a breach, no flag */
            {45, 650001, 600000, 30, 30, 0, "PWR+50W"},  /* +50.001 */
            {45, 700500, 600000, 30, 30, 0, "PWR+100W"}, /* 100.5 rounds to even */
            {45, 701500, 600000, 30, 30, 0, "PWR+102W"},
            {45, 600000, 600000, 30, 30, 0, ""}, /* at the limit: no breach */
            {45, 400000, 600000, 30, 30, 0, ""},
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
        assert_int_equal(r.out.counted, 0); /* the last sample: nothing */
        feed(&r, &(struct reading){45, 650000, 600000, 30, 30, 0, ""});
        assert_int_equal(r.out.counted, 1u << GPU_ANOM_POWER_BREACH);
        assert_int_equal(r.stats.anomalies[GPU_ANOM_POWER_BREACH], 6);
        assert_int_equal(r.stats.period_anomalies[GPU_ANOM_POWER_BREACH], 6);
        assert_true(r.stats.peak_power_w == 701.5);
}

/* TDP changes: from the second sample, |delta| >= 5 W; a failed limit read (missing)
 * is not a change to 0 W and does not reset what the next read is compared with. */
static void test_tdp_change(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        assert_string_equal(feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 1, ""}), "");
        assert_string_equal(feed(&r, &(struct reading){45, 85000, 450000, 30, 30, 1, ""}),
                            "TDP_REDUCED(450W)");
        assert_true(logged(&r, "TDP CHANGE: 600W → 450W (-150W)"));
        assert_true(evented(&r, "type=TDP_CHANGE from=600W to=450W delta=-150W gpu=0"));
        const struct reading t[] = {
            {45, 85000, 452000, 30, 30, 1, ""},                   /* +2: noise */
            {45, 85000, 456000, 30, 30, 1, ""},                   /* +4 from 452 */
            {45, 85000, 461000, 30, 30, 1, "TDP_RESTORED(461W)"}, /* +5 */
            {45, 85000, NaN, 30, 30, 1, ""},    /* the reference: TDP_REDUCED(0W) */
            {45, 85000, 461000, 30, 30, 1, ""}, /* the reference: TDP_RESTORED(461W) */
            {45, 85000, NaN, 30, 30, 1, ""},
            {45, 85000, 600000, 30, 30, 1, "TDP_RESTORED(600W)"},
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
        assert_true(logged(&r, "TDP CHANGE: 461W → 600W (+139W)"));
        assert_int_equal(r.stats.anomalies[GPU_ANOM_TDP_CHANGE], 3);
}

/* Feed a quiet sample with the configured and enforced limits (W); true when it made
 * an ENFORCED_LIMIT_CHANGE event. */
static bool feed_enforced(struct rig *r, double limit_w, double enforced_w)
{
        struct reading x = QUIET;
        x.limit_mw = limit_w * 1000;
        frame_of(&r->g, &x);
        r->g.enforced_limit_w = enforced_w;
        r->mono += NS / 10;
        gpu_rules_step(&r->rules, 0, &r->g, &r->stats, r->mono, &r->out);
        for (unsigned i = 0; i < r->out.nevent; i++)
                if (!strncmp(r->out.event[i], "type=ENFORCED_LIMIT_CHANGE", 26))
                        return true;
        return false;
}

/* The enforced limit is read on the slow cadence: following the configured limit some
 * samples late is no event; moving on its own is, both ways. */
static void test_enforced_follows_late(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        assert_false(feed_enforced(&r, 600, 600));
        assert_false(feed_enforced(&r, 450, 600)); /* TDP_REDUCED; enforced not read yet */
        assert_false(feed_enforced(&r, 450, 600));
        assert_false(feed_enforced(&r, 450, 450)); /* the slow read: it followed */
        assert_true(feed_enforced(&r, 450, 300));  /* another constraint */
        assert_true(evented(&r, "type=ENFORCED_LIMIT_CHANGE gpu=0 from=450W to=300W delta=-150W"));
        assert_false(feed_enforced(&r, 450, 300));
        assert_true(feed_enforced(&r, 450, 450)); /* the constraint lifted */
        assert_false(feed_enforced(&r, 600, 450));
        assert_false(feed_enforced(&r, NaN, 450)); /* a failed limit read */
        assert_false(feed_enforced(&r, 600, 600)); /* followed, a slow read later */
}

/* The flags column keeps the reference's order: TDP, FAN_SPIKE, TEMP_FAN_INV,
 * SPUR_THROT, PWR+. */
static void test_flag_order(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        for (int i = 0; i < 12; i++)
                feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 1, ""});
        assert_string_equal(feed(&r, &(struct reading){90, 600000, 450000, 50, 30, 1, ""}),
                            "TDP_REDUCED(450W)|FAN_SPIKE|TEMP_FAN_INV(90C@50%)|PWR+150W");
        assert_int_equal(r.out.counted, (1u << GPU_ANOM_TDP_CHANGE) | (1u << GPU_ANOM_FAN_SPIKE) |
                                            (1u << GPU_ANOM_FAN_INVERSION) |
                                            (1u << GPU_ANOM_POWER_BREACH));
        assert_string_equal(
            feed(&r, &(struct reading){90, 20000, 600000, 30, 30, 4, ""}),
            "TDP_RESTORED(600W)|FAN_SPIKE|TEMP_FAN_INV(90C@30%)|SPUR_THROT(3%ofLim)");
}

/* Throttle transitions are logged from the second sample; the first compares with 0. */
static void test_throttle_transitions(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 0x1, ""});
        assert_int_equal(r.out.nlog, 0);
        feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 0x4, ""});
        assert_true(logged(&r, "Throttle: GpuIdle → SwPowerCap"));
        assert_true(evented(&r, "type=THROTTLE gpu=0 from=GpuIdle to=SwPowerCap"));
        feed(&r, &(struct reading){45, 85000, 600000, 30, 30, NaN, ""});
        assert_int_equal(r.out.nlog, 0); /* unknown is not a change */
        feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 0x0, ""});
        assert_true(logged(&r, "Throttle: SwPowerCap → None"));
        feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 0x44, ""});
        assert_true(logged(&r, "Throttle: None → SwPowerCap|HwThermalSlowdown"));
        /* Seconds each reason was set: one 100 ms interval per sample. */
        assert_true(fabs(r.stats.throttle_seconds[0] - 0.1) < 1e-9);
        assert_true(fabs(r.stats.throttle_seconds[2] - 0.2) < 1e-9);
        assert_true(fabs(r.stats.throttle_seconds[6] - 0.1) < 1e-9);
}

/* A failed sample runs no rule: no TDP_REDUCED(0W), no FAN_SPIKE (the reference's rows
 * of zeros). It is counted; the first of a streak is a crash; the fifth says the GPU
 * is backed off; the first answer after it says how many failed. */
static void test_failed_samples(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        for (int i = 0; i < 5; i++)
                feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 1, ""});
        for (unsigned k = 1; k <= 6; k++) {
                frame_of(&r.g, &(struct reading){NaN, NaN, NaN, NaN, NaN, NaN, ""});
                r.g.ok = false;
                r.g.consecutive_failures = k;
                snprintf(r.g.error, sizeof(r.g.error), "GPU is lost");
                gpu_rules_step(&r.rules, 0, &r.g, &r.stats, r.mono, &r.out);
                assert_string_equal(r.g.flags, "");
                if (k == 1) {
                        assert_true(logged(&r, "NVML FAILED — GPU crash? GPU is lost"));
                        assert_true(evented(&r, "type=NVML_FAILED gpu=0 error=\"GPU is lost\""));
                } else if (k == 5) {
                        assert_true(logged(&r, "GPU still unresponsive — backing off to 30s"));
                } else {
                        assert_int_equal(r.out.nlog, 0);
                }
        }
        assert_int_equal(r.stats.failed_samples, 6);
        assert_int_equal(r.stats.crashes, 1);
        assert_int_equal(r.stats.samples, 5);
        /* Back with the same readings: no flag, one recovery line. */
        assert_string_equal(feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 1, ""}), "");
        assert_true(logged(&r, "GPU RECOVERED after 6 failures"));
        assert_true(evented(&r, "type=GPU_RECOVERED gpu=0 failures=6"));
        assert_string_equal(feed(&r, &(struct reading){45, 85000, 600000, 30, 30, 1, ""}), "");
        assert_int_equal(r.out.nlog, 0);
        gpu_rules_note_crash(&(struct frame){0}, 0); /* accepted without a GPU table */
}

/* A 64-bit mask is an integer all the way: 0x7fffffffffffffff (which a double rounds to
 * 0x8000000000000000, losing SwPowerCap) still flags SPUR_THROT and names every reason. */
static void test_mask_63_bits(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        const struct reading q = QUIET;
        for (int i = 0; i < 11; i++)
                feed(&r, &q);
        frame_of(&r.g, &(struct reading){45, 60000, 600000, 30, 30, 1, ""});
        r.g.throttle_mask = 0x7fffffffffffffffULL;
        r.g.throttle_valid = true;
        r.mono += NS / 10;
        gpu_rules_step(&r.rules, 0, &r.g, &r.stats, r.mono, &r.out);
        assert_string_equal(r.g.flags, "SPUR_THROT(10%ofLim)");
        assert_true(logged(&r, "Throttle: GpuIdle → GpuIdle|AppClocks|SwPowerCap|HwSlowdown|"
                               "SyncBoost|SwThermalSlowdown|HwThermalSlowdown|"
                               "HwPowerBrakeSlowdown|DisplayClocks|UserDefinedClocks"));
        /* Only bit 63 set: no reason vigil names, the reference's Unknown(0x...). */
        frame_of(&r.g, &q);
        r.g.throttle_mask = 0x8000000000000000ULL;
        r.g.throttle_valid = true;
        r.mono += NS / 10;
        gpu_rules_step(&r.rules, 0, &r.g, &r.stats, r.mono, &r.out);
        assert_string_equal(r.g.flags, "");
        assert_true(logged(&r, "Throttle: GpuIdle|AppClocks|SwPowerCap|HwSlowdown|SyncBoost|"
                               "SwThermalSlowdown|HwThermalSlowdown|HwPowerBrakeSlowdown|"
                               "DisplayClocks|UserDefinedClocks → Unknown(0x8000000000000000)"));
}

static void test_thresholds_from_options(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        r.opt.spike_threshold_pct = 5;
        r.opt.breach_flag_w = 10;
        r.opt.tdp_epsilon_w = 1;
        const struct reading t[] = {
            QUIET,
            QUIET,
            QUIET,
            {45, 85000, 600000, 35, 30, 1, "FAN_SPIKE"},
            {45, 85000, 599000, 35, 30, 1, "TDP_REDUCED(599W)"},
            {45, 610000, 599000, 35, 30, 1, "PWR+11W"},
        };
        feed_table(&r, t, sizeof(t) / sizeof(t[0]));
}

static void test_stats_and_names(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        assert_true(isnan(r.stats.peak_temp_c));
        feed(&r, &(struct reading){61, 85000, 600000, 30, 30, 1, ""});
        feed(&r, &(struct reading){NaN, 90000, 600000, 30, 30, 1, ""});
        feed(&r, &(struct reading){58, 80000, 600000, 30, 30, 1, ""});
        assert_true(r.stats.peak_temp_c == 61);
        assert_true(r.stats.peak_power_w == 90);
        assert_int_equal(r.stats.period_samples, 3);
        struct frame f;
        memset(&f, 0, sizeof(f));
        gpu_rules_note_crash(&f, 2);
        gpu_rules_note_crash(&f, 2);
        assert_int_equal(f.gpu_stats[2].crashes, 2);
        assert_int_equal(f.gpu_stats[2].period_crashes, 2);
        assert_null(gpu_rules_stats(&f, 2)); /* no GPU sampled */
        f.ngpus = 3;
        assert_ptr_equal(gpu_rules_stats(&f, 2), &f.gpu_stats[2]);
        assert_string_equal(gpu_anomaly_names[GPU_ANOM_SPURIOUS_THROTTLE], "spurious_throttle");
}

/* A GPU above its own maximum operating temperature (the GPU_MAX threshold): every
 * sample above it counted, one events.log line when it goes above and one when it is
 * back OVER_MAX_BACK_C (2 C) under it, no CSV flag; no threshold read, no rule. */
static void test_over_max_temperature(void **state)
{
        (void)state;
        struct rig r;
        rig_init(&r);
        static const double temps[] = {80, 91, 93, 89, 91, 87, 86};
        static const char *const events[] = {
            "", "type=TEMP_OVER_MAX gpu=0 state=above temp=91C max=90C", "", "",
            "", "type=TEMP_OVER_MAX gpu=0 state=back temp=87C max=90C",  ""};
        for (size_t i = 0; i < sizeof(temps) / sizeof(temps[0]); i++) {
                struct reading x = QUIET;
                x.temp = temps[i];
                frame_of(&r.g, &x);
                r.g.temp_max_c = 90;
                r.mono += NS / 10;
                gpu_rules_step(&r.rules, 0, &r.g, &r.stats, r.mono, &r.out);
                assert_string_equal(r.g.flags, "");
                if (events[i][0]) {
                        assert_int_equal(r.out.nevent, 1);
                        assert_string_equal(r.out.event[0], events[i]);
                } else {
                        assert_int_equal(r.out.nevent, 0);
                }
                if (i == 1)
                        assert_true(
                            logged(&r, "TEMPERATURE 91C above the GPU's maximum operating 90C"));
        }
        assert_int_equal(r.stats.anomalies[GPU_ANOM_OVER_MAX_TEMP], 3); /* 91, 93, 91 */
        assert_string_equal(gpu_anomaly_names[GPU_ANOM_OVER_MAX_TEMP], "over_max_temperature");
        /* The threshold not read (NOT_SUPPORTED): nothing to compare with. */
        struct reading hot = QUIET;
        hot.temp = 120;
        rig_init(&r);
        feed(&r, &hot);
        assert_int_equal(r.out.nevent, 0);
        assert_int_equal(r.stats.anomalies[GPU_ANOM_OVER_MAX_TEMP], 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fan_spike_warmup_and_threshold),
            cmocka_unit_test(test_fan_missing_is_not_zero),
            cmocka_unit_test(test_inversion),
            cmocka_unit_test(test_inversion_needs_a_fan_reading),
            cmocka_unit_test(test_spurious_throttle),
            cmocka_unit_test(test_power_breach),
            cmocka_unit_test(test_tdp_change),
            cmocka_unit_test(test_enforced_follows_late),
            cmocka_unit_test(test_flag_order),
            cmocka_unit_test(test_throttle_transitions),
            cmocka_unit_test(test_failed_samples),
            cmocka_unit_test(test_mask_63_bits),
            cmocka_unit_test(test_thresholds_from_options),
            cmocka_unit_test(test_stats_and_names),
            cmocka_unit_test(test_over_max_temperature),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
