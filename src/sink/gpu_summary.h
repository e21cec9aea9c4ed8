/* summary.log and the status line: the reference logger's per-GPU totals and
 * per-window rates, one line per GPU every 5 minutes, the first 5 minutes after start.
 *
 *   2026-03-14T10:05:00.123456 | 0h5m | window=300s | samples=3000 (+3000) spikes=2
 *   crashes=0 pwr_breaches=74 (rate=14.8/min) fan_inversions=0 (rate=0.0/min)
 *   spurious_throttles=0 (rate=0.0/min) tdp_changes=1 (period=1) peak_temp=71C
 *   peak_power=412W gpu=0                                        (one line in the file) */
#ifndef VIGIL_SINK_GPU_SUMMARY_H
#define VIGIL_SINK_GPU_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

#define SUMMARY_INTERVAL_NS (300LL * 1000000000LL) /* SUMMARY_INTERVAL_SEC */
#define SUMMARY_MAX_BYTES   (10ULL * 1024 * 1024)  /* rotated to summary.log.1 past this */

/* Append the reference's SIGUSR1 line for one GPU (no newline):
 * "Status: 1h5m | 39000 samples | 2 spk | 0 crash | pwr 74 (+3/5m) | inv 0 (+0/5m) |
 *  spur 0 (+0/5m) | tdp_chg 1 | peak: 71C/412W". uptime_s: seconds since start. */
void gpu_status_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s);

/* Append one summary.log line (with '\n') for GPU index: real_ns the wall time, window_s
 * the seconds the period counters cover (at least 1 is used). */
void gpu_summary_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s,
                      double window_s, int64_t real_ns, unsigned index);

/* Append text to DIR/summary.log in one write, first renaming it to summary.log.1 when
 * it is larger than max_bytes. 0 or -errno. */
int summary_append(const char *dir, const char *text, size_t len, uint64_t max_bytes);

#endif
