/* SPDX-License-Identifier: Apache-2.0 */
/* How soon a file system commits, by itself, what a data write-back left in its journal:
 * the bound that lets a long sync interval write a log's data without forcing a journal
 * commit of its own (util/fssync.h, light rounds).
 *
 * ext4 documents both halves (Linux Documentation/admin-guide/ext4.rst, "Mount
 * options"): "commit=nrsec ... limits the maximum age of the running transaction to
 * 'nrsec' seconds. The default value is 5 seconds. This means that if you lose your
 * power, you will lose as much as the latest 5 seconds of metadata changes", and
 * "data=ordered ... All data are forced directly out to the main file system prior to
 * its metadata being committed to the journal". With barriers on (the default, option
 * "barrier"), the commit record is written with a cache flush before it, so the data
 * written earlier is on stable storage once the commit is. A row whose data a
 * sync_file_range(2) wrote out at time t is therefore on the disk, with the size that
 * makes it part of the file, by t + commit.
 *
 * /proc/fs/ext4/DEV/options lists every option in effect, defaults included (fs/ext4/
 * super.c, ext4_seq_options_show calls _ext4_show_options with nodefs set): on a
 * journalled mount it shows "data=ordered" (or journal, writeback), "barrier" or
 * "nobarrier", and "commit=N"; a mount without a journal shows no data= line. DEV is the
 * block device's name, which /sys/dev/block/MAJ:MIN links to (Documentation/ABI/
 * testing/sysfs-dev). Read from the real /proc and /sys, never under --root: the log
 * directory is always on this machine. */
#ifndef VIGIL_UTIL_FS_COMMIT_H
#define VIGIL_UTIL_FS_COMMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The commit interval in ns from an ext4 options text of len bytes (one option a line)
 * when it is data=ordered with barriers and a commit=N of 1 s or more; 0 otherwise
 * (no journal, data=writeback or data=journal, nobarrier, no or a malformed commit=). */
int64_t fs_commit_parse(const char *text, size_t len);

/* fs_commit_parse of the ext4 mount on device dev (a file's st_dev), read from
 * /sys/dev/block and /proc/fs/ext4; 0 when it is not ext4 or cannot be read. */
int64_t fs_commit_of_dev(dev_t dev);

#endif
