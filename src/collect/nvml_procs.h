/* SPDX-License-Identifier: Apache-2.0 */
/* The processes running on a GPU: NVML's compute and graphics process lists, and the
 * name and command line of each pid from /proc under --root. A list looks like
 *   gpu0 compute 2, graphics 1: 4242 python3 (8.0 GiB) "python3 train.py --epochs 90"
 *
 * NVML's side is pure with respect to the process (no logging, no allocation: the
 * query array is on the stack), so it runs inside a GPU job under the guard
 * (nvml_worker.h) and on a fake function table in the unit tests. */
#ifndef VIGIL_COLLECT_NVML_PROCS_H
#define VIGIL_COLLECT_NVML_PROCS_H

#include <stddef.h>

#include "collect/nvml_api.h"
#include "core/gpu_procs.h"

/* nvmlProcessInfo_t (v2 layout, what the _v3 calls fill), 24 bytes: FACTS.md (checked
 * against NVIDIA's nvml.h 12.8 to 13.3). usedGpuMemory is in bytes, or
 * NVML_VALUE_NOT_AVAILABLE_ULL when the driver cannot say (e.g. without permission). */
typedef struct {
        unsigned int pid;
        unsigned long long usedGpuMemory;
        unsigned int gpuInstanceId;
        unsigned int computeInstanceId;
} nvmlProcessInfo_t;
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t is 24 bytes");
_Static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8, "usedGpuMemory at 8");
_Static_assert(offsetof(nvmlProcessInfo_t, gpuInstanceId) == 16, "gpuInstanceId at 16");
_Static_assert(offsetof(nvmlProcessInfo_t, computeInstanceId) == 20, "computeInstanceId at 20");
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xffffffffffffffffULL

/* nvmlDeviceGetComputeRunningProcesses_v3, nvmlDeviceGetGraphicsRunningProcesses_v3:
 * *infoCount in: the array's size; out: the processes. With *infoCount 0 (infos may be
 * NULL) the answer is SUCCESS when none run, else INSUFFICIENT_SIZE with the count
 * (NVIDIA's NVML reference for both calls). */
typedef nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3_fn)(nvmlDevice_t device,
                                                                   unsigned int *infoCount,
                                                                   nvmlProcessInfo_t *infos);
typedef nvmlReturn_t (*nvmlDeviceGetGraphicsRunningProcesses_v3_fn)(nvmlDevice_t device,
                                                                    unsigned int *infoCount,
                                                                    nvmlProcessInfo_t *infos);

#define NVML_PROCS_QUERY_MAX 256 /* processes asked for per type, at most (6 KB of stack) */

/* One type's query (fn: either call above): ask for the count, then for that many plus
 * a margin (processes start meanwhile), once more if the count grew; append up to the
 * list's room to out->p[] (names empty), and set out->count[type] to what NVML
 * reported and out->supported[type]. NVML_SUCCESS, or the code that stopped it
 * (NOT_SUPPORTED and the like: the type is left unsupported; a fatal code: the GPU is
 * gone). fn NULL: FUNCTION_NOT_FOUND. */
nvmlReturn_t nvml_procs_query(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *),
                              nvmlDevice_t dev, enum gpu_proc_type type, struct gpu_proc_list *out);

/* Fill each entry's name (ROOT/proc/PID/comm) and command line (ROOT/proc/PID/cmdline,
 * NUL separators as spaces, control bytes as '?', cut at VIGIL_GPU_PROC_CMDLN - 1
 * bytes), and its workload (ROOT/proc/PID/cgroup, a pod's name from
 * ROOT/var/log/pods: core/workload.h). A pid /proc does not have (another namespace,
 * gone) keeps "" for both and no workload. root "" or NULL: /. */
void gpu_procs_fill_names(const char *root, struct gpu_proc_list *l);

#endif
