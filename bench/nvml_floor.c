/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark floor: the NVML calls of one vigil GPU sample and nothing else.
 *
 * dlopens the NVML library given (the simulator in the benchmarks), takes a handle for
 * every GPU and, per sample, makes for each GPU the calls vigil's NVML source makes on
 * a GPU that supports every field, in its order (src/collect/nvml_read.c):
 * temperature, power, P-state, graphics and memory clocks, utilisation,
 * memory (_v2), PCIe generation and width, clock-event reasons, per fan speed (_v2) and
 * target, thermal settings of sensor 0, SM clock (the slow and mid-cadence fields are
 * left out: see nvml_calls.h). No value is
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

#include "nvml_calls.h"

#define MAX_GPUS   256 /* VIGIL_MAX_GPUS */
#define MAX_ROUNDS 64

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
