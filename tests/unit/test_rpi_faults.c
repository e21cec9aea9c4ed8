/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the Raspberry Pi source when things fail: no firmware node, a vcgencmd
 * that never answers, a node that breaks and comes back, what the kernel and firmware
 * really return (EINVAL, error answers, short and malformed text), permission messages,
 * the sysfs voltage bounds. Trees are built in a scratch directory (rpi_tree.h). */
#include "rpi_tree.h"

static void test_no_mailbox_no_vcgencmd(void **state)
{
        (void)state;
        make_pi4("nombox", NULL); /* no dev/vcio at all */
        setenv("PATH", "/nonexistent", 1);
        void *st = NULL;
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_true(rpi_source_uses_vcgencmd(st));
        const char *diag = rpi_source_take_diagnostic(st);
        assert_non_null(diag);
        assert_non_null(strstr(diag, "/nombox/dev/vcio_gencmd (No such file or directory) nor "));
        assert_non_null(strstr(diag, "/nombox/dev/vcio (No such file or directory); values come "
                                     "from sysfs and vcgencmd instead"));
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->temp_c == 50.12);
        assert_true(isnan(r->arm_hz)); /* not the kernel's 1200 MHz request */
        assert_int_equal(r->clock_src, RPI_SRC_NONE);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_true(isnan(r->volt_core_v));
        assert_int_equal(r->volt_src, RPI_SRC_NONE);
        assert_true(isnan(r->core_hz));
        /* No made-up word: the alarm alone, as what it is. */
        assert_false(r->throttled_valid);
        assert_int_equal(r->throttle_src, RPI_SRC_NONE);
        assert_true(r->undervolt_alarm == 1.0);
        char flags[64];
        rpi_frame_flags(r, flags, sizeof(flags));
        assert_string_equal(flags, "NOW:under-voltage");
        vigil_source_rpi.fini(st);
}

/* Lines in a file (the failing vcgencmd's call log). */
static unsigned count_lines(const char *path)
{
        char buf[4096];
        int n = read_file_at("", path, buf, sizeof(buf));
        unsigned lines = 0;
        for (int i = 0; i < n; i++)
                lines += buf[i] == '\n';
        return lines;
}

static void test_vcgencmd_that_always_fails(void **state)
{
        (void)state;
        make_pi4("vcfail", "fail open EACCES\n");
        char bin[512], script[2048], calls[600], path[600];
        snprintf(bin, sizeof(bin), "%s/vcfail-bin", scratch);
        snprintf(calls, sizeof(calls), "%s/calls", bin);
        /* Like vcgencmd without access to /dev/vcio: an error and a non-zero exit. */
        snprintf(script, sizeof(script),
                 "#!/bin/sh\necho \"$*\" >> '%s'\necho \"Can't open device file\"\nexit 255\n",
                 calls);
        put_text(bin, "vcgencmd", script);
        snprintf(path, sizeof(path), "%s/vcgencmd", bin);
        assert_int_equal(chmod(path, 0755), 0);
        void *st = NULL;
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        setenv("PATH", bin, 1);
        /* temp and the ARM maximum come from sysfs; the other seven are asked for. */
        for (int i = 0; i < 3; i++)
                assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_int_equal(count_lines(calls), 21);
        assert_true(fr->rpi.temp_c == 50.12);
        assert_true(isnan(fr->rpi.volt_core_v));
        assert_true(isnan(fr->rpi.arm_hz));
        assert_false(fr->rpi.throttled_valid);
        assert_true(fr->rpi.undervolt_alarm == 1.0);
        /* Three samples with no answer at all: no more spawns. */
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_int_equal(count_lines(calls), 21);
        assert_true(fr->rpi.temp_c == 50.12);
        vigil_source_rpi.fini(st);
}

static void test_transport_fails_then_recovers(void **state)
{
        (void)state;
        /* Eight gencmd requests and one tag request succeed, then the node fails. */
        make_pi4("eio", "gencmd \"measure_temp\" temp=47.2'C\n"
                        "tag 0x00030004 id=3 1500000000\n"
                        "fail ioctl EIO after 9\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_true(fr->rpi.temp_c == 47.2);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_GENCMD);
        assert_int_equal(rec_opens, 3);
        /* The requests fail: counted as an error, values from sysfs meanwhile. */
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EIO);
        assert_true(fr->rpi.present);
        assert_true(fr->rpi.temp_c == 50.12);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        assert_false(fr->rpi.throttled_valid);
        assert_true(fr->rpi.undervolt_alarm == 1.0);
        assert_true(isnan(fr->rpi.arm_hz));
        /* Next sample reopens both (the description is read afresh). */
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_opens, 5);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_GENCMD);
        rpi_source_close(st);
}

