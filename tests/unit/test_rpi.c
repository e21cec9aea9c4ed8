/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the whole Raspberry Pi source on fixture trees (tests/fixtures/pi4-*,
 * pi5, arm-board) and on trees built here, with the fake firmware behind the mailbox. */
#include "rpi_tree.h"

/* Pi 4, older Pi OS: /dev/vcio only. gencmd through it, the ARM maximum by tag. */
static void test_pi4_healthy(void **state)
{
        (void)state;
        use_fixture("pi4-healthy");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_false(rpi_source_uses_vcgencmd(st));
        assert_null(rpi_source_take_diagnostic(st));
        assert_string_equal(rpi_source_gencmd_node(st), "tests/fixtures/pi4-healthy/dev/vcio");
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->present);
        assert_string_equal(r->model, "Raspberry Pi 4 Model B Rev 1.4");
        assert_true(r->temp_c == 47.2); /* vcgencmd's 47.2, not the tag's 47.236 */
        assert_true(r->volt_core_v == 0.8563);
        assert_true(r->arm_hz == 1500398464.0);
        assert_true(r->core_hz == 500000992.0);
        assert_true(r->v3d_hz == 500000992.0);
        assert_true(r->h264_hz == 0.0);
        assert_true(r->pixel_hz == 75001464.0);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_true(r->throttled_valid && r->throttled == 0);
        assert_true(r->undervolt_alarm == 0.0);
        assert_int_equal(r->temp_src, RPI_SRC_GENCMD);
        assert_int_equal(r->volt_src, RPI_SRC_GENCMD);
        assert_int_equal(r->clock_src, RPI_SRC_GENCMD);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        assert_int_equal(r->arm_max_src, RPI_SRC_MAILBOX);
        assert_int_equal(r->nv3d, 0);
        /* Eight gencmd requests, then one tag request with the ARM maximum alone; the
         * throttled word never by tag. */
        assert_int_equal(rec_fw.calls, 9);
        assert_int_equal(rec_fw.gencmd_requests, 8);
        assert_int_equal(rec_fw.last_ntags, 1);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_fw.calls, 18);
        assert_int_equal(rec_fw.throttled_requests, 0);
        assert_int_equal(rec_opens, 3); /* vcio_gencmd (absent), vcio twice */
        rpi_source_close(st);
}

/* Pi 4, current Pi OS: vcio root-only, vcio_gencmd for group video. */
static void test_pi4_current(void **state)
{
        (void)state;
        use_fixture("pi4-current");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_false(rpi_source_uses_vcgencmd(st));
        assert_null(rpi_source_take_diagnostic(st));
        assert_string_equal(rpi_source_gencmd_node(st),
                            "tests/fixtures/pi4-current/dev/vcio_gencmd");
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->temp_c == 47.2);
        assert_true(r->arm_hz == 1500398464.0);
        assert_int_equal(r->clock_src, RPI_SRC_GENCMD);
        assert_true(r->throttled_valid && r->throttled == 0);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        /* No tag reaches the firmware: the maximum is cpufreq's. */
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_int_equal(r->arm_max_src, RPI_SRC_SYSFS);
        assert_int_equal(rec_fw.calls, 8);
        assert_int_equal(rec_fw.last_ntags, 1);
        assert_string_equal(rec_fw.last_gencmd, "get_throttled");
        rpi_source_close(st);
}

static void test_pi4_undervolt(void **state)
{
        (void)state;
        use_fixture("pi4-undervolt");
        void *st = NULL;
        /* The real registry entry, picking the fake firmware because dev/vcio is a file. */
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->throttled_valid && r->throttled == 0x50005);
        assert_true(r->volt_core_v == 0.8);
        assert_true(r->temp_c == 61.3);
        assert_true(r->arm_hz == 600117184.0);
        assert_true(r->core_hz == 250000496.0);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        vigil_source_rpi.fini(st);
}

static void test_pi4_shm_full(void **state)
{
        (void)state;
        use_fixture("pi4-shm-full");
        void *st = NULL;
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_string_equal(fr->rpi.model, "Raspberry Pi 4 Model B Rev 1.5");
        assert_true(fr->rpi.temp_c == 47.2);
        assert_true(fr->rpi.throttled_valid && fr->rpi.throttled == 0);
        vigil_source_rpi.fini(st);
}

/* Pi 5, current Pi OS: H264 answered with 0 Hz, V3D 0 when idle, rpi_volt with only
 * in0_lcrit_alarm. */
static void test_pi5_gencmd_and_v3d(void **state)
{
        (void)state;
        use_fixture("pi5");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_string_equal(r->model, "Raspberry Pi 5 Model B Rev 1.0");
        assert_true(r->temp_c == 51.1);
        assert_true(r->volt_core_v == 0.72);
        assert_int_equal(r->volt_src, RPI_SRC_GENCMD);
        assert_true(r->arm_hz == 2400033792.0);
        assert_true(r->core_hz == 910007552.0);
        assert_true(r->v3d_hz == 0.0);
        assert_true(r->h264_hz == 0.0);
        assert_true(r->pixel_hz == 107999000.0);
        assert_true(r->arm_max_hz == 2400000000.0);
        assert_true(r->throttled_valid && r->throttled == 0x80000);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        assert_true(r->undervolt_alarm == 0.0);
        /* gpu_stats: six queues; no busy ratio from a single reading. */
        assert_int_equal(r->nv3d, 6);
        assert_string_equal(r->v3d[0].queue, "bin");
        assert_string_equal(r->v3d[4].queue, "cache_clean");
        assert_string_equal(r->v3d[5].queue, "cpu");
        assert_true(r->v3d[1].jobs == 22619.0);
        assert_true(isnan(r->v3d[1].busy_ratio));
        /* The same reading again: no time passed, still no ratio. */
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_true(isnan(r->v3d[0].busy_ratio));
        rpi_source_close(st);
}

