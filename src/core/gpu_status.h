/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU rules' statistics (struct gpu_stats) as the reference logger's text: the
 * SIGUSR1 status line (`vigil status`, the exit summary) and the summary.log line. */
#ifndef VIGIL_CORE_GPU_STATUS_H
#define VIGIL_CORE_GPU_STATUS_H

#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

/* Append the reference's SIGUSR1 line for one GPU (no newline):
 * "Status: 1h5m | 39000 samples | 2 spk | 0 crash | pwr 74 (+3/5m) | inv 0 (+0/5m) |
 *  spur 0 (+0/5m) | tdp_chg 1 | peak: 71C/412W". uptime_s: seconds since start. */
void gpu_status_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s);

/* Append one summary.log line (with '\n') for GPU index: real_ns the wall time, window_s
 * the seconds the period counters cover (at least 1 is used). */
void gpu_summary_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s,
                      double window_s, int64_t real_ns, unsigned index);

#endif
