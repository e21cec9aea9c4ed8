/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: throttled-word decoding (the reference monitor's labels and formats) and
 * the Raspberry Pi rules with their hysteresis and events.log lines. */
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

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "detect/rpi_rules.h"
#include "core/rpi_throttle.h"

static void test_flags(void **state)
{
        (void)state;
        char out[512];
        size_t n = rpi_throttle_flags(0x50005, out, sizeof(out));
        assert_int_equal(n, strlen(out));
        assert_string_equal(out, "NOW:under-voltage,NOW:currently throttled,"
                                 "HAS:under-voltage occurred,HAS:throttling occurred");
        rpi_throttle_flags(0, out, sizeof(out));
        assert_string_equal(out, "");
        rpi_throttle_flags(0xf000f, out, sizeof(out));
        assert_string_equal(out, "NOW:under-voltage,NOW:arm frequency capped,"
                                 "NOW:currently throttled,NOW:soft temperature limit,"
                                 "HAS:under-voltage occurred,HAS:arm frequency capping occurred,"
                                 "HAS:throttling occurred,HAS:soft temperature limit occurred");
        rpi_throttle_flags(0x80008, out, sizeof(out));
        assert_string_equal(out, "NOW:soft temperature limit,HAS:soft temperature limit occurred");
        rpi_throttle_flags(0xfff0fff0, out, sizeof(out)); /* bits with no meaning */
        assert_string_equal(out, "");
        char small[20]; /* room for one label only: the next is left out whole */
        assert_int_equal(rpi_throttle_flags(0x3, small, sizeof(small)), 17);
        assert_string_equal(small, "NOW:under-voltage");
}

/* The live view's narrow table: the flags in brief, now first, then since boot. */
static void test_flags_brief(void **state)
{
        (void)state;
        char full[512], out[128];
        rpi_throttle_flags(0x50005, full, sizeof(full));
        assert_int_equal(rpi_throttle_flags_brief(full, out, sizeof(out)), 17);
        assert_string_equal(out, "UV,THR had:UV,THR");
        rpi_throttle_flags(0xf000f, full, sizeof(full));
        rpi_throttle_flags_brief(full, out, sizeof(out));
        assert_string_equal(out, "UV,CAP,THR,SOFT had:UV,CAP,THR,SOFT");
        rpi_throttle_flags(0x50000, full, sizeof(full));
        rpi_throttle_flags_brief(full, out, sizeof(out));
        assert_string_equal(out, "had:UV,THR");
        rpi_throttle_flags_brief("", out, sizeof(out));
        assert_string_equal(out, "");
        rpi_throttle_flags_brief("NOW:under-voltage,SOMETHING:else", out, sizeof(out));
        assert_string_equal(out, "UV SOMETHING:else");
}

static void test_hex_and_since_boot(void **state)
{
        (void)state;
        char out[256];
        rpi_throttle_hex(0x50000, out, sizeof(out));
        assert_string_equal(out, "0x50000");
        rpi_throttle_hex(0, out, sizeof(out));
        assert_string_equal(out, "0x0");
        rpi_throttle_hex(0xffffffffu, out, sizeof(out));
        assert_string_equal(out, "0xffffffff");
        rpi_throttle_since_boot(0x50005, out, sizeof(out));
        assert_string_equal(out,
                            "under-voltage occurred since boot, throttling occurred since boot");
        assert_int_equal(rpi_throttle_since_boot(0x5, out, sizeof(out)), 0);
        assert_string_equal(out, "");
        rpi_throttle_since_boot(0x20000, out, sizeof(out));
        assert_string_equal(out, "arm frequency capping occurred since boot");
        assert_string_equal(rpi_throttle_label(3), "soft temperature limit");
        assert_null(rpi_throttle_label(4));
}

static void test_transitions(void **state)
{
        (void)state;
        struct rpi_throttle_change ch[4];
        assert_int_equal(rpi_throttle_transitions(0x0, 0x50005, ch, 4), 2);
        assert_int_equal(ch[0].bit, 0);
        assert_true(ch[0].set);
        assert_string_equal(ch[0].label, "under-voltage");
        assert_int_equal(ch[1].bit, 2);
        assert_true(ch[1].set);
        assert_string_equal(ch[1].label, "currently throttled");
        assert_int_equal(rpi_throttle_transitions(0x50005, 0x50004, ch, 4), 1);
        assert_int_equal(ch[0].bit, 0);
        assert_false(ch[0].set);
        assert_int_equal(rpi_throttle_transitions(0x50005, 0x50005, ch, 4), 0);
        /* Sticky bits are not NOW transitions. */
        assert_int_equal(rpi_throttle_transitions(0x0, 0xf0000, ch, 4), 0);
        assert_int_equal(rpi_throttle_transitions(0x0, 0xf, ch, 1), 1);
        assert_int_equal(ch[0].bit, 0);
        /* A condition seen only through its sticky bit came and went between samples. */
        assert_int_equal(rpi_throttle_missed(0x0, 0x10000), 0x1);
        assert_int_equal(rpi_throttle_missed(0x1, 0x10001), 0x0);
        assert_int_equal(rpi_throttle_missed(0x0, 0x10001), 0x0);
        assert_int_equal(rpi_throttle_missed(0x10000, 0x10000), 0x0);
        assert_int_equal(rpi_throttle_missed(0x10000, 0x50000), 0x4);
}

/* Lines the rules emit, captured. */
static char lines[16][320];
static unsigned nlines;
static int64_t last_ns;

static void capture(void *arg, int64_t real_ns, const char *line)
{
        (void)arg;
        if (nlines < 16)
                snprintf(lines[nlines++], sizeof(lines[0]), "%s", line);
        last_ns = real_ns;
}

static struct frame *fr;
static struct rpi_rules_state *rs;

static void thresholds(struct rpi_thresholds *th)
{
        struct vigil_options o;
        memset(&o, 0, sizeof(o));
        o.temp_warn_c = 70;
        o.temp_crit_c = 80;
        o.shm_full_pct = 90;
        rpi_thresholds_from_options(th, &o);
}

static int setup(void **state)
{
        (void)state;
        struct rpi_thresholds th;
        thresholds(&th);
        fr = calloc(1, sizeof(*fr));
        rs = rpi_rules_new(&th);
        if (!fr || !rs)
                return -1;
        frame_clear(fr);
        fr->rpi.present = true;
        rpi_rules_set_sink(rs, capture, NULL);
        nlines = 0;
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        rpi_rules_free(rs);
        free(fr);
        return 0;
}

/* Evaluate with temperature t; returns the lines emitted. */
static unsigned at_temp(double t)
{
        fr->rpi.temp_c = t;
        nlines = 0;
        return rpi_rules_eval(rs, fr, 1000);
}

static void test_temperature_hysteresis(void **state)
{
        (void)state;
        assert_int_equal(at_temp(69.9), 0);
        assert_int_equal(at_temp(70.0), 1);
        assert_string_equal(lines[0], "type=RPI_TEMP level=warm temp=70.0C warn=70.0C crit=80.0C");
        assert_int_equal(last_ns, 1000);
        assert_int_equal(at_temp(68.5), 0); /* within 2 °C: still warm */
        assert_int_equal(rpi_rules_level(rs, 0), RPI_LEVEL_WARN);
        assert_int_equal(at_temp(67.9), 1);
        assert_string_equal(lines[0],
                            "type=RPI_TEMP level=normal temp=67.9C warn=70.0C crit=80.0C");
        assert_int_equal(at_temp(81.2), 1); /* straight to hot */
        assert_string_equal(lines[0], "type=RPI_TEMP level=hot temp=81.2C warn=70.0C crit=80.0C");
        assert_int_equal(at_temp(78.1), 0);
        assert_int_equal(at_temp(NAN), 0); /* missing: state kept */
        assert_int_equal(rpi_rules_level(rs, 0), RPI_LEVEL_CRIT);
        assert_int_equal(at_temp(77.9), 1);
        assert_string_equal(lines[0], "type=RPI_TEMP level=warm temp=77.9C warn=70.0C crit=80.0C");
        assert_int_equal(at_temp(50.0), 1);
        assert_string_equal(lines[0],
                            "type=RPI_TEMP level=normal temp=50.0C warn=70.0C crit=80.0C");
        fr->rpi.present = false; /* not a Pi: the rule has no input */
        assert_int_equal(at_temp(95.0), 0);
}

static unsigned with_word(double word, enum rpi_origin src)
{
        fr->rpi.throttled_valid = VAL_OK(word);
        fr->rpi.throttled = VAL_OK(word) ? (uint64_t)word : 0;
        fr->rpi.throttle_src = src;
        fr->rpi.undervolt_alarm = NAN;
        nlines = 0;
        return rpi_rules_eval(rs, fr, 2000);
}

/* No word: only the rpi_volt alarm. */
static unsigned with_alarm(double alarm)
{
        fr->rpi.throttled = 0;
        fr->rpi.throttled_valid = false;
        fr->rpi.throttle_src = RPI_SRC_NONE;
        fr->rpi.undervolt_alarm = alarm;
        nlines = 0;
        return rpi_rules_eval(rs, fr, 2000);
}

static void test_throttle_lines(void **state)
{
        (void)state;
        assert_int_equal(with_word(0x0, RPI_SRC_GENCMD), 0);
        assert_int_equal(with_word(0x50005, RPI_SRC_GENCMD), 2);
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"under-voltage\" state=set "
                                      "throttled=0x50005");
        assert_string_equal(lines[1], "type=RPI_THROTTLE condition=\"currently throttled\" "
                                      "state=set throttled=0x50005");
        assert_int_equal(with_word(0x50005, RPI_SRC_GENCMD), 0);
        assert_int_equal(with_word(0x50000, RPI_SRC_GENCMD), 2);
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"under-voltage\" "
                                      "state=cleared throttled=0x50000");
        assert_string_equal(lines[1], "type=RPI_THROTTLE condition=\"currently throttled\" "
                                      "state=cleared throttled=0x50000");
        /* Capping came and went between two samples: only its sticky bit tells. */
        assert_int_equal(with_word(0x70000, RPI_SRC_GENCMD), 1);
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"arm frequency capped\" "
                                      "state=occurred-between-samples throttled=0x70000");
        assert_int_equal(with_word(NAN, RPI_SRC_NONE), 0);
        assert_int_equal(rpi_rules_level(rs, 1), RPI_LEVEL_OK);
}

