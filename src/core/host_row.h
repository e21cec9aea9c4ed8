/* The host row: the reference Pi monitor's columns computed once per host tick from
 * the frame, shared by the host CSV, the live view and the exit summary. */
#ifndef VIGIL_CORE_HOST_ROW_H
#define VIGIL_CORE_HOST_ROW_H

#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

/* Numeric columns, in CSV order (cpuN_pct, governor and throttle_flags sit between). */
enum host_col {
        HC_UPTIME,    /* uptime_s: age of the oldest "player" process */
        HC_CPU_TOTAL, /* cpu_total_pct */
        HC_LOAD1,
        HC_LOAD5,
        HC_LOAD15,
        HC_TEMP, /* temp_c */
        HC_VOLT, /* volt_core_v */
        HC_ARM,  /* arm_mhz (measured) */
        HC_CORE,
        HC_V3D,
        HC_PIXEL,
        HC_H264,
        HC_ARM_CFG,  /* arm_cur_mhz_cfg: cpufreq's request for cpu0 */
        HC_MEM_USED, /* MB = bytes / 2^20 */
        HC_MEM_AVAIL,
        HC_SHM_USED,
        HC_PLAYER_PSS,
        HC_PLAYER_CPU,
        HC_PLAYER_THREADS,
        HC_CHROMIUM_PROCS,
        HC_CHROMIUM_PSS,
        HC_THROTTLED, /* the raw word; written as 0x50000 */
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

/* The header's name of a numeric column ("uptime_s", "cpu_total_pct", ...). */
const char *host_col_name(enum host_col c);

/* The header's names of the other columns: the time stamp (first), one per core
 * (HOST_COL_CPU_FMT with the core's number, after cpu_total_pct), cpu0's governor
 * (after h264_mhz) and the throttle flags (after throttled_raw). */
#define HOST_COL_TIMESTAMP      "timestamp"
#define HOST_COL_CPU_FMT        "cpu%u_pct"
#define HOST_COL_GOVERNOR       "governor"
#define HOST_COL_THROTTLE_FLAGS "throttle_flags"

/* A watch other than player and chromium has four columns, NAME followed by each
 * suffix in this order, after vigil's columns, in the order the watches were given. */
enum watch_col { WC_PROCS, WC_PSS_MB, WC_CPU_PCT, WC_THREADS, WC_COUNT };

/* The column name suffixes, "_procs" ... "_threads". */
extern const char *const watch_col_suffix[WC_COUNT];

/* One such watch's values. */
struct host_row_watch {
        char name[32];
        double procs, pss_mb, cpu_pct, threads;
};

struct host_row {
        int64_t real_ns;
        unsigned nwatch; /* entries of w[] */
        struct host_row_watch w[VIGIL_MAX_WATCHES];
        unsigned ncpu;
        double v[HC_COUNT];
        double cpu[VIGIL_MAX_CPUS];
        char governor[24];
        char throttle_flags[200];
};

/* Fill a row from the frame. NAN where the frame has no value. */
void host_row_build(struct host_row *r, const struct frame *f);
/* The CSV header for ncpu cores and r's watches, ending with '\n'. */
void host_row_header(struct strbuf *out, unsigned ncpu, const struct host_row *r);
/* One CSV row for ncpu cores (the file's header width), ending with '\n'. */
void host_row_csv(struct strbuf *out, const struct host_row *r, unsigned ncpu);

#endif
