/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated GPUs' running processes (their `proc` lines: procs_parse.c):
 * nvmlDeviceGetComputeRunningProcesses_v3 / nvmlDeviceGetGraphicsRunningProcesses_v3.
 * The calls follow NVIDIA's documented handshake: *infoCount smaller than the processes
 * running (0 to ask) answers INSUFFICIENT_SIZE with *infoCount set to their number;
 * with none running, SUCCESS and 0 whatever the size. */
#include "sim.h"

#ifndef SIM_OLD_DRIVER /* the old driver lacks the calls (README.md) */
static bool running(const struct sim_proc *p, uint64_t step, bool graphics)
{
        return p->graphics == graphics && step >= p->from && (!p->until || step < p->until);
}

static nvmlReturn_t list(nvmlDevice_t dev, unsigned int *count, nvmlProcessInfo_t *infos,
                         bool graphics, const char *fn)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        unsigned n = 0;
        for (unsigned i = 0; i < g->nprocs; i++)
                n += running(&g->procs[i], g->step, graphics);
        if (!count)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else if (g->procs_err)
                r = g->procs_err;
        else if (*count < n)
                r = NVML_ERROR_INSUFFICIENT_SIZE;
        else if (n > 0 && !infos)
                r = NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE)
                *count = n;
        for (unsigned i = 0, k = 0; r == NVML_SUCCESS && i < g->nprocs; i++) {
                const struct sim_proc *p = &g->procs[i];
                if (!running(p, g->step, graphics))
                        continue;
                infos[k].pid = p->pid;
                infos[k].usedGpuMemory = p->mem;
                infos[k].gpuInstanceId = 0xffffffffu; /* not MIG */
                infos[k].computeInstanceId = 0xffffffffu;
                k++;
        }
        sim_leave();
        return r;
}

SIM_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                             unsigned int *infoCount,
                                                             nvmlProcessInfo_t *infos)
{
        return list(device, infoCount, infos, false, "nvmlDeviceGetComputeRunningProcesses_v3");
}

SIM_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device,
                                                              unsigned int *infoCount,
                                                              nvmlProcessInfo_t *infos)
{
        return list(device, infoCount, infos, true, "nvmlDeviceGetGraphicsRunningProcesses_v3");
}
#endif
