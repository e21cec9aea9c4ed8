/* SPDX-License-Identifier: Apache-2.0 */
/* The floor's NVML calls, shared by nvml_floor.c and bench_gpu.c: the function table
 * (load) and one GPU's sample (sample_gpu), the calls vigil's NVML source makes on a
 * GPU that supports every field, in its order (src/collect/nvml_read.c), at a sample
 * without the slow fields: those (enforced limit, energy, PCIe replays, ECC, remapped
 * rows, thresholds) come every --gpu-slow-interval, 10 s, and the mid-cadence ones (the
 * power management limit, the video clock) every --gpu-mid-interval, 1 s: a few samples
 * in the benchmarks' rounds of back-to-back samples, left out here. */
#ifndef VIGIL_BENCH_NVML_CALLS_H
#define VIGIL_BENCH_NVML_CALLS_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "collect/nvml_api.h"

struct fns {
        nvmlInit_v2_fn init;
        nvmlShutdown_fn shutdown;
        nvmlDeviceGetCount_v2_fn count;
        nvmlDeviceGetHandleByIndex_v2_fn handle;
        nvmlDeviceGetNumFans_fn num_fans;
        nvmlDeviceGetTemperature_fn temperature;
        nvmlDeviceGetPowerUsage_fn power;
        nvmlDeviceGetPowerManagementLimit_fn limit;
        nvmlDeviceGetPerformanceState_fn pstate;
        nvmlDeviceGetClockInfo_fn clock;
        nvmlDeviceGetUtilizationRates_fn util;
        nvmlDeviceGetMemoryInfo_v2_fn memory;
        nvmlDeviceGetCurrPcieLinkGeneration_fn pcie_gen;
        nvmlDeviceGetCurrPcieLinkWidth_fn pcie_width;
        nvmlDeviceGetCurrentClocksEventReasons_fn reasons;
        nvmlDeviceGetFanSpeed_v2_fn fan;
        nvmlDeviceGetTargetFanSpeed_fn target;
        nvmlDeviceGetThermalSettings_fn thermal;
};

static int load(void *lib, struct fns *f)
{
        struct {
                const char *name;
                void **slot;
        } want[] = {
            {"nvmlInit_v2", (void **)&f->init},
            {"nvmlShutdown", (void **)&f->shutdown},
            {"nvmlDeviceGetCount_v2", (void **)&f->count},
            {"nvmlDeviceGetHandleByIndex_v2", (void **)&f->handle},
            {"nvmlDeviceGetNumFans", (void **)&f->num_fans},
            {"nvmlDeviceGetTemperature", (void **)&f->temperature},
            {"nvmlDeviceGetPowerUsage", (void **)&f->power},
            {"nvmlDeviceGetPowerManagementLimit", (void **)&f->limit},
            {"nvmlDeviceGetPerformanceState", (void **)&f->pstate},
            {"nvmlDeviceGetClockInfo", (void **)&f->clock},
            {"nvmlDeviceGetUtilizationRates", (void **)&f->util},
            {"nvmlDeviceGetMemoryInfo_v2", (void **)&f->memory},
            {"nvmlDeviceGetCurrPcieLinkGeneration", (void **)&f->pcie_gen},
            {"nvmlDeviceGetCurrPcieLinkWidth", (void **)&f->pcie_width},
            {"nvmlDeviceGetCurrentClocksEventReasons", (void **)&f->reasons},
            {"nvmlDeviceGetFanSpeed_v2", (void **)&f->fan},
            {"nvmlDeviceGetTargetFanSpeed", (void **)&f->target},
            {"nvmlDeviceGetThermalSettings", (void **)&f->thermal},
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                *want[i].slot = dlsym(lib, want[i].name);
                if (!*want[i].slot) {
                        fprintf(stderr, "nvml_floor: %s missing\n", want[i].name);
                        return -1;
                }
        }
        return 0;
}

/* One GPU's sample: the calls, in vigil's order. Returns the number of calls. */
static unsigned sample_gpu(const struct fns *f, nvmlDevice_t h, unsigned nfans)
{
        unsigned u;
        int p;
        unsigned long long ull;
        nvmlUtilization_t ut;
        nvmlMemory_v2_t m;
        nvmlGpuThermalSettings_t ts;
        f->temperature(h, NVML_TEMPERATURE_GPU, &u);
        f->power(h, &u);
        f->pstate(h, &p);
        f->clock(h, NVML_CLOCK_GRAPHICS, &u);
        f->clock(h, NVML_CLOCK_MEM, &u);
        f->util(h, &ut);
        memset(&m, 0, sizeof(m));
        m.version = nvmlMemory_v2;
        f->memory(h, &m);
        f->pcie_gen(h, &u);
        f->pcie_width(h, &u);
        f->reasons(h, &ull);
        for (unsigned i = 0; i < nfans; i++) {
                f->fan(h, i, &u);
                f->target(h, i, &u);
        }
        memset(&ts, 0, sizeof(ts));
        f->thermal(h, 0, &ts);
        f->clock(h, NVML_CLOCK_SM, &u);
        return 12 + 2 * nfans;
}

#endif
