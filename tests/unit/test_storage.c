/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: storage health parsers (collect/storage_parse.c): the mounts table, the
 * kernel-log storage error lines, the time to full. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collect/storage_parse.h"
#include "core/frame.h"
#include "detect/storage_rules.h"
#include "util/strbuf.h"

/* A Raspberry Pi OS mounts table, as /proc/self/mounts prints it. */
static const char pi_mounts[] =
    "/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n"
    "devtmpfs /dev devtmpfs rw,relatime,size=1800012k,nr_inodes=450003,mode=755 0 0\n"
    "proc /proc proc rw,relatime 0 0\n"
    "tmpfs /run tmpfs rw,nosuid,nodev,size=788112k,nr_inodes=819200,mode=755 0 0\n"
    "/dev/mmcblk0p1 /boot/firmware vfat rw,relatime,fmask=0022,dmask=0022 0 0\n"
    "/dev/sda1 /var/log ext4 rw,relatime 0 0\n"
    "/dev/sdb1 /media/usb\\040stick vfat ro,relatime 0 0\n";

static void test_mount_find(void **state)
{
        (void)state;
        struct mount_entry e;
        size_t n = strlen(pi_mounts);
        assert_int_equal(storage_mount_find(pi_mounts, n, "/", &e), 0);
        assert_string_equal(e.mount, "/");
        assert_string_equal(e.device, "/dev/mmcblk0p2");
        assert_string_equal(e.fstype, "ext4");
        assert_false(e.readonly);
        /* The longest mount point that is a whole-component prefix. */
        assert_int_equal(storage_mount_find(pi_mounts, n, "/var/log/vigil", &e), 0);
        assert_string_equal(e.mount, "/var/log");
        assert_string_equal(e.device, "/dev/sda1");
        assert_int_equal(storage_mount_find(pi_mounts, n, "/var/logs", &e), 0);
        assert_string_equal(e.mount, "/"); /* /var/log is not a prefix of /var/logs */
        assert_int_equal(storage_mount_find(pi_mounts, n, "/boot/firmware", &e), 0);
        assert_string_equal(e.fstype, "vfat");
        /* Octal escapes undone; "ro" among the options. */
        assert_int_equal(storage_mount_find(pi_mounts, n, "/media/usb stick/x", &e), 0);
        assert_string_equal(e.mount, "/media/usb stick");
        assert_true(e.readonly);
}

static void test_mount_remount_ro(void **state)
{
        (void)state;
        /* ext4 remounted read-only after an error: the same line with "ro". A later
         * mount on the same point hides the earlier one. */
        const char t[] = "/dev/mmcblk0p2 / ext4 ro,noatime 0 0\n"
                         "overlay / overlay rw,lowerdir=/a,upperdir=/b 0 0\n";
        struct mount_entry e;
        assert_int_equal(storage_mount_find(t, strlen(t), "/home", &e), 0);
        assert_string_equal(e.fstype, "overlay");
        assert_false(e.readonly);
        assert_int_equal(storage_mount_find(t, 38, "/home", &e), 0);
        assert_true(e.readonly);
        /* "ro" only as a whole option: "errors=remount-ro" is not read-only. */
        const char u[] = "/dev/sda2 / ext4 rw,relatime,errors=remount-ro 0 0\n";
        assert_int_equal(storage_mount_find(u, strlen(u), "/", &e), 0);
        assert_false(e.readonly);
}

static void test_mount_malformed(void **state)
{
        (void)state;
        struct mount_entry e = {.mount = "untouched"};
        const char bad[] = "garbage\n/dev/x\n\n/dev/a relative ext4 rw 0 0\n";
        assert_int_equal(storage_mount_find(bad, strlen(bad), "/", &e), -ENOENT);
        assert_string_equal(e.mount, "untouched");
        assert_int_equal(storage_mount_find("", 0, "/", &e), -ENOENT);
        /* A device name longer than the entry holds: the line is skipped. */
        char longl[600];
        memset(longl, 'x', sizeof(longl));
        memcpy(longl, "/dev/", 5);
        const char *rest = " / ext4 ro 0 0\n/dev/ok / ext4 rw 0 0\n";
        memcpy(longl + 300, rest, strlen(rest));
        size_t ln = 300 + strlen(rest);
        assert_int_equal(storage_mount_find(longl, ln, "/", &e), 0);
        assert_string_equal(e.device, "/dev/ok");
        /* Cut mid-line (a bounded read): the cut line counts only if whole. */
        const char cut[] = "/dev/mmcblk0p2 / ext4 rw 0 0\n/dev/sda1 /var";
        assert_int_equal(storage_mount_find(cut, strlen(cut), "/var/log", &e), 0);
        assert_string_equal(e.mount, "/");
}