static void test_throttle_history_at_start(void **state)
{
        (void)state;
        assert_int_equal(with_word(0x50000, RPI_SRC_VCGENCMD), 1);
        assert_string_equal(lines[0], "type=RPI_THROTTLE_HISTORY throttled=0x50000 since_boot="
                                      "\"under-voltage occurred since boot, throttling occurred "
                                      "since boot\"");
        assert_int_equal(with_word(0x50000, RPI_SRC_VCGENCMD), 0);
}

/* An under-voltage at boot that has cleared: gencmd's word still has it. */
static void test_boot_undervoltage_cleared(void **state)
{
        (void)state;
        assert_int_equal(with_word(0x50000, RPI_SRC_GENCMD), 1);
        assert_string_equal(lines[0], "type=RPI_THROTTLE_HISTORY throttled=0x50000 since_boot="
                                      "\"under-voltage occurred since boot, throttling occurred "
                                      "since boot\"");
        assert_int_equal(rpi_rules_level(rs, 1), RPI_LEVEL_OK);
}

/* The word read by property tag: its sticky bits are cleared every 2 s by the kernel,
 * so no history and no "between samples" lines; said once. */
static void test_tag_word_has_no_history(void **state)
{
        (void)state;
        assert_int_equal(with_word(0x50005, RPI_SRC_MAILBOX), 3);
        assert_string_equal(lines[0],
                            "type=RPI_THROTTLE_HISTORY since_boot=unknown source=property-tag "
                            "reason=\"gencmd get_throttled is not reachable and the kernel's "
                            "rpi_volt driver clears the since-boot bits of the tag's word every 2 "
                            "s; HAS: flags are left out\"");
        assert_string_equal(lines[1], "type=RPI_THROTTLE condition=\"under-voltage\" state=set "
                                      "throttled=0x50005");
        assert_int_equal(with_word(0x70000, RPI_SRC_MAILBOX), 2); /* both cleared, no more */
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"under-voltage\" "
                                      "state=cleared throttled=0x70000");
        assert_int_equal(with_word(0x0, RPI_SRC_MAILBOX), 0);
}

