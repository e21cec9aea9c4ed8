/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the simulated NVML's scenario file (tests/nvml-sim/scenario.c
 * scenario_parse), which tests and the soak feed to the daemon. An accepted scenario has
 * GPUs within the table and each timeline sorted by step.
 * Link: -Itests/nvml-sim tests/nvml-sim/scenario.c tests/nvml-sim/fields.c
 * Link: tests/nvml-sim/procs_parse.c */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sim sim; /* the library's global, defined in its state.c */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char err[512];
        err[0] = '\0';
        if (scenario_parse(&sim, (const char *)data, size, "fuzz", err, sizeof(err)) < 0) {
                if (strncmp(err, "fuzz:", 5) != 0 || sim.ngpus != 0)
                        __builtin_trap();
                return 0;
        }
        if (sim.ngpus > SIM_MAX_GPUS)
                __builtin_trap();
        for (unsigned i = 0; i < sim.ngpus; i++) {
                const struct sim_gpu *g = &sim.gpu[i];
                for (size_t k = 1; k < g->nops; k++) {
                        if (g->ops[k].step < g->ops[k - 1].step)
                                __builtin_trap();
                }
        }
        scenario_clear(&sim);
        return 0;
}