/* prio = facility << 3 | level; kernel facility 0. */
static void test_classify(void **state)
{
        (void)state;
        assert_int_equal(storage_classify(2,
                                          "EXT4-fs error (device mmcblk0p2): ext4_lookup:1601: "
                                          "inode #2: comm systemd: deleted inode referenced: 1234"),
                         STORAGE_ERR_EXT4);
        assert_int_equal(
            storage_classify(2, "EXT4-fs (mmcblk0p2): Remounting filesystem read-only"),
            STORAGE_ERR_EXT4);
        assert_int_equal(storage_classify(6, "EXT4-fs (mmcblk0p2): mounted filesystem with ordered "
                                             "data mode. Quota mode: none."),
                         -1);
        assert_int_equal(storage_classify(3, "F2FS-fs (mmcblk0p2): Failed to read root inode"),
                         STORAGE_ERR_F2FS);
        assert_int_equal(
            storage_classify(6, "F2FS-fs (mmcblk0p2): Mounted with checkpoint version = 1"), -1);
        assert_int_equal(storage_classify(3,
                                          "mmcblk0: error -110 transferring data, sector 4308992, "
                                          "nr 8, cmd response 0x900, card status 0xc00"),
                         STORAGE_ERR_MMC);
        assert_int_equal(storage_classify(3, "mmc0: Timeout waiting for hardware interrupt."),
                         STORAGE_ERR_MMC);
        assert_int_equal(
            storage_classify(6, "mmc0: new ultra high speed DDR50 SDHC card at address aaaa"), -1);
        assert_int_equal(storage_classify(3,
                                          "I/O error, dev mmcblk0, sector 4308992 op 0x1:(WRITE) "
                                          "flags 0x800 phys_seg 1 prio class 2"),
                         STORAGE_ERR_IO);
        assert_int_equal(
            storage_classify(3, "blk_update_request: I/O error, dev mmcblk0, sector 123"),
            STORAGE_ERR_IO);
        assert_int_equal(
            storage_classify(3, "Buffer I/O error on dev mmcblk0p2, logical block 0, lost "
                                "async page write"),
            STORAGE_ERR_IO);
        /* Facility bits do not hide the level (a user-space writer's 14 = user.info). */
        assert_int_equal(storage_classify(14, "mmc0: error -84 whilst initialising SD card"), -1);
        assert_int_equal(storage_classify(11, "mmc0: error -84 whilst initialising SD card"),
                         STORAGE_ERR_MMC);
        assert_int_equal(storage_classify(4, "hwmon hwmon1: Undervoltage detected!"), -1);
        assert_int_equal(storage_classify(3, ""), -1);
        assert_string_equal(storage_err_names[STORAGE_ERR_IO], "io");
}

static void test_full_in(void **state)
{
        (void)state;
        /* 1 MB a minute less, 10 MB left: 10 minutes to full. */
        double t[11], a[11];
        for (int i = 0; i < 11; i++) {
                t[i] = 1000 + 60.0 * i;
                a[i] = 20e6 - 1e6 * i;
        }
        assert_true(fabs(storage_full_in_s(t, a, 11, 600) - 600) < 1e-6);
        /* too short a span, too few points */
        assert_true(isnan(storage_full_in_s(t, a, 11, 601)));
        assert_true(isnan(storage_full_in_s(t, a, 2, 0)));
        /* rising or flat: not filling */
        for (int i = 0; i < 11; i++)
                a[i] = 5e6 + 1e3 * i;
        assert_true(isnan(storage_full_in_s(t, a, 11, 0)));
        for (int i = 0; i < 11; i++)
                a[i] = 5e6;
        assert_true(isnan(storage_full_in_s(t, a, 11, 0)));
        /* already full */
        for (int i = 0; i < 11; i++)
                a[i] = 1e6 - 1e5 * i;
        assert_true(storage_full_in_s(t, a, 11, 0) == 0);
}

