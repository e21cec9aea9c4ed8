/* SPDX-License-Identifier: Apache-2.0 */
/* Storage health parsers, pure and bounded: the mounts table and the kernel-log lines
 * that report storage errors.
 *
 *   /dev/mmcblk0p2 / ext4 ro,noatime 0 0            (ROOT/proc/self/mounts, proc(5))
 *   3,812,9000000,-;EXT4-fs error (device mmcblk0p2): ext4_lookup:1601: ...   (kmsg) */
#ifndef VIGIL_COLLECT_STORAGE_PARSE_H
#define VIGIL_COLLECT_STORAGE_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* One line of the mounts table, with the octal escapes (\040 space, \011 tab, \012
 * newline, \134 backslash) undone. */
struct mount_entry {
        char device[64];
        char mount[256];
        char fstype[32];
        bool readonly; /* "ro" is among the options */
};

/* The entry of the mounts table buf[0..n) whose mount point is the longest prefix of
 * path (an absolute path; a prefix ends at a '/' or at the end of path); among equal
 * mount points the last line wins (a later mount hides an earlier one). Malformed
 * lines and fields too long for the entry are skipped. 0, or -ENOENT (no entry
 * covers path; *ret untouched). */
int storage_mount_find(const char *buf, size_t n, const char *path, struct mount_entry *ret);

/* What a kernel-log line reports, by the subsystem that printed it. */
enum storage_err {
        STORAGE_ERR_MMC,  /* SD/eMMC host or card: "mmc0: Timeout waiting for hardware
                           * interrupt.", "mmcblk0: error -110 transferring data, ..." */
        STORAGE_ERR_EXT4, /* "EXT4-fs error (device mmcblk0p2): ...", "EXT4-fs
                           * (mmcblk0p2): Remounting filesystem read-only" */
        STORAGE_ERR_F2FS, /* "F2FS-fs (mmcblk0p2): ..." at error level */
        STORAGE_ERR_IO,   /* the block layer: "I/O error, dev mmcblk0, sector 2048 ...",
                           * "Buffer I/O error on dev mmcblk0p2, logical block 0 ..." */
        STORAGE_ERR_COUNT
};

/* The Prometheus label / column word of each kind: "mmc", "ext4", "f2fs", "io". */
extern const char *const storage_err_names[STORAGE_ERR_COUNT];

/* Classify one kernel-log record: its syslog prio (facility << 3 | level) and text.
 * The file-system and MMC lines count at level error (3) or worse, as their drivers
 * print errors (pr_err, KERN_CRIT); a line naming an "I/O error" counts at any level.
 * Returns the kind, or -1 when the line reports no storage error. */
int storage_classify(unsigned prio, const char *text);

/* Time until a file system is full at the rate its free space fell over the points
 * (t_s[i] seconds, avail[i] bytes, oldest first): the least-squares slope over the
 * points, when they span at least min_span_s. Returns seconds (0 when already full),
 * or NAN when free space is not falling, too few points or too short a span. */
double storage_full_in_s(const double *t_s, const double *avail, size_t n, double min_span_s);

#endif
