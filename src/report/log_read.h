/* SPDX-License-Identifier: Apache-2.0 */
/* One of vigil's logs read back for `vigil report`: its header says whether it is a
 * host or a GPU log and where each column the summaries read stands, found by the
 * writers' own names (core/host_row.h, core/gpu_values.c); each row then becomes
 * the summaries' row (struct host_acc_row, struct gpu_row). The logs start with
 *   timestamp,uptime_s,cpu_total_pct,cpu0_pct,...,throttled_raw,throttle_flags
 *   timestamp,gpu_temp,gpu_tlimit,power_instant,...,sensor0_controller,flags */
#ifndef VIGIL_REPORT_LOG_READ_H
#define VIGIL_REPORT_LOG_READ_H

#include <stdbool.h>

#include "core/host_acc.h"
#include "core/watch_acc.h"
#include "report/csv_read.h"
#include "report/gpu_acc.h"
#include "report/report_data.h"
#include "report/tstamp.h"

/* Column positions of one file's header (-1: absent). */
struct log_map {
        enum report_kind kind;
        unsigned nfields;
        int host[HC_COUNT];
        int throttle_flags;
        int gpu[GPU_F_COUNT];
        int fan_speed[GPU_ACC_MAX_FANS], fan_target[GPU_ACC_MAX_FANS];
        unsigned nfans;
        int reasons, flags;
        unsigned nwatch; /* watches with columns of their own (host) */
        int wslot[WATCH_ACC_MAX], wcol[WATCH_ACC_MAX][WC_COUNT];
};

/* What a row's strings are copied into, kept by the caller across the rows of a file
 * (zero it first). The strings of a row read are valid until the next row. */
struct log_row_ctx {
        struct tstamp_cache tc;
        char ts[48];
        char text1[512], text2[512];
};

/* Recognise a vigil log by its header, the record r holds. 0 or -EBADMSG. */
int log_map_header(const struct csv_reader *r, struct log_map *m);

/* The columns of the watches that have their own (NAME_procs, then NAME_pss_mb,
 * NAME_cpu_pct, NAME_threads anywhere) in a host log's header, each given its slot in a
 * (m->nwatch of them; a watch a cannot take is left out). */
void log_map_watches(const struct csv_reader *r, struct log_map *m, struct watch_acc *a);

/* True when the GPU row r holds is a failure row ("NVML_FAILED:<error>"). */
bool log_is_failure_row(const struct csv_reader *r, const struct log_map *m);

/* The time of the row r holds, in Unix seconds; false (and r->skipped counted) when the
 * row is damaged (wrong width, bad time stamp). The time stamp as logged is c->ts. */
bool log_row_time(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c, double *t);

/* The host row r holds as the summary's row, and each watch's values (wv[0..m->nwatch),
 * NAN when missing). false when the row is damaged. */
bool log_host_row(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c,
                  struct host_acc_row *row, double wv[WATCH_ACC_MAX][WC_COUNT]);

/* The GPU row r holds as the summary's row (row->failure set for a failure row, its
 * values then unset). false when the row is damaged. */
bool log_gpu_row(struct csv_reader *r, const struct log_map *m, struct log_row_ctx *c,
                 struct gpu_row *row);

#endif
