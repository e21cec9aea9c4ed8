/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct host_frame (core/frame.h), one row each, in member order, and all
 * that vigil's outputs know of it (the slots are core/fields.h's):
 *
 *   .kind: what "missing" is for it; lists (temps[]) are zero past their count, which
 *          clearing sets to 0.
 *   .host_csv: its column of the host log (enum host_col in core/host_row.h is the
 *          log's column order; the host, the Pi, the watches and storage all have
 *          columns in it).
 *   .metric: its /metrics family or series; families are exposed in the order of this
 *          table (core/metric_defs.h). An FK_NONE row carries a family of several
 *          members at its place.
 *   .hist: how the dashboard's history keeps it (enum hist_host, core/history.h).
 *
 * A new value: its member in struct host_frame, a row here. test_fields fails for a
 * member without a row, test_field_coverage for a value no output renders. */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/history.h"

#define HOST_MEMBER(m) FIELD_MEMBER(struct host_frame, m)

const struct field_desc host_fields[] = {
    /* wall time of the host sample */
    {HOST_MEMBER(sampled_real_ns), .kind = FK_ZERO,
     .host_csv = {.cell = HCELL_TIME, .col = HC_TIMESTAMP, .name = "timestamp"}},
    /* cores seen in /proc/stat (cpuN lines) */
    {HOST_MEMBER(ncpu), .kind = FK_ZERO},
    /* 0..100 over the last interval */
    {HOST_MEMBER(cpu_total_pct), .kind = FK_DOUBLE,
     .host_csv =
         {.cell = HCELL_VALUE, .col = HC_CPU_TOTAL, .name = "cpu_total_pct", .fmt = HF_PCT1},
     .metric = {.row = MR_CODE,
                .member = "cpu_total_pct cpu_pct",
                .name = "vigil_cpu_usage_ratio",
                .type = "gauge",
                .help = "Share of the last host interval the CPU was busy, 0-1 (cpu=\"all\": every "
                        "core).",
                .code = MC_HOST_CPU_USAGE},
     .hist = {.id = HH_CPU_PCT, .reduce = HIST_max}},
    {HOST_MEMBER(cpu_pct), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_CORES,
                  .col = HC_CPUS,
                  .name = "cpu",
                  .suffix = "_pct",
                  .count_off = offsetof(struct host_frame, ncpu)}},
    {HOST_MEMBER(load1), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE, .col = HC_LOAD1, .name = "load1", .fmt = HF_PY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_load1",
                .type = "gauge",
                .help = "1-minute load average.",
                .scale = 1}},
    {HOST_MEMBER(load5), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE, .col = HC_LOAD5, .name = "load5", .fmt = HF_PY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_load5",
                .type = "gauge",
                .help = "5-minute load average.",
                .scale = 1}},
    {HOST_MEMBER(load15), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE, .col = HC_LOAD15, .name = "load15", .fmt = HF_PY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_load15",
                .type = "gauge",
                .help = "15-minute load average.",
                .scale = 1}},
    {HOST_MEMBER(mem_total_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_MEM_TOTAL,
                  .name = "mem_total_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_memory_total_bytes",
                .type = "gauge",
                .help = "Total usable memory (MemTotal).",
                .scale = 1}},
    {HOST_MEMBER(mem_avail_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_MEM_AVAIL,
                  .name = "mem_avail_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_memory_available_bytes",
                .type = "gauge",
                .help = "Memory available for new work (MemAvailable).",
                .scale = 1},
     .hist = {.id = HH_MEM_AVAIL_BYTES, .reduce = HIST_min}},
    /* used = total - available */
    {HOST_MEMBER(mem_used_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_MEM_USED,
                  .name = "mem_used_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_memory_used_bytes",
                .type = "gauge",
                .help = "Memory in use: total minus available.",
                .scale = 1}},
    {HOST_MEMBER(swap_total_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_swap_total_bytes",
                .type = "gauge",
                .help = "Total swap space.",
                .scale = 1}},
    {HOST_MEMBER(swap_free_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_swap_free_bytes",
                .type = "gauge",
                .help = "Unused swap space.",
                .scale = 1}},
    {.name = "(swap used)",
     .kind = FK_NONE,
     .metric = {.row = MR_CODE,
                .member = "swap_total_bytes swap_free_bytes",
                .name = "vigil_swap_used_bytes",
                .type = "gauge",
                .help = "Swap space in use: total minus free.",
                .code = MC_HOST_SWAP_USED}},
    /* Dirty + Writeback: the file data not yet on disk, for the logs' sync round
     * (util/fssync.h, daemon/daemon.c note_unwritten); no output. */
    {HOST_MEMBER(unwritten_bytes), .kind = FK_DOUBLE},
    /* statvfs(/dev/shm) */
    {HOST_MEMBER(shm_total_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_SHM_TOTAL,
                  .name = "shm_total_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_shm_size_bytes",
                .type = "gauge",
                .help = "Size of the /dev/shm file system.",
                .scale = 1}},
    {HOST_MEMBER(shm_used_bytes), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_SHM_USED,
                  .name = "shm_used_mb",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MB},
     .metric = {.row = MR_SERIES,
                .name = "vigil_shm_used_bytes",
                .type = "gauge",
                .help = "Space used in /dev/shm.",
                .scale = 1},
     .hist = {.id = HH_SHM_USED_BYTES, .reduce = HIST_max}},
    {HOST_MEMBER(shm_avail_bytes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_shm_available_bytes",
                .type = "gauge",
                .help = "Space available in /dev/shm.",
                .scale = 1}},
    /* cpu0 scaling_max_freq */
    {HOST_MEMBER(cpu_max_freq_hz), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_cpu_max_frequency_hertz",
                .type = "gauge",
                .help = "Highest frequency the kernel may request (cpu0).",
                .scale = 1}},
    /* system uptime */
    {HOST_MEMBER(uptime_s), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_uptime_seconds",
                .type = "gauge",
                .help = "Time since the system booted.",
                .scale = 1}},
    {HOST_MEMBER(nfreq), .kind = FK_ZERO},
    /* scaling_cur_freq (the kernel's request) */
    {HOST_MEMBER(cpu_freq_hz), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_AT,
                  .col = HC_ARM_CFG,
                  .name = "arm_cur_mhz_cfg",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MHZ,
                  .index = 0,
                  .count_off = offsetof(struct host_frame, nfreq)},
     .metric = {.row = MR_CODE,
                .name = "vigil_cpu_frequency_hertz",
                .type = "gauge",
                .help = "Frequency the kernel requests for the core (scaling_cur_freq).",
                .code = MC_HOST_CPU_FREQUENCY}},
    {HOST_MEMBER(ntemps), .kind = FK_ZERO},
    /* entries 0..ntemps-1 */
    {HOST_MEMBER(temps), .kind = FK_ZERO,
     .metric = {.row = MR_CODE,
                .name = "vigil_temperature_celsius",
                .type = "gauge",
                .help = "Temperature of a hwmon sensor or thermal zone.",
                .code = MC_HOST_TEMPERATURE}},
    /* the main CPU/SoC temperature, from temps[] */
    {HOST_MEMBER(temp_c), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE, .col = HC_TEMP, .name = "temp_c", .fmt = HF_PY},
     .hist = {.id = HH_TEMP_C, .reduce = HIST_max}},
    /* cpu0 scaling_governor */
    {HOST_MEMBER(governor), .kind = FK_STRING,
     .host_csv = {.cell = HCELL_TEXT,
                  .col = HC_GOVERNOR,
                  .name = "governor",
                  .text = offsetof(struct host_row, governor),
                  .text_size = sizeof(((struct host_row *)0)->governor)},
     .metric = {.row = MR_CODE,
                .name = "vigil_cpu_governor_info",
                .type = "gauge",
                .help = "The cpufreq governor of cpu0.",
                .code = MC_HOST_GOVERNOR}},
};

const size_t host_fields_count = sizeof(host_fields) / sizeof(host_fields[0]);
