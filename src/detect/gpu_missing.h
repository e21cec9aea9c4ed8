/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU-count check (detect/gpu_missing.c, core/gpu_count.h): the detector
 * vigil_detector_gpu_missing, and what it and the run state share. */
#ifndef VIGIL_DETECT_GPU_MISSING_H
#define VIGIL_DETECT_GPU_MISSING_H

#include "core/vigil.h"

/* NVML's GPU count at this start (every GPU, whatever --gpu selects): -1 when NVML was
 * not asked (--gpu none), 0 when the library is absent or failed. Call after the
 * sources' init (the NVML source sets ctx->nvml). */
int gpu_missing_seen(const struct vigil_ctx *ctx);

#endif
