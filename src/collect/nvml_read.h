/* SPDX-License-Identifier: Apache-2.0 */
/* Reading one GPU through the NVML function table: the per-sample values and the
 * identity and static thresholds read at (re)initialisation. Pure with respect to the
 * process: no logging, no allocation, no state but the GPU's own (struct nvml_gpu), so
 * it runs on a fake function table in the unit tests. */
#ifndef VIGIL_COLLECT_NVML_READ_H
#define VIGIL_COLLECT_NVML_READ_H

#include <stdbool.h>

#include "collect/nvml_lib.h"
#include "core/frame.h"

/* One bit per call in nvml_gpu.unsupported. */
enum nvml_field {
        NF_TEMP, /* never cached: it is every sample's first call */
        NF_POWER,
        NF_LIMIT,
        NF_ENFORCED,
        NF_ENERGY,
        NF_PSTATE,
        NF_CLK_GFX,
        NF_CLK_SM,
        NF_CLK_MEM,
        NF_CLK_VIDEO,
        NF_UTIL,
        NF_MEMORY,
        NF_PCIE_GEN,
        NF_PCIE_WIDTH,
        NF_REPLAY,
        NF_REASONS,
        NF_THERMAL,
        NF_ECC_CORR,
        NF_ECC_UNC,
        NF_REMAP,
        NF_ECC_AGG_CORR,
        NF_ECC_AGG_UNC,
        NF_ECC_MODE,
        NF_RETIRED_SBE,
        NF_RETIRED_DBE,
        NF_RETIRED_PENDING,
        NF_PERSISTENCE,
        NF_NVLINK, /* nvmlDeviceGetNvLinkState, every link */
        NF_FABRIC, /* nvmlDeviceGetGpuFabricInfoV (or the plain call) */
        NF_FAN0,
        NF_TARGET0 = NF_FAN0 + VIGIL_MAX_FANS,
        NF_COUNT = NF_TARGET0 + VIGIL_MAX_FANS
};
_Static_assert(NF_COUNT <= 64, "nvml_gpu.unsupported is 64 bits");

/* A field is retired after this many NOT_SUPPORTED (or NO_PERMISSION,
 * FUNCTION_NOT_FOUND) answers in a row: one such answer can be transient, and a
 * blanked power limit silences the TDP, PWR+ and SPUR_THROT rules. */
#define NVML_RETIRE_AFTER 3
/* Retired fields are asked again this often. */
#define NVML_REPROBE_NS (60 * 1000000000LL)

/* What a sample's calls returned. */
struct nvml_read_result {
        unsigned asked;           /* calls made */
        unsigned answered;        /* calls that succeeded or said "not supported" */
        nvmlReturn_t fatal;       /* a code that means the GPU is gone (nvml_fatal) */
        nvmlReturn_t first_error; /* the first other failure, 0 if none */
};

/* True for the codes after which no further call on the GPU makes sense this sample:
 * GPU_IS_LOST, UNINITIALIZED, DRIVER_NOT_LOADED, RESET_REQUIRED, GPU_NOT_FOUND,
 * LIB_RM_VERSION_MISMATCH. */
bool nvml_fatal(nvmlReturn_t r);

/* What a sample reads beyond its every-sample calls (the what of nvml_read_sample).
 * Every sample reads what the reference logger reads, the power management limit
 * included: the TDP rules (detect/gpu_rules.h) compare each sample's limit with the
 * one before, as the reference does, so a limit set for less than a second is flagged
 * both ways. For a sample to make no more calls than the reference's (17 with 2 fans),
 * vigil's own columns that the reference does not have are read at the mid cadence:
 * NVML_READ_MID, every --gpu-mid-interval (1 s): the SM and the video clocks.
 * (nvmlDeviceGetFieldValues could carry a limit in a batch, but its power-limit fields,
 * NVML_FI_DEV_POWER_CURRENT_LIMIT and _REQUESTED_LIMIT, are the enforced and the
 * requested limits, not the management limit the reference's column and flags read;
 * and the every-sample path makes no batch.)
 * NVML_READ_SLOW: the slow fields (below) and the mid-cadence ones. */
#define NVML_READ_MID       1u
#define NVML_READ_SLOW_ONLY 2u
#define NVML_READ_SLOW      (NVML_READ_MID | NVML_READ_SLOW_ONLY)

/* Read every per-sample value of gpu into g, which the caller has cleared (missing
 * values stay NAN). nvmlDeviceGetTemperature is the first call. A call that answers
 * NOT_SUPPORTED, NO_PERMISSION or FUNCTION_NOT_FOUND NVML_RETIRE_AFTER times in a row
 * is retired (gpu->unsupported) and not made again until nvml_read_reprobe; a success
 * resets the count. After a fatal code no further call is made. Static values
 * (fan count) come from gpu.
 * The slow fields (the enforced power limit, the energy counter, the PCIe replay
 * counter, the volatile ECC totals, the remapped rows, the temperature thresholds) and
 * the recovery action are read only when what has NVML_READ_SLOW, last. The fields read
 * at a cadence are the rows of core/gpu_values.c with that .cadence: a sample that reads
 * them keeps them in gpu->held, and every sample in between carries their last values
 * from there (NAN where that read did not answer; all missing before the first read).
 * The ECC totals, the replay counter, the remapped rows, the recovery action and the
 * NVLink error counters of every link come from one nvmlDeviceGetFieldValues call; one
 * the fields did not give is asked by its own call (the NVLink counters have none: an
 * unanswered one is missing). The slow read also asks each NVLink link found for its
 * state (nvmlDeviceGetNvLinkState; the links are found at the first slow read after the
 * identity, and again at each re-probe while the GPU has none) and the GPU's fabric
 * (nvmlDeviceGetGpuFabricInfoV, or nvmlDeviceGetGpuFabricInfo on older drivers). */
void nvml_read_sample(const struct nvml_lib *lib, struct nvml_gpu *gpu, struct gpu_frame *g,
                      unsigned what, struct nvml_read_result *res);

/* True when a sample's result is a failed sample: a fatal code, or calls were made and
 * none was answered. *ret_error gets the code to report. */
bool nvml_read_failed(const struct nvml_read_result *res, nvmlReturn_t *ret_error);

/* The re-probe cadence (every NVML_REPROBE_NS): give every retired field of gpu one more
 * call (one more refusal retires it again). Makes no call itself. */
void nvml_read_reprobe(struct nvml_gpu *gpu);

/* The GPU's recovery action: field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION through
 * nvmlDeviceGetFieldValues (FACTS.md: where NVIDIA puts it; an event's eventData is 0
 * for every event but Xid). NVML_SUCCESS with *ret_action set, FUNCTION_NOT_FOUND
 * without the call, else the call's or the field's own code. */
nvmlReturn_t nvml_read_recovery_action(const struct nvml_lib *lib, nvmlDevice_t h,
                                       unsigned *ret_action);

/* (Re)read the identity (name, UUID, PCI bus id, serial, VBIOS), the static thresholds,
 * the fan count and the power limit of gpu->handle, and forget which fields were
 * unsupported. Never calls nvmlDeviceGetTemperature. 0, or the fatal NVML code that
 * stopped it (the GPU is not answering). */
nvmlReturn_t nvml_read_identity(const struct nvml_lib *lib, struct nvml_gpu *gpu);

#endif