/* What the firmware and kernel really return: errors, short and malformed text. */
static void test_gencmd_failures(void **state)
{
        (void)state;
        make_pi4("gerr",
                 "gencmd err=1 \"measure_temp\" error=1 error_msg=\"Command not registered\"\n"
                 "gencmd \"measure_volts core\" volt=0.85\n"
                 "gencmd fail=EINVAL \"measure_clock arm\"\n"
                 "gencmd \"measure_clock core\" frequency(1)=abc\n"
                 "gencmd \"measure_clock v3d\"\n"
                 "gencmd \"get_throttled\" throttled=0x50000\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
                const struct rpi_frame *r = &fr->rpi;
                assert_true(r->temp_c == 50.12);
                assert_int_equal(r->temp_src, RPI_SRC_SYSFS);
                assert_true(isnan(r->volt_core_v));
                assert_true(isnan(r->arm_hz));
                assert_true(isnan(r->core_hz));
                assert_true(isnan(r->v3d_hz));
                assert_true(isnan(r->h264_hz)); /* not listed: "Command not registered" */
                assert_true(r->throttled_valid && r->throttled == 0x50000);
                assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        }
        /* gencmd answered: still asked every sample, the word never by tag. */
        assert_int_equal(rec_fw.gencmd_requests, 16);
        assert_int_equal(rec_fw.throttled_requests, 0);
        assert_int_equal(rec_opens, 3);
        rpi_source_close(st);
}

/* Current Pi OS, the daemon not in group video: the message names vcio_gencmd. */
static void test_current_os_no_video_group(void **state)
{
        (void)state;
        make_pi4("novideo", "fail open EACCES\n");
        char root[512];
        snprintf(root, sizeof(root), "%s/novideo", scratch);
        put_text(root, "dev/vcio_gencmd", "fail open EACCES\n");
        setenv("PATH", "/nonexistent", 1);
        void *st = NULL;
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_true(rpi_source_uses_vcgencmd(st));
        const char *diag = rpi_source_take_diagnostic(st);
        assert_non_null(diag);
        assert_non_null(strstr(diag, "/novideo/dev/vcio_gencmd: permission denied; current "
                                     "Raspberry Pi OS gives it to group 'video' (udev rule "
                                     "10-vc.rules): run vigil with group video (the shipped unit "
                                     "has SupplementaryGroups=video"));
        vigil_source_rpi.fini(st);
}

/* The sysfs voltage fallback: in0_input in mV, only within 0.2-2.5 V. */
static void test_sysfs_voltage_bounds(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                double want;
        } cases[] = {{"850\n", 0.85}, {"0\n", NAN}, {"99999\n", NAN}, {"-5\n", NAN}, {"x\n", NAN}};
        char root[512];
        snprintf(root, sizeof(root), "%s/volt", scratch);
        setenv("PATH", "/nonexistent", 1);
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                make_pi4("volt", NULL);
                setenv("PATH", "/nonexistent", 1);
                put_text(root, "sys/class/hwmon/hwmon0/in0_input", cases[i].text);
                void *st = NULL;
                assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
                assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
                if (isnan(cases[i].want)) {
                        assert_true(isnan(fr->rpi.volt_core_v));
                        assert_int_equal(fr->rpi.volt_src, RPI_SRC_NONE);
                } else {
                        assert_true(fr->rpi.volt_core_v == cases[i].want);
                        assert_int_equal(fr->rpi.volt_src, RPI_SRC_SYSFS);
                }
                vigil_source_rpi.fini(st);
        }
}

static void test_tag_errors_and_short_replies(void **state)
{
        (void)state;
        /* The firmware fails the tag request (EINVAL): nothing from it, the node kept. */
        make_pi4("einval", "tag 0x00030006 id=0 47236\nfail ioctl EINVAL\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EINVAL);
                assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        }
        /* Each sample: eight gencmd requests (EINVAL too), then the tags. */
        assert_int_equal(rec_fw.calls, 18);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        assert_int_equal(rec_opens, 3); /* a firmware error is not a broken node */
        rpi_source_close(st);
        /* A short temperature reply and a voltage of 0x80000000 (invalid id). */
        make_pi4("short", "tag 0x00030006 id=0 len=4 47236\n"
                          "tag 0x00030003 id=1 0x80000000\n"
                          "tag 0x00030047 id=3 1500398464\n");
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_true(fr->rpi.temp_c == 50.12);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        assert_true(isnan(fr->rpi.volt_core_v));
        assert_true(fr->rpi.arm_hz == 1500398464.0);
        assert_int_equal(fr->rpi.clock_src, RPI_SRC_MAILBOX);
        rpi_source_close(st);
}

static void test_broken_description(void **state)
{
        (void)state;
        make_pi4("broken", "tag 0x00030006 id=zero\n");
        void *st = NULL;
        setenv("PATH", "/nonexistent", 1);
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_true(rpi_source_uses_vcgencmd(st));
        assert_non_null(strstr(rpi_source_take_diagnostic(st), "Invalid argument"));
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_true(fr->rpi.temp_c == 50.12);
        vigil_source_rpi.fini(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_no_mailbox_no_vcgencmd),
            cmocka_unit_test(test_vcgencmd_that_always_fails),
            cmocka_unit_test(test_transport_fails_then_recovers),
            cmocka_unit_test(test_gencmd_failures),
            cmocka_unit_test(test_current_os_no_video_group),
            cmocka_unit_test(test_sysfs_voltage_bounds),
            cmocka_unit_test(test_tag_errors_and_short_replies),
            cmocka_unit_test(test_broken_description),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
