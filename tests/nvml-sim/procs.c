/* The simulated GPUs' running processes: the `proc` scenario lines and
 * nvmlDeviceGetComputeRunningProcesses_v3 / nvmlDeviceGetGraphicsRunningProcesses_v3.
 *   proc 0 pid=4242 type=compute mem=8589934592 from=0 until=50
 * The calls follow NVIDIA's documented handshake: *infoCount smaller than the processes
 * running (0 to ask) answers INSUFFICIENT_SIZE with *infoCount set to their number;
 * with none running, SUCCESS and 0 whatever the size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "util/parse.h"

static int proc_attr(struct sim_proc *p, const char *k, size_t kn, struct cursor *v)
{
        uint64_t x;
        if (kn == 4 && !memcmp(k, "type", 4)) {
                if (cur_lit(v, "compute"))
                        p->graphics = false;
                else if (cur_lit(v, "graphics"))
                        p->graphics = true;
                else
                        return -1;
                return cur_eof(v) ? 0 : -1;
        }
        if (kn == 3 && !memcmp(k, "mem", 3) && cur_lit(v, "na")) {
                p->mem = NVML_VALUE_NOT_AVAILABLE_ULL;
                return cur_eof(v) ? 0 : -1;
        }
        if ((cur_lit(v, "0x") ? cur_hex(v, &x) : cur_u64(v, &x)) < 0 || !cur_eof(v))
                return -1;
        if (kn == 3 && !memcmp(k, "pid", 3) && x > 0 && x <= 0xffffffffULL)
                p->pid = (unsigned)x;
        else if (kn == 3 && !memcmp(k, "mem", 3))
                p->mem = x;
        else if (kn == 4 && !memcmp(k, "from", 4))
                p->from = x;
        else if (kn == 5 && !memcmp(k, "until", 5))
                p->until = x;
        else
                return -1;
        return 0;
}

int sim_proc_add(struct sim_gpu *g, const char *attrs, size_t n, char *err, size_t errlen)
{
        struct sim_proc p = {.mem = NVML_VALUE_NOT_AVAILABLE_ULL};
        struct cursor c = cur_make(attrs, n);
        const char *w;
        size_t wn;
        bool typed = false;
        if (g->nprocs >= SIM_MAX_PROCS) {
                snprintf(err, errlen, "more than %d proc lines for GPU %u", SIM_MAX_PROCS,
                         g->index);
                return -1;
        }
        while (cur_skip_blank(&c), cur_word(&c, &w, &wn) == 0) {
                const char *eq = memchr(w, '=', wn);
                if (!eq || eq == w || eq == w + wn - 1) {
                        snprintf(err, errlen, "'%.*s': expected KEY=VALUE", (int)wn, w);
                        return -1;
                }
                struct cursor v = cur_make(eq + 1, (size_t)(w + wn - eq - 1));
                if (proc_attr(&p, w, (size_t)(eq - w), &v) < 0) {
                        snprintf(err, errlen, "bad proc attribute '%.*s'", (int)wn, w);
                        return -1;
                }
                typed |= (size_t)(eq - w) == 4 && !memcmp(w, "type", 4);
        }
        if (!p.pid || !typed || (p.until && p.until <= p.from)) {
                snprintf(err, errlen, "proc needs pid=, type= and until > from");
                return -1;
        }
        struct sim_proc *np = realloc(g->procs, (g->nprocs + 1) * sizeof(*np));
        if (!np) {
                snprintf(err, errlen, "out of memory");
                return -1;
        }
        g->procs = np;
        g->procs[g->nprocs++] = p;
        return 0;
}

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
