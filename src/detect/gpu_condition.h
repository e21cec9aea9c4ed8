/* SPDX-License-Identifier: Apache-2.0 */
/* Conditions of a GPU's memory and PCIe link that hold while they last, read from the
 * sample's values (core/gpu_values.c), each said once per change in events.log
 * (detect/gpu_rules.c writes the lines; core/health_rules.c turns them into the
 * gpuN.memory and gpuN.pcie states):
 *
 *   memory  remap_failed        a row remapping failed (NVML_FI_DEV_REMAPPED_FAILURE):
 *                               replace the part
 *           remap_pending       a row remapping waits for a GPU reset
 *           retirement_pending  a page retirement waits for a GPU reset (GPUs without
 *                               row remapping: Kepler to Turing)
 *           ecc_mode_pending    the ECC mode changes at the next reset
 *           ok                  none of these
 *   pcie    degraded            the link runs narrower than its maximum (at any load), or
 *                               at a lower generation than its maximum while the GPU is
 *                               in P0: an idle GPU lowers its link speed to save power
 *                               (PCIe ASPM/link speed management; nvidia-smi -q shows
 *                               "Link Gen Current" below "Max" at idle), so a lower
 *                               generation is judged only under load and the last
 *                               judgement is kept meanwhile
 *           ok                  at its maximum
 * The worst memory condition is the one named. Missing values judge nothing. */
#ifndef VIGIL_DETECT_GPU_CONDITION_H
#define VIGIL_DETECT_GPU_CONDITION_H

#include <stdbool.h>

#include "core/frame.h"

enum gpu_memory_cond {
        GMC_OK,
        GMC_ECC_MODE_PENDING,
        GMC_RETIREMENT_PENDING,
        GMC_REMAP_PENDING,
        GMC_REMAP_FAILED,
};

/* The memory condition of sample g. */
enum gpu_memory_cond gpu_memory_condition(const struct gpu_frame *g);

/* Its state= word in events.log ("ok", "remap_failed", ...). */
const char *gpu_memory_cond_name(enum gpu_memory_cond c);

/* What the link judgement remembers between samples. */
struct gpu_link_judge {
        bool gen_low; /* the generation was below its maximum at the last P0 sample */
        bool narrow;  /* the width was below its maximum at the last sample that read both */
};

/* Whether the link of sample g is degraded; j (zeroed at start) keeps each judgement
 * across the samples that cannot make it (not in P0, a value missing). */
bool gpu_link_degraded(struct gpu_link_judge *j, const struct gpu_frame *g);

#endif