static void test_alarm_without_word(void **state)
{
        (void)state;
        /* The rpi_volt alarm alone tells under-voltage now and nothing else. */
        assert_int_equal(with_alarm(1.0), 1);
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"under-voltage\" state=set "
                                      "source=rpi_volt");
        assert_int_equal(with_alarm(0.0), 1);
        assert_string_equal(lines[0], "type=RPI_THROTTLE condition=\"under-voltage\" "
                                      "state=cleared source=rpi_volt");
        assert_int_equal(with_word(0x50004, RPI_SRC_GENCMD), 2);
        assert_string_equal(lines[0], "type=RPI_THROTTLE_HISTORY throttled=0x50004 since_boot="
                                      "\"under-voltage occurred since boot, throttling occurred "
                                      "since boot\"");
        assert_string_equal(lines[1], "type=RPI_THROTTLE condition=\"currently throttled\" "
                                      "state=set throttled=0x50004");
        /* Back to the alarm alone: bit 2 is unknown there, so its state is kept. */
        assert_int_equal(with_alarm(0.0), 0);
        assert_int_equal(rpi_rules_level(rs, 3), RPI_LEVEL_WARN);
        assert_int_equal(with_alarm(NAN), 0);
}

/* The host CSV's throttle_flags cell for each kind of reading. */
static void test_frame_flags(void **state)
{
        (void)state;
        char out[256];
        struct rpi_frame p;
        rpi_frame_clear(&p);
        p.present = true;
        assert_int_equal(rpi_frame_flags(&p, out, sizeof(out)), 0);
        assert_string_equal(out, "");
        p.undervolt_alarm = 1.0;
        rpi_frame_flags(&p, out, sizeof(out));
        assert_string_equal(out, "NOW:under-voltage");
        p.undervolt_alarm = 0.0;
        assert_int_equal(rpi_frame_flags(&p, out, sizeof(out)), 0);
        p.throttled = 0x50005;
        p.throttled_valid = true;
        p.throttle_src = RPI_SRC_GENCMD;
        rpi_frame_flags(&p, out, sizeof(out));
        assert_string_equal(out, "NOW:under-voltage,NOW:currently throttled,"
                                 "HAS:under-voltage occurred,HAS:throttling occurred");
        assert_true(rpi_frame_sticky_reliable(&p));
        p.throttle_src = RPI_SRC_MAILBOX;
        rpi_frame_flags(&p, out, sizeof(out));
        assert_string_equal(out, "NOW:under-voltage,NOW:currently throttled");
        assert_false(rpi_frame_sticky_reliable(&p));
        p.present = false;
        assert_int_equal(rpi_frame_flags(&p, out, sizeof(out)), 0);
}

