/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct fs_frame and struct storage_frame (core/frame.h), one row each,
 * in member order; the slots are core/host_values.c's.
 *
 * struct fs_frame is a file system vigil watches (collect/storage.c), the root's or the
 * log directory's. /metrics has one series per file system of each family, labelled
 * fs="root|log" and, when known, node_exporter's mountpoint, device and fstype
 * (metrics/metrics_storage.c); a missing value has no series. */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"

#define FS_MEMBER(m)      FIELD_MEMBER(struct fs_frame, m)
#define STORAGE_MEMBER(m) FIELD_MEMBER(struct storage_frame, m)

const struct field_desc fs_fields[] = {
    /* its mount point in the mounts table; "" unknown */
    {FS_MEMBER(mount), .kind = FK_STRING},
    /* "ext4", "f2fs" */
    {FS_MEMBER(fstype), .kind = FK_STRING},
    /* "/dev/mmcblk0p2" */
    {FS_MEMBER(device), .kind = FK_STRING},
    /* statvfs f_blocks x f_frsize */
    {FS_MEMBER(size_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_filesystem_size_bytes",
                .type = "gauge",
                .help = "Size of the file system (statvfs).",
                .scale = 1}},
    /* f_bavail x f_frsize: what a non-root writer may still use */
    {FS_MEMBER(avail_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_FS,
                  .col = HC_ROOTFS_AVAIL,
                  .name = "rootfs_avail_mb",
                  .col2 = HC_LOGFS_AVAIL,
                  .name2 = "logfs_avail_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_filesystem_avail_bytes",
                .type = "gauge",
                .help = "Free space of the file system available to a non-root writer (statvfs).",
                .scale = 1}},
    /* 1 mounted read-only, 0 read-write */
    {FS_MEMBER(readonly), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_FS,
                  .col = HC_ROOTFS_RO,
                  .name = "rootfs_ro",
                  .col2 = HC_LOGFS_RO,
                  .name2 = "logfs_ro",
                  .fmt = HF_INT},
     .metric = {.row = MR_SERIES,
                .name = "vigil_filesystem_readonly",
                .type = "gauge",
                .help = "1 when the file system is mounted read-only.",
                .scale = 1}},
    /* time to full at the last hour's rate; NAN when not filling */
    {FS_MEMBER(full_in_s), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_FS,
                  .col = HC_ROOTFS_FULL_H,
                  .name = "rootfs_full_in_h",
                  .col2 = HC_LOGFS_FULL_H,
                  .name2 = "logfs_full_in_h",
                  .fmt = HF_PCT1,
                  .div = 3600},
     .metric = {.row = MR_SERIES,
                .name = "vigil_filesystem_full_in_seconds",
                .type = "gauge",
                .help = "Time until the file system is full at the last hour's rate (only while "
                        "it fills).",
                .scale = 1}},
};

const size_t fs_fields_count = sizeof(fs_fields) / sizeof(fs_fields[0]);

#define SD_MEMBER(m) FIELD_MEMBER(struct sd_frame, m)

/* struct sd_frame: the MMC card of the root file system (collect/sdcard.c). Its series
 * are labelled device="mmcblk0" (metrics/metrics_storage.c). */
