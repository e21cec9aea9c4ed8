/* SPDX-License-Identifier: Apache-2.0 */
/* Text of a GPU's process list. See gpu_procs.h. */
#include "core/gpu_procs.h"

#include <math.h>
#include <stdio.h>

#include "util/hot.h"

static const char *const type_names[GPU_PROC_TYPES] = {"compute", "graphics"};

const char *gpu_proc_type_name(enum gpu_proc_type t)
{
        return (unsigned)t < GPU_PROC_TYPES ? type_names[t] : "unknown";
}

void gpu_procs_format(struct strbuf *sb, const struct gpu_proc_list *l)
{
        if (!l || !l->valid) {
                sb_puts(sb, "(not recorded)\n");
                return;
        }
        if (l->n == 0 && l->count[GPU_PROC_COMPUTE] == 0 && l->count[GPU_PROC_GRAPHICS] == 0) {
                sb_puts(sb, "(none)\n");
                return;
        }
        bool work = false; /* the WORKLOAD column only when a process has one */
        for (unsigned i = 0; i < l->n && i < VIGIL_GPU_PROCS_MAX; i++)
                work |= l->p[i].work.kind != WL_NONE;
        sb_printf(sb, "  %7s %-8s %-15s %10s  ", "PID", "TYPE", "NAME", "GPU MEM");
        if (work)
                sb_printf(sb, "%-30s ", "WORKLOAD");
        sb_puts(sb, "COMMAND\n");
        for (unsigned i = 0; i < l->n && i < VIGIL_GPU_PROCS_MAX; i++) {
                const struct gpu_proc *p = &l->p[i];
                char mem[24];
                if (isnan(p->used_bytes))
                        snprintf(mem, sizeof(mem), "n/a");
                else
                        snprintf(mem, sizeof(mem), "%.0f MiB", p->used_bytes / (1024.0 * 1024.0));
                sb_printf(sb, "  %7u %-8s %-15s %10s  ", p->pid,
                          gpu_proc_type_name((enum gpu_proc_type)p->type),
                          p->name[0] ? p->name : "?", mem);
                if (work) {
                        char w[200];
                        struct strbuf wb;
                        sb_init_fixed(&wb, w, sizeof(w));
                        workload_format(&wb, &p->work);
                        sb_printf(sb, "%-30s ", w);
                }
                sb_printf(sb, "%s\n", p->cmdline[0] ? p->cmdline : "(not in /proc)");
        }
        unsigned total = l->count[GPU_PROC_COMPUTE] + l->count[GPU_PROC_GRAPHICS];
        if (total > l->n)
                sb_printf(sb, "  (%u more not listed)\n", total - l->n);
}

VIGIL_HOT void gpu_procs_format_short(struct strbuf *sb, const struct gpu_proc_list *l)
{
        unsigned shown = 0;
        for (unsigned i = 0; l && l->valid && i < l->n && i < VIGIL_GPU_PROCS_MAX; i++) {
                if (shown == 8) {
                        sb_puts(sb, ",...");
                        break;
                }
                sb_printf(sb, "%s%u:", shown ? "," : "", l->p[i].pid);
                /* A name is the program's choice: one token, whatever it holds. */
                const char *nm = l->p[i].name[0] ? l->p[i].name : "?";
                for (const char *c = nm; *c; c++) {
                        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                     (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
                                     *c == '_' || *c == '?';
                        sb_putc(sb, plain ? *c : '_');
                }
                shown++;
        }
}

void gpu_procs_format_workloads(struct strbuf *sb, const struct gpu_proc_list *l)
{
        unsigned shown = 0;
        for (unsigned i = 0; l && l->valid && i < l->n && i < VIGIL_GPU_PROCS_MAX && i < 8; i++) {
                if (l->p[i].work.kind == WL_NONE)
                        continue;
                sb_printf(sb, "%s%u=", shown++ ? "," : "", l->p[i].pid);
                workload_format(sb, &l->p[i].work);
        }
}