static unsigned with_arm(double arm, double max, double request)
{
        fr->rpi.arm_hz = arm;
        fr->rpi.arm_max_hz = max;
        fr->rpi.clock_src = RPI_SRC_MAILBOX;
        fr->host.cpu_freq_hz[0] = request;
        nlines = 0;
        return rpi_rules_eval(rs, fr, 3000);
}

static void test_arm_below_max(void **state)
{
        (void)state;
        /* The governor asked for 600 MHz: 600 MHz is not capping. */
        assert_int_equal(with_arm(600e6, 1500e6, 600e6), 0);
        assert_int_equal(with_arm(600e6, 1500e6, 600e6), 0);
        assert_int_equal(with_arm(600e6, 1500e6, 600e6), 0);
        /* Asked for 1500, got 600: three samples in a row before it counts. */
        assert_int_equal(with_arm(600e6, 1500e6, 1500e6), 0);
        assert_int_equal(with_arm(600e6, 1500e6, 1500e6), 0);
        assert_int_equal(with_arm(600e6, 1500e6, 1500e6), 1);
        assert_string_equal(lines[0],
                            "type=RPI_ARM_CLOCK state=below arm=600MHz target=1500MHz max=1500MHz");
        /* 1440 MHz is within 5 % but not within 3 %: stays below. */
        for (int i = 0; i < 4; i++)
                assert_int_equal(with_arm(1440e6, 1500e6, NAN), 0);
        assert_int_equal(with_arm(1500398464.0, 1500e6, NAN), 0);
        assert_int_equal(with_arm(NAN, 1500e6, NAN), 0); /* missing: no count, no reset */
        assert_int_equal(with_arm(1500398464.0, 1500e6, NAN), 0);
        assert_int_equal(with_arm(1500398464.0, 1500e6, NAN), 1);
        assert_string_equal(lines[0], "type=RPI_ARM_CLOCK state=restored arm=1500MHz "
                                      "target=1500MHz max=1500MHz");
        /* The kernel's request (sysfs) is no measurement: the rule says nothing. */
        fr->rpi.clock_src = RPI_SRC_SYSFS;
        fr->rpi.arm_hz = 600e6;
        for (int i = 0; i < 4; i++)
                assert_int_equal(rpi_rules_eval(rs, fr, 0), 0);
}

static unsigned with_shm(double used, double total)
{
        fr->host.shm_used_bytes = used;
        fr->host.shm_total_bytes = total;
        nlines = 0;
        return rpi_rules_eval(rs, fr, 4000);
}

