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

static int rec_open(const char *path, void **ret_priv)
{
        static char text[FAKEFW_MAX_BYTES];
        rec_opens++;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, text, sizeof(text));
        close(fd);
        if (n < 0 || fakefw_parse(&rec_fw, text, (size_t)n, NULL) < 0)
                return -EINVAL;
        if (rec_fw.open_err)
                return -rec_fw.open_err;
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

static void test_pi4_healthy(void **state)
{
        (void)state;
        use_fixture("pi4-healthy");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_mailbox_mask(st), RPI_V_ALL);
        assert_false(rpi_source_uses_vcgencmd(st));
        assert_null(rpi_source_take_diagnostic(st));
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->present);
        assert_string_equal(r->model, "Raspberry Pi 4 Model B Rev 1.4");
        assert_true(r->temp_c == 47.236);
        assert_true(r->volt_core_v == 0.8563);
        assert_true(r->arm_hz == 1500398464.0);
        assert_true(r->core_hz == 500000992.0);
        assert_true(r->v3d_hz == 500000992.0);
        assert_true(r->h264_hz == 0.0);
        assert_true(r->pixel_hz == 75001464.0);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_true(r->throttled_valid && r->throttled == 0);
        assert_int_equal(r->temp_src, RPI_SRC_MAILBOX);
        assert_int_equal(r->volt_src, RPI_SRC_MAILBOX);
        assert_int_equal(r->clock_src, RPI_SRC_MAILBOX);
        assert_int_equal(r->throttle_src, RPI_SRC_MAILBOX);
        assert_int_equal(r->nv3d, 0);
        /* One request per sample, all nine tags, the sticky bits never asked to clear. */
        assert_int_equal(rec_fw.calls, 1);
        assert_int_equal(rec_fw.last_ntags, 9);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_fw.calls, 2);
        assert_int_equal(rec_fw.throttled_requests, 2);
        assert_int_equal(rec_fw.throttled_nonzero, 0);
        assert_int_equal(rec_opens, 1);
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
        assert_int_equal(r->throttle_src, RPI_SRC_MAILBOX);
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
        assert_true(fr->rpi.temp_c == 47.236);
        assert_true(fr->rpi.throttled_valid && fr->rpi.throttled == 0);
        vigil_source_rpi.fini(st);
}

static void test_pi5_subset_and_v3d(void **state)
{
        (void)state;
        use_fixture("pi5");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        /* Probed at start: only the tags the firmware answered stay in the request. */
        assert_int_equal(rpi_source_mailbox_mask(st),
                         RPI_V_BIT(RPI_V_ARM) | RPI_V_BIT(RPI_V_CORE) | RPI_V_BIT(RPI_V_V3D) |
                             RPI_V_BIT(RPI_V_ARM_MAX) | RPI_V_BIT(RPI_V_THROTTLED));
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_fw.last_ntags, 5);
        const struct rpi_frame *r = &fr->rpi;
        assert_string_equal(r->model, "Raspberry Pi 5 Model B Rev 1.0");
        assert_true(r->temp_c == 51.15);
        assert_int_equal(r->temp_src, RPI_SRC_SYSFS);
        assert_true(r->volt_core_v == 0.72);
        assert_int_equal(r->volt_src, RPI_SRC_SYSFS);
        assert_true(r->arm_hz == 2400033792.0);
        assert_int_equal(r->clock_src, RPI_SRC_MAILBOX);
        assert_true(r->core_hz == 910007552.0);
        assert_true(r->v3d_hz == 960012416.0);
        assert_true(isnan(r->h264_hz));
        assert_true(isnan(r->pixel_hz));
        assert_true(r->arm_max_hz == 2400000000.0);
        assert_true(r->throttled_valid && r->throttled == 0x80000);
        assert_int_equal(r->throttle_src, RPI_SRC_MAILBOX);
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
                                  "denied; add the user vigil runs as to the 'video' group "
                                  "(usermod -aG video USER) to read the firmware directly; "
                                  "until then values come from sysfs and vcgencmd");
        assert_null(rpi_source_take_diagnostic(st));
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        /* sysfs first, then vcgencmd; the throttled word from vcgencmd (complete). */
        assert_true(r->temp_c == 48.2);
        assert_int_equal(r->temp_src, RPI_SRC_SYSFS);
        assert_true(r->arm_hz == 1500000000.0);
        assert_int_equal(r->clock_src, RPI_SRC_SYSFS);
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
        assert_non_null(strstr(diag, "/nombox/dev/vcio: No such file or directory; values come "
                                     "from sysfs and vcgencmd instead"));
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        const struct rpi_frame *r = &fr->rpi;
        assert_true(r->temp_c == 50.12);
        assert_true(r->arm_hz == 1200000000.0);
        assert_true(r->arm_max_hz == 1500000000.0);
        assert_true(isnan(r->volt_core_v));
        assert_int_equal(r->volt_src, RPI_SRC_NONE);
        assert_true(isnan(r->core_hz));
        /* sysfs knows only "under-voltage now". */
        assert_true(r->throttled_valid && r->throttled == 1);
        assert_int_equal(r->throttle_src, RPI_SRC_SYSFS);
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
        /* temp, ARM clock and maximum come from sysfs; the other six are asked for. */
        for (int i = 0; i < 3; i++)
                assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_int_equal(count_lines(calls), 18);
        assert_true(fr->rpi.temp_c == 50.12);
        assert_true(isnan(fr->rpi.volt_core_v));
        assert_true(fr->rpi.throttled_valid && fr->rpi.throttled == 1);
        assert_int_equal(fr->rpi.throttle_src, RPI_SRC_SYSFS);
        /* Three samples with no answer at all: no more spawns. */
        assert_int_equal(vigil_source_rpi.sample(st, &ctx, &tk), 0);
        assert_int_equal(count_lines(calls), 18);
        assert_true(fr->rpi.temp_c == 50.12);
        vigil_source_rpi.fini(st);
}

