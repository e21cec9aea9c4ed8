/* SPDX-License-Identifier: Apache-2.0 */
/* The host row: the reference Pi monitor's columns computed once per host tick from
 * the frame, shared by the host CSV (encode/host_row_csv.h writes it), the live view
 * and the exit summary. */
#ifndef VIGIL_CORE_HOST_ROW_H
#define VIGIL_CORE_HOST_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

/* The host log's columns, in the file's order: the reference monitor's, then vigil's.
 * Each is declared, with its name, format and the value it is made of, by the host_csv
 * slot of the value's row in its area's table (core/host_values.c, rpi_values.c,
 * watch_values.c, storage_values.c); a column no table declares fails
 * test_csv_roundtrip. */
enum host_col {
        HC_TIMESTAMP, /* the host sample's time */
        HC_UPTIME,    /* uptime_s: age of the oldest "player" process */
        HC_CPU_TOTAL, /* cpu_total_pct */
        HC_CPUS,      /* cpu0_pct, cpu1_pct, ...: one per core of the file's header */
        HC_LOAD1,
        HC_LOAD5,
        HC_LOAD15,
        HC_TEMP, /* temp_c: sysfs, else the firmware */
        HC_VOLT, /* volt_core_v */
        HC_ARM,  /* arm_mhz (measured) */
        HC_CORE,
        HC_V3D,
        HC_PIXEL,
        HC_H264,
        HC_GOVERNOR, /* cpu0's cpufreq governor */
        HC_ARM_CFG,  /* arm_cur_mhz_cfg: cpufreq's request for cpu0 */
        HC_MEM_USED, /* MB = bytes / 2^20 */
        HC_MEM_AVAIL,
        HC_SHM_USED,
        HC_PLAYER_PSS,
        HC_PLAYER_CPU,
        HC_PLAYER_THREADS,
        HC_CHROMIUM_PROCS,
        HC_CHROMIUM_PSS,
        HC_THROTTLED,      /* the raw word; written as 0x50000 */
        HC_THROTTLE_FLAGS, /* its conditions' names */
        /* vigil's columns, after the reference's */
        HC_MEM_TOTAL,
        HC_SHM_TOTAL,
        HC_ROOTFS_AVAIL, /* storage health (collect/storage.c) */
        HC_ROOTFS_RO,
        HC_ROOTFS_FULL_H,
        HC_LOGFS_AVAIL,
        HC_LOGFS_RO,
        HC_LOGFS_FULL_H,
        HC_STORAGE_ERRORS, /* kernel-log storage error lines, all kinds */
        HC_COUNT
};

/* How a column is written. The numbers are the reference's Python csv.DictWriter
 * output: HF_PY repr() of a float, HF_PCT1 psutil's one-decimal percentage, HF_INT a
 * count, HF_HEX hex() of a word. The others are not numbers: HF_TIME the ISO 8601 time
 * to the ms, HF_CORES one HF_PCT1 column per core, HF_TEXT and HF_FLAGS a string. */
enum host_col_fmt { HF_PY, HF_PCT1, HF_INT, HF_HEX, HF_TIME, HF_CORES, HF_TEXT, HF_FLAGS };

/* A column as the area tables declare it. */
struct host_col_info {
        const char *name; /* the header's; NULL for a column no table declares */
        enum host_col_fmt fmt;
        const char *suffix; /* HF_CORES: after the core's number */
        size_t text;        /* HF_TEXT, HF_FLAGS: the string's offset in struct host_row */
};

/* The HC_COUNT columns, and the WC_COUNT columns of a watch of its own (name: the
 * suffix), built once from the tables: what an encoder of the row reads (with the row's
 * values) to write it, without a call per cell. */
const struct host_col_info *host_cols(void);
const struct host_col_info *host_watch_cols(void);

/* The divisors of the tables' host_csv slots (core/fields.h): bytes to MB, Hz to MHz. */
#define HOST_DIV_MB  (1024.0 * 1024.0)
#define HOST_DIV_MHZ 1e6

/* The header's name of a column ("uptime_s", "cpu_total_pct", ...; for HC_CPUS the
 * part before the core's number, "cpu"); "" for no column. */
const char *host_col_name(enum host_col c);
/* A column's format. */
enum host_col_fmt host_col_fmt(enum host_col c);
/* True for a column holding one number the summaries read back (HF_PY, HF_PCT1,
 * HF_INT; a HF_HEX word is read as its flags). */
bool host_col_numeric(enum host_col c);
/* A value as its column holds it once written and read back (HF_PCT1 keeps one
 * decimal); NAN stays NAN. */
double host_col_logged(enum host_col c, double v);
/* The name of core i's column into buf ("cpu3_pct"). */
void host_core_col_name(char *buf, size_t cap, unsigned i);

/* A watch without reference columns (every watch but player and chromium) has four
 * columns, NAME followed by each suffix in this order, after vigil's columns, in the
 * order the watches were given. */
enum watch_col { WC_PROCS, WC_PSS_MB, WC_CPU_PCT, WC_THREADS, WC_COUNT };

/* A column's name suffix, "_procs" ... "_threads" (core/watch_values.c); "" for none. */
const char *watch_col_suffix(enum watch_col c);
/* A watch's value as its column holds it once written and read back (as
 * host_col_logged). */
double watch_col_logged(enum watch_col c, double v);

/* One such watch's values. */
struct host_row_watch {
        char name[32];
        double v[WC_COUNT];
};

struct host_row {
        int64_t real_ns;
        unsigned nwatch; /* entries of w[] */
        struct host_row_watch w[VIGIL_MAX_WATCHES];
        unsigned ncpu;
        double v[HC_COUNT]; /* the numeric columns' values */
        double cpu[VIGIL_MAX_CPUS];
        char governor[24];
        char throttle_flags[200];
};

/* Fill a row from the frame. NAN where the frame has no value. */
void host_row_build(struct host_row *r, const struct frame *f);

#endif