static const char *desc(void (*fn)(const struct rpi_rule *, const struct frame *,
                                   const struct rpi_thresholds *, enum rpi_level, struct strbuf *),
                        const struct frame *f, enum rpi_level lvl, char *buf, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, buf, cap);
        fn(NULL, f, NULL, lvl, &sb);
        return buf;
}

static void test_rules(void **state)
{
        (void)state;
        static struct frame f;
        char buf[512];
        frame_clear(&f);
        /* nothing known: the rules keep their state */
        assert_int_equal(storage_eval_readonly(NULL, &f, NULL, RPI_LEVEL_OK), -1);
        assert_int_equal(storage_eval_errors(NULL, &f, NULL, RPI_LEVEL_OK), -1);
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_OK), -1);

        struct fs_frame *root = &f.storage.fs[FS_ROOT], *log = &f.storage.fs[FS_LOG];
        snprintf(log->mount, sizeof(log->mount), "/var/log");
        snprintf(log->device, sizeof(log->device), "/dev/sda1");
        snprintf(log->fstype, sizeof(log->fstype), "ext4");
        root->readonly = 0;
        log->readonly = 1;
        assert_int_equal(storage_eval_readonly(NULL, &f, NULL, RPI_LEVEL_OK), RPI_LEVEL_WARN);
        assert_string_equal(desc(storage_desc_readonly, &f, RPI_LEVEL_WARN, buf, sizeof(buf)),
                            "type=STORAGE state=read-only fs=log mount=/var/log device=/dev/sda1 "
                            "fstype=ext4");
        log->readonly = 0;
        assert_int_equal(storage_eval_readonly(NULL, &f, NULL, RPI_LEVEL_WARN), RPI_LEVEL_OK);

        f.storage.errors[STORAGE_ERR_EXT4] = 2;
        f.storage.errors[STORAGE_ERR_MMC] = 1;
        f.storage.errors[STORAGE_ERR_F2FS] = f.storage.errors[STORAGE_ERR_IO] = 0;
        f.storage.errors_new = 2;
        snprintf(f.storage.last_error, sizeof(f.storage.last_error), "EXT4-fs error \"x\"");
        assert_int_equal(storage_eval_errors(NULL, &f, NULL, RPI_LEVEL_OK), RPI_LEVEL_WARN);
        assert_string_equal(desc(storage_desc_errors, &f, RPI_LEVEL_WARN, buf, sizeof(buf)),
                            "type=STORAGE_ERRORS new=2 total=3 last=\"EXT4-fs error 'x'\"");
        f.storage.errors_new = 0;
        assert_int_equal(storage_eval_errors(NULL, &f, NULL, RPI_LEVEL_WARN), RPI_LEVEL_OK);
        assert_string_equal(desc(storage_desc_errors, &f, RPI_LEVEL_OK, buf, sizeof(buf)),
                            "type=STORAGE_ERRORS state=quiet total=3");

        /* filling: warn under 24 h, clear only past 48 h (hysteresis) */
        root->avail_bytes = 100 * 1048576.0;
        log->avail_bytes = 50 * 1048576.0;
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_OK), RPI_LEVEL_OK);
        log->full_in_s = 30 * 3600.0;
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_OK), RPI_LEVEL_OK);
        log->full_in_s = 5 * 3600.0;
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_OK), RPI_LEVEL_WARN);
        assert_string_equal(
            desc(storage_desc_filling, &f, RPI_LEVEL_WARN, buf, sizeof(buf)),
            "type=STORAGE_FILL state=filling fs=log mount=/var/log device=/dev/sda1 "
            "fstype=ext4 avail=50.0MB full_in=5.0h");
        log->full_in_s = 30 * 3600.0;
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_WARN), RPI_LEVEL_WARN);
        log->full_in_s = NAN;
        assert_int_equal(storage_eval_filling(NULL, &f, NULL, RPI_LEVEL_WARN), RPI_LEVEL_OK);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_mount_find),      cmocka_unit_test(test_mount_remount_ro),
            cmocka_unit_test(test_mount_malformed), cmocka_unit_test(test_classify),
            cmocka_unit_test(test_full_in),         cmocka_unit_test(test_rules),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
