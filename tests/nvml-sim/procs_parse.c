/* SPDX-License-Identifier: Apache-2.0 */
/* The `proc` scenario lines (README.md), apart from the calls (procs.c) so the scenario
 * fuzzer links the parser alone:
 *   proc 0 pid=4242 type=compute mem=8589934592 from=0 until=50 */
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
