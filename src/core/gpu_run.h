/* SPDX-License-Identifier: Apache-2.0 */
/* The exit summary's part for a GPU server: per GPU, what the run saw of it, from the
 * daemon's own values and counters (the Pi monitor's leak rows mean nothing there):
 *
 *   GPUs over this run (min / avg / max of the samples):
 *   gpu0: NVIDIA H100 80GB HBM3, 600 samples, 0 failed
 *     temperature      min     75.0C   avg     84.1C   max     91.0C   (max operating 87C)
 *     power            min    300.0W   avg    300.0W   max    300.0W   (limit 700W, enforced 350W)
 *     graphics clock   min     1755MHz   avg     1755MHz   max     1755MHz
 *     clock events     SwPowerCap 98.0% of the time
 *     Xids             79 x1
 *     anomalies        over_max_temperature 23
 *
 * Fed at every GPU sample; costs three additions per GPU. */
#ifndef VIGIL_CORE_GPU_RUN_H
#define VIGIL_CORE_GPU_RUN_H

#include "core/counters.h"
#include "core/frame.h"
#include "util/stats.h"
#include "util/strbuf.h"

struct gpu_run {
        struct stat_acc temp_c[VIGIL_MAX_GPUS], power_w[VIGIL_MAX_GPUS];
        struct stat_acc clock_mhz[VIGIL_MAX_GPUS];
};

/* Start empty. */
void gpu_run_init(struct gpu_run *r);

/* Add the values of every GPU of f answered in this sample (sampled and ok). */
void gpu_run_add(struct gpu_run *r, const struct frame *f);

/* True for a GPU server: GPUs present and no Raspberry Pi. */
bool gpu_run_is_gpu_server(const struct frame *f);

/* Append the block above for every present GPU of f: the accumulated values, the
 * frame's last thresholds and limits, its rules' statistics (gpu_stats: samples,
 * anomalies, seconds of each clock-event reason over up_s seconds) and the counters'
 * Xids (x may be NULL). Nothing without a present GPU. */
void gpu_run_text(const struct gpu_run *r, const struct frame *f, const struct counters *x,
                  double up_s, struct strbuf *out);

#endif
