/* SPDX-License-Identifier: Apache-2.0 */
/* Watched processes and the processes the kernel ended. See proc_ends.h. */
#include "core/proc_ends.h"

#include <string.h>

bool watch_procs_has(const struct watch_procs *w, int32_t pid)
{
        for (unsigned i = 0; w->known && i < w->npids && i < WATCH_PIDS_MAX; i++)
                if (w->pids[i] == pid)
                        return true;
        return false;
}

void proc_ends_add(struct proc_ends *p, const struct proc_end *e)
{
        p->e[p->next] = *e;
        p->next = (p->next + 1) % PROC_ENDS_MAX;
        if (p->n < PROC_ENDS_MAX)
                p->n++;
}

/* Does a better b: a match by pid over one by watch, then an OOM kill, then newer. */
static bool better(const struct proc_end *a, const struct proc_end *b, int32_t pid)
{
        if (!b)
                return true;
        bool pa = pid && a->pid == pid, pb = pid && b->pid == pid;
        if (pa != pb)
                return pa;
        bool oa = !strcmp(a->what, "out of memory"), ob = !strcmp(b->what, "out of memory");
        if (oa != ob)
                return oa;
        return a->mono_ns >= b->mono_ns;
}

const struct proc_end *proc_ends_find(const struct proc_ends *p, int32_t pid, int watch,
                                      int64_t since_ns)
{
        const struct proc_end *best = NULL;
        for (unsigned i = 0; i < p->n && i < PROC_ENDS_MAX; i++) {
                const struct proc_end *e = &p->e[i];
                if (e->mono_ns < since_ns)
                        continue;
                if ((pid && e->pid == pid) || (watch >= 0 && e->watch == watch))
                        if (better(e, best, pid))
                                best = e;
        }
        return best;
}
