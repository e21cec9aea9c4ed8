/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct watch_frame (core/frame.h), one row each, in member order; the
 * slots are core/host_values.c's. /metrics has one series per watch, labelled
 * watch="name"; history slots are enum hist_watch (core/history.h). A value's host-log
 * columns (HCELL_WATCH): its own, NAME suffix, for every watch without reference
 * columns, and the reference monitor's column for the watch it names (player,
 * chromium). */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/history.h"

#define WATCH_MEMBER(m) FIELD_MEMBER(struct watch_frame, m)

const struct field_desc watch_fields[] = {
    {WATCH_MEMBER(name), .kind = FK_KEEP},
    /* matching processes */
    {WATCH_MEMBER(count), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_INT,
                  .wcol = WC_PROCS,
                  .suffix = "_procs",
                  .rule = WR_ANY,
                  .col = HC_CHROMIUM_PROCS,
                  .name = "chromium_procs",
                  .watch = "chromium",
                  .ref_rule = WR_ANY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_processes",
                .type = "gauge",
                .help = "Processes matching the watch.",
                .scale = 1},
     .hist = {.id = HW_PROCS, .reduce = HIST_max}},
    /* total PSS, from the slower PSS cadence */
    {WATCH_MEMBER(pss_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB,
                  .wcol = WC_PSS_MB,
                  .suffix = "_pss_mb",
                  .rule = WR_SUM,
                  .col = HC_CHROMIUM_PSS,
                  .name = "chromium_pss_mb",
                  .watch = "chromium",
                  .ref_rule = WR_SUM},
     .metric = {.row = MR_SERIES,
                .name = "vigil_process_pss_bytes",
                .type = "gauge",
                .help = "Total proportional set size of the matching processes.",
                .scale = 1},
     .hist = {.id = HW_PSS_BYTES, .reduce = HIST_max}},
    /* PSS of the lowest-pid match (the reference's "player") */
    {WATCH_MEMBER(first_pss_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB,
                  .col = HC_PLAYER_PSS,
                  .name = "player_pss_mb",
                  .watch = "player",
                  .ref_rule = WR_RUNNING},
     .metric = {.row = MR_SERIES,
                .name = "vigil_process_first_pss_bytes",
                .type = "gauge",
                .help = "Proportional set size of the matching process with the lowest pid.",
                .scale = 1}},
    /* sum over matches since the previous sample (100 = one core) */
    {WATCH_MEMBER(cpu_pct), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_PCT1,
                  .wcol = WC_CPU_PCT,
                  .suffix = "_cpu_pct",
                  .rule = WR_ANY,
                  .col = HC_PLAYER_CPU,
                  .name = "player_cpu_pct",
                  .watch = "player",
                  .ref_rule = WR_RUNNING},
     .metric = {.row = MR_SERIES,
                .name = "vigil_process_cpu_usage_ratio",
                .type = "gauge",
                .help = "CPU used by the matching processes over the last interval (1 = one "
                        "core).",
                .scale = 0.01}},
    /* total threads */
    {WATCH_MEMBER(threads), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_INT,
                  .wcol = WC_THREADS,
                  .suffix = "_threads",
                  .rule = WR_ANY,
                  .col = HC_PLAYER_THREADS,
                  .name = "player_threads",
                  .watch = "player",
                  .ref_rule = WR_RUNNING},
     .metric = {.row = MR_SERIES,
                .name = "vigil_process_threads",
                .type = "gauge",
                .help = "Threads of the matching processes.",
                .scale = 1}},
    /* age of the oldest match */
    {WATCH_MEMBER(oldest_age_s), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_WATCH,
                  .fmt = HF_PY,
                  .col = HC_UPTIME,
                  .name = "uptime_s",
                  .watch = "player",
                  .ref_rule = WR_RUNNING},
     .metric = {.row = MR_SERIES,
                .name = "vigil_process_oldest_age_seconds",
                .type = "gauge",
                .help = "Age of the oldest matching process.",
                .scale = 1}},
};

const size_t watch_fields_count = sizeof(watch_fields) / sizeof(watch_fields[0]);
