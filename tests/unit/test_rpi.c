/* Unit tests: the whole Raspberry Pi source on fixture trees (tests/fixtures/pi4-*,
 * pi5, arm-board) and on trees built here, with the fake firmware behind the mailbox. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/rpi.h"
#include "collect/rpi_fw.h"
#include "collect/rpi_transport.h"
#include "core/frame.h"
#include "core/vigil.h"
#include "detect/rpi_throttle.h"
#include "util/pfile.h"

static struct vigil_options opt;
static struct vigil_ctx ctx;
static struct frame *fr;
static struct tick tk;
static char scratch[256];
static char *saved_path;

/* A transport that runs the fake firmware and lets the test see what it was asked. */
static struct fakefw rec_fw;
static unsigned rec_opens;

/* Every node opened shares rec_fw: a failed open leaves it as it was. */
static int rec_open(const char *path, void **ret_priv)
{
        static char text[FAKEFW_MAX_BYTES];
        static struct fakefw parsed;
        rec_opens++;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, text, sizeof(text));
        close(fd);
        if (n < 0 || fakefw_parse(&parsed, text, (size_t)n, NULL) < 0)
                return -EINVAL;
        if (parsed.open_err)
                return -parsed.open_err;
        rec_fw = parsed;
        *ret_priv = &rec_fw;
        return 0;
}

static int rec_call(void *priv, uint32_t *buf, size_t cap)
{
        return fakefw_answer(priv, buf, cap);
}

static void rec_close(void *priv)
{
        (void)priv;
}

static const struct rpi_transport_ops rec_ops = {
    .name = "recording",
    .open = rec_open,
    .call = rec_call,
    .close = rec_close,
};

static void use_root(const char *root)
{
        setenv("PATH", saved_path, 1); /* whatever the previous test left */
        memset(&opt, 0, sizeof(opt));
        snprintf(opt.root, sizeof(opt.root), "%s", root);
        memset(&ctx, 0, sizeof(ctx));
        ctx.opt = &opt;
        ctx.frame = fr;
        frame_clear(fr);
        memset(&tk, 0, sizeof(tk));
        tk.due = VCLOCK_BIT(VCLOCK_HOST);
        rec_opens = 0;
}

static void use_fixture(const char *name)
{
        char root[512];
        snprintf(root, sizeof(root), "tests/fixtures/%s", name);
        use_root(root);
}

/* Write root/rel (making its directories), replacing what was there. */
static void put_file(const char *root, const char *rel, const char *text, size_t n)
{
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *p = path + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                mkdir(path, 0755);
                *p = '/';
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, n), (ssize_t)n);
        close(fd);
}

static void put_text(const char *root, const char *rel, const char *text)
{
        put_file(root, rel, text, strlen(text));
}

/* A minimal Pi 4 tree in scratch/name: model, thermal zone, cpufreq, firmware text. */
static void make_pi4(const char *name, const char *firmware)
{
        char root[512];
        snprintf(root, sizeof(root), "%s/%s", scratch, name);
        static const char model[] = "Raspberry Pi 4 Model B Rev 1.2";
        put_file(root, "proc/device-tree/model", model, sizeof(model));
        put_text(root, "sys/class/thermal/thermal_zone0/type", "cpu-thermal\n");
        put_text(root, "sys/class/thermal/thermal_zone0/temp", "50120\n");
        put_text(root, "sys/class/hwmon/hwmon0/name", "rpi_volt\n");
        put_text(root, "sys/class/hwmon/hwmon0/in0_lcrit_alarm", "1\n");
        put_text(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "1200000\n");
        put_text(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "1500000\n");
        if (firmware)
                put_text(root, "dev/vcio", firmware);
        use_root(root);
}

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
        assert_true(r->throttled == 0.0);
        assert_true(r->undervolt_alarm == 0.0);
        assert_int_equal(r->temp_src, RPI_SRC_GENCMD);
        assert_int_equal(r->volt_src, RPI_SRC_GENCMD);
        assert_int_equal(r->clock_src, RPI_SRC_GENCMD);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
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
        assert_true(r->throttled == 0.0);
        assert_int_equal(r->throttle_src, RPI_SRC_GENCMD);
        /* No tag reaches the firmware: the maximum is cpufreq's. */
        assert_true(r->arm_max_hz == 1500000000.0);
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
        assert_true(r->throttled == 0x50005);
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
        assert_true(fr->rpi.throttled == 0.0);
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
        assert_true(r->throttled == 0x80000);
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
        assert_true(r->throttled == 0x50005);
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

/* PATH with tests/fixtures/bin first, so the fake vcgencmd is the one found. */
static void path_with_fake_vcgencmd(void)
{
        char bin[4096], path[8192];
        assert_non_null(realpath("tests/fixtures/bin", bin));
        snprintf(path, sizeof(path), "%s:%s", bin, saved_path);
        setenv("PATH", path, 1);
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
        assert_true(r->throttled == 0x50000);
        assert_int_equal(r->throttle_src, RPI_SRC_VCGENCMD);
        vigil_source_rpi.fini(st);
}

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
        assert_true(isnan(r->throttled));
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
        assert_true(isnan(fr->rpi.throttled));
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
        assert_true(isnan(fr->rpi.throttled));
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
                assert_true(r->throttled == 0x50000);
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

static int group_setup(void **state)
{
        (void)state;
        fr = calloc(1, sizeof(*fr));
        saved_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        snprintf(scratch, sizeof(scratch), "%s/vigil-rpi-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        return fr && mkdtemp(scratch) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
        (void)sb;
        (void)type;
        (void)ftw;
        return remove(path);
}

static int group_teardown(void **state)
{
        (void)state;
        free(fr);
        setenv("PATH", saved_path, 1);
        free(saved_path);
        return nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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