static void test_shm_full(void **state)
{
        (void)state;
        assert_int_equal(with_shm(89.9, 100), 0);
        assert_int_equal(with_shm(90, 100), 1);
        assert_string_equal(lines[0], "type=SHM state=full used=90.0% limit=90.0%");
        assert_int_equal(with_shm(88.1, 100), 0);
        assert_int_equal(with_shm(NAN, 100), 0);
        assert_int_equal(with_shm(50, 0), 0);
        assert_int_equal(with_shm(87.9, 100), 1);
        assert_string_equal(lines[0], "type=SHM state=ok used=87.9% limit=90.0%");
        /* The pi4-shm-full fixture's statvfs: 4096-byte blocks, 488633 of which 24120 free. */
        assert_int_equal(with_shm((488633.0 - 24120.0) * 4096, 488633.0 * 4096), 1);
        assert_string_equal(lines[0], "type=SHM state=full used=95.1% limit=90.0%");
        /* Not a Pi: /dev/shm is still watched. */
        fr->rpi.present = false;
        assert_int_equal(with_shm(10, 100), 1);
}

static void test_no_sink(void **state)
{
        (void)state;
        rpi_rules_set_sink(rs, NULL, NULL);
        nlines = 0;
        fr->rpi.temp_c = 85;
        assert_int_equal(rpi_rules_eval(rs, fr, 0), 1);
        assert_int_equal(nlines, 0);
        assert_int_equal(rpi_rules_level(rs, 0), RPI_LEVEL_CRIT);
        assert_int_equal(rpi_rules_level(rs, 99), RPI_LEVEL_OK);
}

static void test_rule_table(void **state)
{
        (void)state;
        static const char *const names[] = {"temperature",
                                            "under_voltage",
                                            "arm_frequency_capped",
                                            "throttled",
                                            "soft_temperature_limit",
                                            "arm_below_max",
                                            "shm_full",
                                            "fs_readonly",
                                            "storage_errors",
                                            "fs_filling"};
        assert_int_equal(rpi_nrules, 10);
        for (unsigned i = 0; i < rpi_nrules; i++) {
                assert_string_equal(rpi_rules[i].name, names[i]);
                assert_non_null(rpi_rules[i].evaluate);
                assert_non_null(rpi_rules[i].describe);
                assert_true(rpi_rules[i].confirm >= 1);
        }
}

static void test_detector(void **state)
{
        (void)state;
        struct vigil_options o;
        memset(&o, 0, sizeof(o));
        options_defaults(&o); /* the reference's 70 / 80 / 90 */
        struct vigil_ctx c;
        memset(&c, 0, sizeof(c));
        c.opt = &o;
        c.frame = fr;
        void *st = NULL;
        assert_int_equal(vigil_detector_rpi_rules.init(&c, &st), 0);
        assert_int_equal(vigil_detector_rpi_rules.clocks, VCLOCK_BIT(VCLOCK_HOST));
        rpi_rules_set_sink(st, capture, NULL);
        struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST), .real_ns = 1718000000000000000};
        fr->rpi.temp_c = 80.0;
        nlines = 0;
        vigil_detector_rpi_rules.feed(st, &c, &t);
        assert_int_equal(nlines, 1);
        assert_string_equal(lines[0], "type=RPI_TEMP level=hot temp=80.0C warn=70.0C crit=80.0C");
        assert_true(last_ns == 1718000000000000000);
        vigil_detector_rpi_rules.fini(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_flags),
            cmocka_unit_test(test_flags_brief),
            cmocka_unit_test(test_hex_and_since_boot),
            cmocka_unit_test(test_transitions),
            cmocka_unit_test_setup_teardown(test_temperature_hysteresis, setup, teardown),
            cmocka_unit_test_setup_teardown(test_throttle_lines, setup, teardown),
            cmocka_unit_test_setup_teardown(test_throttle_history_at_start, setup, teardown),
            cmocka_unit_test_setup_teardown(test_boot_undervoltage_cleared, setup, teardown),
            cmocka_unit_test_setup_teardown(test_tag_word_has_no_history, setup, teardown),
            cmocka_unit_test_setup_teardown(test_alarm_without_word, setup, teardown),
            cmocka_unit_test(test_frame_flags),
            cmocka_unit_test_setup_teardown(test_arm_below_max, setup, teardown),
            cmocka_unit_test_setup_teardown(test_shm_full, setup, teardown),
            cmocka_unit_test_setup_teardown(test_no_sink, setup, teardown),
            cmocka_unit_test(test_rule_table),
            cmocka_unit_test_setup_teardown(test_detector, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