/* A Pi 5 whose firmware answers only some tags and no gencmd: probed at start, only
 * the tags answered stay in the request; the word's sticky bits are not trusted. */
static void test_pi5_tags_only(void **state)
{
        (void)state;
        make_pi4("pi5tags", "tag 0x00030047 id=3 2400033792\n"
                            "tag 0x00030004 id=3 2400000000\n"
                            "tag 0x00030046 0x50005\n");
        static const char model[] = "Raspberry Pi 5 Model B Rev 1.0";
        char root[512];
        snprintf(root, sizeof(root), "%s/pi5tags", scratch);
        put_file(root, "proc/device-tree/model", model, sizeof(model));
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_mailbox_mask(st), RPI_V_BIT(RPI_V_ARM) |
                                                          RPI_V_BIT(RPI_V_ARM_MAX) |
                                                          RPI_V_BIT(RPI_V_THROTTLED));
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_null(rpi_source_gencmd_node(st)); /* gencmd unanswered: not asked again */
        assert_int_equal(rec_fw.last_ntags, 3);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->arm_hz == 2400033792.0);
        assert_int_equal(r->clock_src, RPI_SRC_MAILBOX);
        assert_true(r->throttled_valid && r->throttled == 0x50005);
        assert_int_equal(r->throttle_src, RPI_SRC_MAILBOX);
        assert_false(rpi_frame_sticky_reliable(r));
        char flags[256];
        rpi_frame_flags(r, flags, sizeof(flags));
        assert_string_equal(flags, "NOW:under-voltage,NOW:currently throttled");
        unsigned calls = rec_fw.calls;
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_fw.calls, calls + 1);
        rpi_source_close(st);
}

static void test_v3d_busy_between_samples(void **state)
{
        (void)state;
        make_pi4("v3d", "tag 0x00030046 0x0\n");
        char root[512];
        snprintf(root, sizeof(root), "%s/v3d", scratch);
        put_text(root, "sys/class/drm/card0/device/gpu_stats",
                 "queue\ttimestamp\tjobs\truntime\n"
                 "bin\t1000000000\t10\t100000000\n"
                 "render\t1000000000\t10\t300000000\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(fr->rpi.nv3d, 2);
        assert_true(isnan(fr->rpi.v3d[0].busy_ratio));
        /* Two seconds later: bin ran 0.5 s of them, render 1.5 s. */
        put_text(root, "sys/class/drm/card0/device/gpu_stats",
                 "queue\ttimestamp\tjobs\truntime\n"
                 "bin\t3000000000\t25\t600000000\n"
                 "render\t3000000000\t31\t1800000000\n");
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_true(fr->rpi.v3d[0].busy_ratio == 0.25);
        assert_true(fr->rpi.v3d[1].busy_ratio == 0.75);
        assert_true(fr->rpi.v3d[1].jobs == 31.0);
        rpi_source_close(st);
}

static void test_not_a_pi(void **state)
{
        (void)state;
        void *st = NULL;
        use_fixture("arm-board");
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), -ENODEV);
        assert_null(st);
        use_fixture("nonexistent");
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), -ENODEV);
        assert_null(st);
}

static void test_noaccess_falls_back_to_vcgencmd(void **state)
{
        (void)state;
        use_fixture("pi4-noaccess");
        path_with_fake_vcgencmd();
        void *st = NULL;
        assert_int_equal(vigil_source_rpi.init(&ctx, &st), 0);
        assert_true(rpi_source_uses_vcgencmd(st));
        const char *diag = rpi_source_take_diagnostic(st);
        assert_non_null(diag);
        assert_string_equal(diag, "cannot open tests/fixtures/pi4-noaccess/dev/vcio: permission "
                                  "denied (this kernel has no /dev/vcio_gencmd); on this older "
                                  "Raspberry Pi OS group 'video' has /dev/vcio: run vigil with "
                                  "group video (usermod -aG video USER); until then values come "
                                  "from sysfs and vcgencmd");
        assert_null(rpi_source_take_diagnostic(st));
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        /* sysfs first, then vcgencmd; the ARM clock measured (never scaling_cur_freq),
         * the throttled word from vcgencmd (complete). */
        assert_true(r->temp_c == 48.2);
        assert_int_equal(r->temp_src, RPI_SRC_SYSFS);
        assert_true(r->arm_hz == 1500398464.0);
        assert_int_equal(r->clock_src, RPI_SRC_VCGENCMD);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_true(r->volt_core_v == 0.8563);
        assert_int_equal(r->volt_src, RPI_SRC_VCGENCMD);
        assert_true(r->core_hz == 500000992.0);
        assert_true(r->h264_hz == 0.0);
        assert_true(r->pixel_hz == 75001464.0);
        assert_true(r->throttled_valid && r->throttled == 0x50000);
        assert_int_equal(r->throttle_src, RPI_SRC_VCGENCMD);
        vigil_source_rpi.fini(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pi4_healthy),
            cmocka_unit_test(test_pi4_undervolt),
            cmocka_unit_test(test_pi4_shm_full),
            cmocka_unit_test(test_pi4_current),
            cmocka_unit_test(test_pi5_gencmd_and_v3d),
            cmocka_unit_test(test_pi5_tags_only),
            cmocka_unit_test(test_v3d_busy_between_samples),
            cmocka_unit_test(test_not_a_pi),
            cmocka_unit_test(test_noaccess_falls_back_to_vcgencmd),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
