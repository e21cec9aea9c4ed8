/* Benchmark floor: the NVML calls of one vigil GPU sample and nothing else.
 *
 * dlopens the NVML library given (the simulator in the benchmarks), takes a handle for
 * every GPU and, per sample, makes for each GPU the calls vigil's NVML source makes on
 * a GPU that supports every field, in its order (src/collect/nvml_read.c):
 * temperature, power, power limit, P-state, graphics and memory clocks, utilisation,
 * memory (_v2), PCIe generation and width, clock-event reasons, per fan speed (_v2) and
 * target, thermal settings of sensor 0, enforced limit, energy, SM and video clocks,
 * PCIe replays, volatile ECC corrected and uncorrected, remapped rows. No value is
 * kept or checked. CPU time is CLOCK_PROCESS_CPUTIME_ID; the figure is the median of
 * the rounds.
 *
 * usage: nvml_floor LIBRARY SAMPLES_PER_ROUND [ROUNDS]
 * (VIGIL_NVML_SCENARIO names the simulator's scenario.) Prints "key value" lines:
 * gpus, fans, calls_per_sample, floor_sample_ns (all GPUs), floor_call_ns. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_api.h"
#include "util/clock.h"

#define MAX_GPUS   16
#define MAX_ROUNDS 64

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
        nvmlDeviceGetEnforcedPowerLimit_fn enforced;
        nvmlDeviceGetTotalEnergyConsumption_fn energy;
        nvmlDeviceGetPcieReplayCounter_fn replay;
        nvmlDeviceGetTotalEccErrors_fn ecc;
        nvmlDeviceGetRemappedRows_fn remapped;
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
            {"nvmlDeviceGetEnforcedPowerLimit", (void **)&f->enforced},
            {"nvmlDeviceGetTotalEnergyConsumption", (void **)&f->energy},
            {"nvmlDeviceGetPcieReplayCounter", (void **)&f->replay},
            {"nvmlDeviceGetTotalEccErrors", (void **)&f->ecc},
            {"nvmlDeviceGetRemappedRows", (void **)&f->remapped},
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
        unsigned u, c, unc, pend, fail;
        int p;
        unsigned long long ull;
        nvmlUtilization_t ut;
        nvmlMemory_v2_t m;
        nvmlGpuThermalSettings_t ts;
        f->temperature(h, NVML_TEMPERATURE_GPU, &u);
        f->power(h, &u);
        f->limit(h, &u);
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
        f->enforced(h, &u);
        f->energy(h, &ull);
        f->clock(h, NVML_CLOCK_SM, &u);
        f->clock(h, NVML_CLOCK_VIDEO, &u);
        f->replay(h, &u);
        f->ecc(h, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &ull);
        f->ecc(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &ull);
        f->remapped(h, &c, &unc, &pend, &fail);
        return 20 + 2 * nfans;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
        if (argc < 3) {
                fprintf(stderr, "usage: nvml_floor LIBRARY SAMPLES_PER_ROUND [ROUNDS]\n");
                return 2;
        }
        unsigned per = (unsigned)strtoul(argv[2], NULL, 10);
        unsigned rounds = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 10;
        struct fns f;
        nvmlDevice_t h[MAX_GPUS];
        unsigned nfans[MAX_GPUS], ngpus = 0, calls = 0;
        double ns[MAX_ROUNDS];
        void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

        if (per == 0 || rounds == 0)
                return 2;
        if (rounds > MAX_ROUNDS)
                rounds = MAX_ROUNDS;
        if (!lib || load(lib, &f) < 0) {
                fprintf(stderr, "nvml_floor: cannot use %s: %s\n", argv[1], lib ? "" : dlerror());
                return 1;
        }
        if (f.init() != NVML_SUCCESS || f.count(&ngpus) != NVML_SUCCESS || ngpus == 0) {
                fprintf(stderr, "nvml_floor: nvmlInit or nvmlDeviceGetCount failed\n");
                return 1;
        }
        if (ngpus > MAX_GPUS)
                ngpus = MAX_GPUS;
        for (unsigned g = 0; g < ngpus; g++) {
                nfans[g] = 0;
                if (f.handle(g, &h[g]) != NVML_SUCCESS ||
                    f.num_fans(h[g], &nfans[g]) != NVML_SUCCESS)
                        nfans[g] = 0;
        }
        for (unsigned r = 0; r < rounds; r++) {
                int64_t c0 = cpu_time_ns();
                for (unsigned k = 0; k < per; k++) {
                        calls = 0;
                        for (unsigned g = 0; g < ngpus; g++)
                                calls += sample_gpu(&f, h[g], nfans[g]);
                }
                ns[r] = (double)(cpu_time_ns() - c0) / per;
        }
        qsort(ns, rounds, sizeof(double), cmp_double);
        printf("gpus %u\n", ngpus);
        printf("fans %u\n", nfans[0]);
        printf("calls_per_sample %u\n", calls);
        printf("floor_sample_ns %.0f\n", ns[rounds / 2]);
        printf("floor_call_ns %.1f\n", ns[rounds / 2] / calls);
        f.shutdown();
        return 0;
}
