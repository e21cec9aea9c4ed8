/* SPDX-License-Identifier: Apache-2.0 */
/* How many GPUs the machine should have, and how many answer.
 *
 * The expected count is the config key expected-gpus when given; else the count kept
 * in the run state file (core/runstate.h, gpus=N): the most GPUs NVML counted at any
 * start on this log directory, so a GPU that fell off the bus before a restart is
 * still missed after it; else, at the first start, the count NVML gives now. A machine
 * where NVML never counted a GPU (no NVIDIA driver, a Pi) expects none: no check.
 *
 * The GPUs answering are those NVML counts at this start (nvmlDeviceGetCount, every
 * GPU, whatever --gpu selects) less the sampled GPUs whose samples fail now (lost at
 * run time: Xid 79, NVML_ERROR_GPU_IS_LOST, or any failed sample until one succeeds).
 * With --gpu none NVML is not asked: nothing is known and nothing checked. Pure. */
#ifndef VIGIL_CORE_GPU_COUNT_H
#define VIGIL_CORE_GPU_COUNT_H

#include <stdbool.h>

#include "core/frame.h"

#define GPU_COUNT_AUTO (-1) /* expected-gpus not given: the remembered count */
#define GPU_COUNT_MAX  1024 /* the largest expected-gpus */

enum gpu_expect_from {
        GPU_EXPECT_NONE,   /* nothing expected: no GPU ever counted, or expected-gpus = 0 */
        GPU_EXPECT_CONFIG, /* expected-gpus */
        GPU_EXPECT_STATE,  /* the count the state file remembers */
        GPU_EXPECT_NOW,    /* the first start: the count NVML gives now */
};

struct gpu_expect {
        enum gpu_expect_from from;
        unsigned expected; /* 0 with GPU_EXPECT_NONE */
};

/* "none", "config", "state", "first-start": the from= of events.log. */
const char *gpu_expect_from_name(enum gpu_expect_from from);

/* What to expect: config is expected-gpus (GPU_COUNT_AUTO when not given), remembered
 * the state file's count (known false when it has none), seen NVML's count at this
 * start (-1 when NVML was not asked: --gpu none; 0 when it is absent or failed). */
struct gpu_expect gpu_count_expect(int config, bool known, unsigned remembered, int seen);

/* The count to keep in the state file: the larger of remembered and seen. *ret_known
 * says whether there is one (false while NVML never counted a GPU). */
unsigned gpu_count_remember(bool known, unsigned remembered, int seen, bool *ret_known);

/* The GPUs answering now: counted, NVML's count at start, less f's present GPUs in a
 * failure streak (consecutive_failures > 0). Never below 0. */
unsigned gpu_count_answering(unsigned counted, const struct frame *f);

/* The state of the check between samples: whether GPUs are missing now. */
struct gpu_count_state {
        bool started; /* a first answering count was taken */
        bool missing; /* fewer answer than expected */
};

enum gpu_count_change {
        GPU_COUNT_SAME,    /* nothing to say */
        GPU_COUNT_MISSING, /* fewer answer than expected (now, or from the start) */
        GPU_COUNT_BACK,    /* as many as expected answer again */
};

/* Take answering against e; the change to log, if any. A first count that is short is
 * MISSING; one that is whole is SAME. */
enum gpu_count_change gpu_count_step(struct gpu_count_state *st, const struct gpu_expect *e,
                                     unsigned answering);

#endif
