/* SPDX-License-Identifier: Apache-2.0 */
/* The live view's GPU lines: one per GPU under the host line, with the worst values
 * seen since the previous line (the GPU is sampled several times per host line):
 *   gpu0   88C  412/600W   2400MHz  fans 40% 40%  SwPowerCap  TEMP_FAN_INV(88C@40%)
 * (highest temperature and power, lowest graphics clock, every throttle reason and flag
 * seen, the last fan speeds). */
#ifndef VIGIL_LOCAL_LIVE_GPU_H
#define VIGIL_LOCAL_LIVE_GPU_H

#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

struct live_gpu_worst {
        unsigned samples, failures;
        double temp_c, power_w, limit_w, clock_mhz; /* max, max, last, min */
        double enforced_w;                          /* last: the enforced power limit */
        double temp_max_c;                          /* last: the GPU_MAX threshold */
        unsigned nfans;
        double fan_pct[VIGIL_MAX_FANS]; /* last */
        uint64_t throttle;              /* every reason bit seen */
        char flags[256];                /* every flag kind seen, '|'-joined */
        char error[96];                 /* the last failure */
};

struct live_gpu {
        struct live_gpu_worst gpu[VIGIL_MAX_GPUS];
};

/* Start empty. */
void live_gpu_reset(struct live_gpu *lg);
/* Fold the GPUs sampled this tick into the worst values. */
void live_gpu_feed(struct live_gpu *lg, const struct frame *f);
/* The power cell: "412/600W" (the draw of the limit the GPU runs under: the enforced
 * one when read, else the configured one), then " (limit 700W)" when the enforced
 * limit is below the configured one (an out-of-band cap, NVML's "all limiters");
 * "--" for a value not read. width: the draw's. */
void live_gpu_power(struct strbuf *sb, const struct live_gpu_worst *w, int width);

/* " TEMP_OVER_MAX(92C>87C)" when the hottest reading is above the GPU's own maximum
 * operating temperature (its GPU_MAX threshold); nothing otherwise. */
void live_gpu_over_max(struct strbuf *sb, const struct live_gpu_worst *w);

/* Append one line per GPU (each with '\n') and start a new window. */
void live_gpu_lines(struct live_gpu *lg, const struct frame *f, struct strbuf *sb);

#endif
