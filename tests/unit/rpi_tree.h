/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the Raspberry Pi source's unit tests (test_rpi.c, test_rpi_faults.c):
 * fixture trees, trees built in a scratch directory, and a transport that runs the fake
 * firmware and lets a test see what it was asked. Helpers are static inline, so each
 * test file takes what it uses. */
#ifndef VIGIL_TESTS_RPI_TREE_H
#define VIGIL_TESTS_RPI_TREE_H

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
#include "core/rpi_throttle.h"
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
static inline int rec_open(const char *path, void **ret_priv)
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

static inline int rec_call(void *priv, uint32_t *buf, size_t cap)
{
        return fakefw_answer(priv, buf, cap);
}

static inline void rec_close(void *priv)
{
        (void)priv;
}

static const struct rpi_transport_ops rec_ops = {
    .name = "recording",
    .open = rec_open,
    .call = rec_call,
    .close = rec_close,
};

static inline void use_root(const char *root)
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

static inline void use_fixture(const char *name)
{
        char root[512];
        snprintf(root, sizeof(root), "tests/fixtures/%s", name);
        use_root(root);
}

/* Write root/rel (making its directories), replacing what was there. */
static inline void put_file(const char *root, const char *rel, const char *text, size_t n)
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

static inline void put_text(const char *root, const char *rel, const char *text)
{
        put_file(root, rel, text, strlen(text));
}

/* A minimal Pi 4 tree in scratch/name: model, thermal zone, cpufreq, firmware text. */
static inline void make_pi4(const char *name, const char *firmware)
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

/* PATH with tests/fixtures/bin first, so the fake vcgencmd is the one found. */
static inline void path_with_fake_vcgencmd(void)
{
        char bin[4096], path[8192];
        assert_non_null(realpath("tests/fixtures/bin", bin));
        snprintf(path, sizeof(path), "%s:%s", bin, saved_path);
        setenv("PATH", path, 1);
}

static inline int group_setup(void **state)
{
        (void)state;
        fr = calloc(1, sizeof(*fr));
        saved_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        snprintf(scratch, sizeof(scratch), "%s/vigil-rpi-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        return fr && mkdtemp(scratch) ? 0 : -1;
}

static inline int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
        (void)sb;
        (void)type;
        (void)ftw;
        return remove(path);
}

static inline int group_teardown(void **state)
{
        (void)state;
        free(fr);
        setenv("PATH", saved_path, 1);
        free(saved_path);
        return nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
