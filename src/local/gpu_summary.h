/* SPDX-License-Identifier: Apache-2.0 */
/* summary.log: the reference logger's per-GPU totals and per-window rates, one line per
 * GPU every 5 minutes, the first 5 minutes after start (lines: core/gpu_status.h).
 *
 *   2026-03-14T10:05:00.123456 | 0h5m | window=300s | samples=3000 (+3000) spikes=2
 *   crashes=0 pwr_breaches=74 (rate=14.8/min) fan_inversions=0 (rate=0.0/min)
 *   spurious_throttles=0 (rate=0.0/min) tdp_changes=1 (period=1) peak_temp=71C
 *   peak_power=412W gpu=0                                        (one line in the file) */
#ifndef VIGIL_LOCAL_GPU_SUMMARY_H
#define VIGIL_LOCAL_GPU_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "core/gpu_status.h"
#include "util/strbuf.h"

#define SUMMARY_INTERVAL_NS (300LL * 1000000000LL) /* SUMMARY_INTERVAL_SEC */
#define SUMMARY_MAX_BYTES   (10ULL * 1024 * 1024)  /* rotated to summary.log.1 past this */

/* Append text to DIR/summary.log in one write, first renaming it to summary.log.1 when
 * it is larger than max_bytes. 0 or -errno. */
int summary_append(const char *dir, const char *text, size_t len, uint64_t max_bytes);

#endif