const struct field_desc sd_fields[] = {
    /* "mmcblk0" */
    {SD_MEMBER(device), .kind = FK_STRING},
    /* the card's CID, drivers/mmc/core/{mmc,sd}.c: name, manfid, oemid, date, serial, type */
    {SD_MEMBER(name), .kind = FK_STRING,
     .metric = {.row = MR_CODE,
                .member = "name manfid oemid date serial type",
                .name = "vigil_sd_info",
                .type = "gauge",
                .help = "The SD card or eMMC's identity (its CID register, sysfs).",
                .code = MC_SD_INFO}},
    {SD_MEMBER(manfid), .kind = FK_STRING},
    {SD_MEMBER(oemid), .kind = FK_STRING},
    {SD_MEMBER(date), .kind = FK_STRING},
    {SD_MEMBER(serial), .kind = FK_STRING},
    {SD_MEMBER(type), .kind = FK_STRING},
    /* eMMC DEVICE_LIFE_TIME_EST_TYP_A/B: 1 = 0-10% used .. 10 = 90-100%, 11 exceeded */
    {SD_MEMBER(life_time_a), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_life_time_estimate",
                .type = "gauge",
                .help = "eMMC life time used, JEDEC estimate: 1 is 0-10%, 10 is 90-100%, 11 "
                        "exceeded.",
                .key = "type",
                .val = "a",
                .scale = 1}},
    {SD_MEMBER(life_time_b), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES, .key = "type", .val = "b", .scale = 1}},
    /* eMMC PRE_EOL_INFO: 1 normal, 2 warning (80% of reserved blocks), 3 urgent */
    {SD_MEMBER(pre_eol), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_pre_eol_info",
                .type = "gauge",
                .help = "eMMC reserved blocks: 1 normal, 2 warning, 3 urgent (JEDEC PRE_EOL_INFO).",
                .scale = 1}},
    /* /proc/diskstats sectors written x 512, since boot */
    {SD_MEMBER(written_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_written_bytes_total",
                .type = "counter",
                .help = "Bytes written to the card since boot (/proc/diskstats).",
                .scale = 1}},
    /* written_bytes over the uptime, per day */
    {SD_MEMBER(write_bytes_per_day), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_write_bytes_per_day",
                .type = "gauge",
                .help = "Bytes written to the card per day, averaged since boot.",
                .scale = 1}},
    /* /proc/self/io write_bytes: what vigil itself caused to be written */
    {SD_MEMBER(self_written_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_self_written_bytes_total",
                .type = "counter",
                .help = "Bytes vigil itself caused to be written to storage (/proc/self/io "
                        "write_bytes).",
                .scale = 1}},
    /* vigil's writes since its start over the card's since then (both deltas) */
    {SD_MEMBER(self_write_ratio), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_self_write_ratio",
                .type = "gauge",
                .help = "Share of the bytes written to the card since vigil started that vigil "
                        "itself wrote (/proc/self/io over /proc/diskstats).",
                .scale = 1}},
    /* time until --sd-endurance-tbw is written at this rate (less the eMMC's used share) */
    {SD_MEMBER(endurance_s), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_sd_endurance_seconds",
                .type = "gauge",
                .help = "Time until the card's rated endurance (--sd-endurance-tbw) is written "
                        "at the current daily rate.",
                .scale = 1}},
};

const size_t sd_fields_count = sizeof(sd_fields) / sizeof(sd_fields[0]);

const struct field_desc storage_fields[] = {
    /* fs_fields above */
    {STORAGE_MEMBER(fs), .kind = FK_STRUCT, .sub = fs_fields, .nsub = &fs_fields_count,
     .elem = sizeof(struct fs_frame)},
    /* lines seen since boot (as far as the ring held), one per kind */
    {STORAGE_MEMBER(errors), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_SUM,
                  .col = HC_STORAGE_ERRORS,
                  .name = "storage_errors",
                  .fmt = HF_INT,
                  .n = STORAGE_KINDS},
     .metric = {.row = MR_CODE,
                .name = "vigil_storage_kernel_errors_total",
                .type = "counter",
                .help = "Kernel-log lines reporting storage errors, by subsystem, since boot as "
                        "far as the kernel's ring held them.",
                .code = MC_STORAGE_ERRORS}},
    /* of which in this sample (0 in the first) */
    {STORAGE_MEMBER(errors_new), .kind = FK_DOUBLE},
    /* the newest such line's text */
    {STORAGE_MEMBER(last_error), .kind = FK_STRING},
    /* sd_fields above */
    {STORAGE_MEMBER(sd), .kind = FK_STRUCT, .sub = sd_fields, .nsub = &sd_fields_count,
     .elem = sizeof(struct sd_frame)},
};

const size_t storage_fields_count = sizeof(storage_fields) / sizeof(storage_fields[0]);
