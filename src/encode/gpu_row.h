/* SPDX-License-Identifier: Apache-2.0 */
/* One GPU's CSV row (gpuN-YYYY-MM-DD.csv): the reference logger's columns, in its order
 * and formats, then vigil's additions. Missing values are empty cells (the reference
 * writes zeros).
 *
 *   timestamp,gpu_temp,gpu_tlimit,power_instant,power_limit,pstate,gpu_clock,mem_clock,
 *   gpu_util,mem_util,vram_used_mb,pcie_gen,pcie_width,throttle_bitmask,throttle_reasons,
 *   fan0_speed_pct,fan0_target_pct,...,sensor0_temp,sensor0_target,sensor0_controller,
 *   flags,sm_clock,video_clock,power_enforced_limit,energy_j,vram_total_mb,pcie_replay,
 *   ecc_corrected,ecc_uncorrected,remapped_correctable,remapped_uncorrectable,
 *   remap_pending,remap_failure,vram_reserved_mb (vram_used_mb is NVML v1 `used`:
 *   reserved memory included, as the reference wrote it)
 *
 * The columns are core/gpu_values.c's csv slots, written by encode/gpu_columns.c (the
 * flight recorder's dump shares it). A failed sample is the reference's failure row:
 * the timestamp, empty cells, and "NVML_FAILED:<error, at most 80 characters>" in the
 * flags column. */
#ifndef VIGIL_ENCODE_GPU_ROW_H
#define VIGIL_ENCODE_GPU_ROW_H

#include "core/frame.h"
#include "util/fmt.h"
#include "util/strbuf.h"

/* Columns of a file with nfans fans. */
unsigned gpu_row_columns(unsigned nfans);
/* Append the header line (with '\n') for nfans fans. */
void gpu_row_header(struct strbuf *sb, unsigned nfans);
/* Append g's row (with '\n') with nfans fan column pairs: fans beyond g->nfans are
 * empty, fans beyond nfans are left out (the header is fixed per file). ts_cache, kept
 * by the caller across rows (or NULL), saves formatting the timestamp's second again
 * (see fmt_time_gpu_cached); the row is the same with or without it. */
void gpu_row_csv(struct strbuf *sb, const struct gpu_frame *g, unsigned nfans,
                 struct fmt_sec_cache *ts_cache);

#endif
