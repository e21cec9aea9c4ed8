/* SPDX-License-Identifier: Apache-2.0 */
/* NVLink and fabric rules (detect/nvlink_rules.c): the detector vigil_detector_nvlink and
 * its per-GPU step, which the unit tests drive on frames of their own. */
#ifndef VIGIL_DETECT_NVLINK_RULES_H
#define VIGIL_DETECT_NVLINK_RULES_H

#include <stdint.h>

#include "core/event_kinds.h"
#include "core/frame.h"
#include "core/vigil.h"

/* A rising counter's lines for one link come at most this often; the rise between is
 * summed into the next line's delta. */
#define NVLINK_LINE_GAP_NS (60 * 1000000000LL)
/* A fabric probe not completed this long after boot (the host's uptime) is stuck: the
 * fabric manager registers the GPUs within a minute or two of its start. */
#define FABRIC_GRACE_S 300.0

enum fabric_verdict { FV_NONE, FV_WAITING, FV_INCOMPLETE, FV_FAILED, FV_COMPLETED };

/* What the rules remember of one GPU between its samples. */
struct nvlink_watch {
        double up[VIGIL_MAX_NVLINKS];                    /* last state seen; NAN none */
        bool down[VIGIL_MAX_NVLINKS];                    /* a down line was written */
        double base[VIGIL_MAX_NVLINKS][NVLINK_COUNTERS]; /* value at the last line */
        int64_t last_line_ns[VIGIL_MAX_NVLINKS];         /* 0: none yet */
        enum fabric_verdict fabric;
        char faults[96]; /* the health faults last written ("" none) */
};

/* Where a step's lines go: kind and the text after type= (" gpu=0 link=3 ..."). */
typedef void (*nvlink_emit_fn)(void *arg, enum event_kind kind, const char *text);

/* A fresh watch: nothing seen. */
void nvlink_watch_init(struct nvlink_watch *w);

/* One sample of GPU g: compare its NVLink and fabric values with what w remembers and
 * emit a line per change (NVLINK: state=down for a link that was up, state=up when it
 * is back, state=errors with counter, delta and total for a counter that rose, at most
 * one per link per NVLINK_LINE_GAP_NS; FABRIC: state=incomplete for a probe not
 * completed FABRIC_GRACE_S after boot, state=failed for one completed with an error,
 * state=completed when it is done after either, state=degraded with the health faults,
 * state=healthy when they clear). The first value seen of a counter is its baseline; a
 * counter that falls (a driver reload) starts a new one. uptime_s: the host's (NAN
 * unknown: the probe is then judged by mono_ns since the first sample). */
void nvlink_watch_step(struct nvlink_watch *w, const struct gpu_frame *g, double uptime_s,
                       int64_t mono_ns, nvlink_emit_fn emit, void *arg);

extern const struct vigil_detector vigil_detector_nvlink;

#endif