static void test_transport_fails_then_recovers(void **state)
{
        (void)state;
        make_pi4("eio", "tag 0x00030006 id=0 47236\n"
                        "tag 0x00030046 0x0\n"
                        "fail ioctl EIO after 1\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_true(fr->rpi.temp_c == 47.236);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_MAILBOX);
        /* The request fails: counted as an error, values from sysfs meanwhile. */
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EIO);
        assert_true(fr->rpi.present);
        assert_true(fr->rpi.temp_c == 50.12);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        assert_true(fr->rpi.throttled_valid && fr->rpi.throttled == 1);
        assert_int_equal(fr->rpi.throttle_src, RPI_SRC_SYSFS);
        assert_true(fr->rpi.arm_hz == 1200000000.0);
        assert_int_equal(rec_opens, 1);
        /* Next sample reopens the transport (the description is read afresh). */
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), 0);
        assert_int_equal(rec_opens, 2);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_MAILBOX);
        rpi_source_close(st);
}

static void test_reply_codes_and_short_replies(void **state)
{
        (void)state;
        /* A parse-error reply: what was answered is still used, the sample reports it. */
        make_pi4("partial", "tag 0x00030006 id=0 47236\n"
                            "tag 0x00030046 0x4\n"
                            "reply 0x80000001\n");
        void *st = NULL;
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EBADMSG);
        assert_true(fr->rpi.temp_c == 47.236);
        assert_true(fr->rpi.throttled_valid && fr->rpi.throttled == 4);
        assert_int_equal(fr->rpi.throttle_src, RPI_SRC_MAILBOX);
        rpi_source_close(st);
        /* Any other reply code: nothing from the mailbox. */
        make_pi4("badreply", "tag 0x00030006 id=0 47236\nreply 0x12345678\n");
        assert_int_equal(rpi_source_open(&ctx, &rec_ops, &st), 0);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EPROTO);
        assert_int_equal(fr->rpi.temp_src, RPI_SRC_SYSFS);
        assert_int_equal(rpi_source_sample(st, &ctx, &tk), -EPROTO);
        assert_int_equal(rec_opens, 1); /* a protocol answer is not a broken transport */
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
            cmocka_unit_test(test_pi5_subset_and_v3d),
            cmocka_unit_test(test_v3d_busy_between_samples),
            cmocka_unit_test(test_not_a_pi),
            cmocka_unit_test(test_noaccess_falls_back_to_vcgencmd),
            cmocka_unit_test(test_no_mailbox_no_vcgencmd),
            cmocka_unit_test(test_vcgencmd_that_always_fails),
            cmocka_unit_test(test_transport_fails_then_recovers),
            cmocka_unit_test(test_reply_codes_and_short_replies),
            cmocka_unit_test(test_broken_description),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
