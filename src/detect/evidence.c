/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence sections for snapshots. See evidence.h. */
#include "detect/evidence.h"

#include <errno.h>
#include <stdio.h>

#include "collect/pcie.h"
#include "core/nvlink.h"
#include "encode/ring_csv.h"
#include "util/fmt.h"
#include "util/spawn.h"

#define SCRATCH_MAX   (512 * 1024) /* one section's text, at most */
#define RING_CHUNK    (64 * 1024)
#define PROGRAM_BYTES SPAWN_DEFAULT_MAX_OUTPUT

/* A heap builder for one section; on ENOMEM a note goes into the snapshot instead. */
static int scratch(struct snapshot *s, struct strbuf *sb, size_t initial, size_t max)
{
        if (sb_init_heap(sb, initial, max) == 0)
                return 0;
        snapshot_puts(s, "(out of memory)\n");
        return -ENOMEM;
}

void evidence_kernel_log(struct snapshot *s, struct kmsg *k, const enum kmsg_filter *filters,
                         size_t n)
{
        struct strbuf sb;
        if (k)
                kmsg_drain(k);
        for (size_t i = 0; i < n; i++) {
                if ((unsigned)filters[i] >= KMSG_FILTER_COUNT)
                        continue;
                snapshot_section(s, kmsg_filters[filters[i]].title);
                if (scratch(s, &sb, 4096, SCRATCH_MAX) < 0)
                        continue;
                kmsg_format(k, filters[i], &sb);
                snapshot_put_sb(s, &sb);
                sb_free(&sb);
        }
}

void evidence_pcie(struct snapshot *s, const char *root, const char *bus_id)
{
        char buf[4096];
        struct strbuf sb;
        snapshot_section(s, EVIDENCE_PCIE_TITLE);
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_snapshot(root, bus_id, &sb);
        snapshot_put_sb(s, &sb);
}

void evidence_ring(struct snapshot *s, const char *title, const struct gpu_ring *r)
{
        struct strbuf sb;
        snapshot_section(s, title);
        size_t n = ring_count(r);
        if (n == 0) {
                snapshot_puts(s, "(no samples recorded)\n");
                return;
        }
        /* Streamed in chunks rather than holding 5 minutes of rows at once. */
        if (scratch(s, &sb, RING_CHUNK, RING_CHUNK) < 0)
                return;
        for (size_t i = 0; i < n && !snapshot_truncated(s);) {
                sb_reset(&sb);
                i = ring_write_csv(r, i, &sb);
                snapshot_put_sb(s, &sb);
        }
        sb_free(&sb);
}

pid_t evidence_program(struct snapshot *s, const char *title, const char *const argv[],
                       int64_t timeout_ns)
{
        struct strbuf sb;
        struct spawn_result res = {0};
        snapshot_section(s, title);
        if (scratch(s, &sb, 4096, SCRATCH_MAX) < 0)
                return 0;
        spawn_capture(argv, timeout_ns, PROGRAM_BYTES, &sb, &res);
        snapshot_put_sb(s, &sb);
        sb_free(&sb);
        return res.unreaped;
}

void evidence_gpu_procs(struct snapshot *s, const struct gpu_proc_list *l, int64_t now_real_ns)
{
        char buf[4096], ts[64];
        struct strbuf sb;
        snapshot_section(s, "GPU processes");
        if (l && l->valid) {
                fmt_time_utc_iso(ts, sizeof(ts), l->taken_real_ns);
                snapshot_printf(
                    s, "Last list: %s (%.1f s before this snapshot, %s); compute %u, graphics %u\n",
                    ts, (double)(now_real_ns - l->taken_real_ns) / 1e9, l->reason,
                    l->count[GPU_PROC_COMPUTE], l->count[GPU_PROC_GRAPHICS]);
        }
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format(&sb, l);
        snapshot_put_sb(s, &sb);
}

void evidence_nvlink(struct snapshot *s, const struct gpu_frame *g)
{
        char buf[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        snapshot_section(s, "NVLink and fabric");
        if (!g->nvlinks)
                sb_puts(&sb, "(no NVLink)\n");
        for (unsigned l = 0; l < g->nvlinks && l < VIGIL_MAX_NVLINKS; l++) {
                double u = g->nvlink_up[l];
                sb_printf(&sb, "link %u: %s", l, !VAL_OK(u) ? "unknown" : u ? "up" : "down");
                for (unsigned c = 0; c < NVLINK_COUNTERS; c++)
                        if (VAL_OK(g->nvlink_errors[l][c]))
                                sb_printf(&sb, " %s=%.0f",
                                          nvlink_counter_name((enum nvlink_counter)c),
                                          g->nvlink_errors[l][c]);
                sb_putc(&sb, '\n');
        }
        if (!VAL_OK(g->fabric_state)) {
                sb_puts(&sb, "fabric: (no fabric)\n");
        } else {
                sb_printf(&sb, "fabric: %s", fabric_state_name((unsigned)g->fabric_state));
                if (VAL_OK(g->fabric_status))
                        sb_printf(&sb, " status=%.0f", g->fabric_status);
                if (VAL_OK(g->fabric_clique))
                        sb_printf(&sb, " clique=%.0f", g->fabric_clique);
                if (VAL_OK(g->fabric_health_mask)) {
                        sb_printf(&sb,
                                  " health_mask=0x%x faults=", (unsigned)g->fabric_health_mask);
                        if (!fabric_health_faults((unsigned)g->fabric_health_mask, &sb))
                                sb_puts(&sb, "none");
                }
                sb_putc(&sb, '\n');
        }
        snapshot_put_sb(s, &sb);
}

int evidence_followup(const char *log_dir, const struct snapshot_followup_due *d,
                      const struct snapshot_header *h, struct kmsg *k, const char *root,
                      const char *bus_id, const struct gpu_proc_list *procs, char *ret_path,
                      size_t cap)
{
        static const enum kmsg_filter filters[] = {KMSG_FILTER_GPU, KMSG_FILTER_AER};
        struct snapshot *s;
        char extra[512];
        int r = snapshot_open_named(&s, log_dir, SNAPSHOT_CRASH, d->name);
        if (r < 0)
                return r;
        struct snapshot_header fh = *h;
        snprintf(extra, sizeof(extra), "Follow-up of: %s (+%us)\n%s", d->crash, d->delay_s,
                 h->extra_lines ? h->extra_lines : "");
        fh.extra_lines = extra;
        snapshot_header(s, &fh);
        if (procs)
                evidence_gpu_procs(s, procs, h->real_ns);
        evidence_pcie(s, root, bus_id);
        evidence_kernel_log(s, k, filters, sizeof(filters) / sizeof(filters[0]));
        return snapshot_commit(s, ret_path, cap);
}
