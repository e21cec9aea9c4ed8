/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU anomaly rules: the reference logger's flags, thresholds, warm-up counts, flag
 * texts and order, and its log lines, sample by sample; plus the per-GPU counters
 * (frame->gpu_stats[]) that summary.log, status, snapshots and /metrics read.
 *
 * Where the reference is wrong, the rules do the right thing: a failed sample runs no
 * rule (no false TDP_REDUCED(0W) or FAN_SPIKE from a row of zeros), a missing reading
 * is not a zero (a failed power-limit read is no TDP change; a GPU without fan readings
 * shows no fan/temperature inversion). */
#ifndef VIGIL_DETECT_GPU_RULES_H
#define VIGIL_DETECT_GPU_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "detect/gpu_condition.h"
#include "util/log.h"

#define GPU_RULES_MAX_LINES 8
#define GPU_RULES_LINE      256

/* The lines one sample produced, for the caller to write. */
struct gpu_rules_out {
        unsigned counted; /* bit (1 << enum gpu_anomaly) per anomaly counted this sample */
        unsigned nlog, nevent;
        enum log_level level[GPU_RULES_MAX_LINES];
        char log[GPU_RULES_MAX_LINES][GPU_RULES_LINE];   /* stderr, without "vigil: gpuN: " */
        char event[GPU_RULES_MAX_LINES][GPU_RULES_LINE]; /* events.log, after the timestamp */
};

/* What the rules remember about one GPU between its samples. */
struct gpu_rule_state {
        double prev_fan[VIGIL_MAX_FANS];     /* NAN until read */
        double prev_limit_w;                 /* NAN until read */
        double prev_enforced_w;              /* NAN until read */
        double enforced_base_w;              /* the configured limit when the enforced one
                                              * last changed or was first read; NAN until */
        uint64_t prev_throttle;              /* the reference starts from 0 */
        unsigned prev_failures;              /* consecutive failures before this sample */
        bool over_max;                       /* above its GPU_MAX threshold (said once) */
        enum gpu_memory_cond memory;         /* the memory condition last said (GMC_OK) */
        struct gpu_link_judge link;          /* the PCIe link's judgement */
        bool link_degraded;                  /* the link state last said */
        struct ratelimit rl[GPU_ANOM_COUNT]; /* anomaly lines: once per 60 s per type */
};

struct gpu_rules {
        const struct vigil_options *opt;
        struct gpu_rule_state gpu[VIGIL_MAX_GPUS];
};

/* Set up rules with the thresholds of opt (kept by pointer) for GPU slots [0, n) and
 * reset stats[0..n); no other slot is touched (or may be stepped). */
void gpu_rules_init(struct gpu_rules *r, const struct vigil_options *opt, struct gpu_stats *stats,
                    unsigned n);

/* Run one sample of GPU slot through the rules: on an answered sample, write its flags
 * into g->flags and count; on a failed one, count the failure. stats is the slot's
 * counters; mono_ns the sample time (rate limits); out receives the lines to log. */
void gpu_rules_step(struct gpu_rules *r, unsigned slot, struct gpu_frame *g,
                    struct gpu_stats *stats, int64_t mono_ns, struct gpu_rules_out *out);

/* The counters of GPU slot (read-only), or NULL past the GPUs sampled. */
const struct gpu_stats *gpu_rules_stats(const struct frame *f, unsigned slot);

/* Count a critical event (an Xid, a GPU recovery action) of GPU slot as a crash, as
 * the reference's event listener does. Main thread. */
void gpu_rules_note_crash(struct frame *f, unsigned slot);

/* The detector (registered in core/registry.c): the rules on the GPU clock, their
 * counters in frame->gpu_stats[] (anomalies by type, seconds per clock-event reason,
 * NVML failures: /metrics renders them from there), their lines to stderr and
 * events.log. */
extern const struct vigil_detector vigil_detector_gpu_rules;

#endif
