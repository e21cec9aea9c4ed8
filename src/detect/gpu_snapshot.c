/* SPDX-License-Identifier: Apache-2.0 */
/* GPU crash and fan-spike snapshot content. See gpu_snapshot.h. */
#include "detect/gpu_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/kmsg.h"
#include "collect/nvml_lib.h"
#include "detect/evidence.h"
#include "encode/gpu_row.h"
#include "encode/ring_csv.h"
#include "util/clock.h"
#include "util/pfile.h"

void gpu_snapshot_header(const struct gpu_snapshot_in *in, const char *title,
                         struct snapshot_header *h)
{
        const struct frame *f = in->ctx->frame;
        const struct gpu_frame *g = &f->gpus[in->slot];
        const struct gpu_stats *st = &f->gpu_stats[in->slot];
        memset(h, 0, sizeof(*h));
        h->title = title;
        h->real_ns = in->real_ns;
        h->gpu_name = g->name[0] ? g->name : "unknown GPU";
        h->gpu_pci = g->pci_bus_id;
        h->error = in->error;
        h->uptime_s = (now_mono_ns() - f->self.started_mono_ns) / NSEC_PER_SEC;
        h->samples = st->samples;
        h->peak_temp_c = st->peak_temp_c;
        h->peak_power_w = st->peak_power_w;
        h->event_number = in->event_number;
        h->power_breaches = st->anomalies[GPU_ANOM_POWER_BREACH];
        h->fan_inversions = st->anomalies[GPU_ANOM_FAN_INVERSION];
        h->spurious_throttles = st->anomalies[GPU_ANOM_SPURIOUS_THROTTLE];
        h->extra_lines = in->extra_lines;
}

void gpu_snapshot_proc_lines(struct snapshot *s, const char *root, const char *path,
                             const char *match)
{
        char *buf = malloc(GPU_SNAPSHOT_PROC_BYTES);
        if (!buf) {
                snapshot_puts(s, "(out of memory)\n");
                return;
        }
        ssize_t n = read_file_at(root, path, buf, GPU_SNAPSHOT_PROC_BYTES);
        if (n < 0) {
                snapshot_printf(s, "(not readable: %s: %s)\n", path, strerror((int)-n));
                free(buf);
                return;
        }
        unsigned shown = 0;
        for (char *line = buf; *line;) {
                char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                char save = line[len];
                line[len] = '\0';
                if (!match || strcasestr(line, match)) {
                        snapshot_write(s, line, len);
                        snapshot_write(s, "\n", 1);
                        shown++;
                }
                line[len] = save;
                line += len + (nl ? 1 : 0);
        }
        if (!shown)
                snapshot_puts(s, "(none)\n");
        free(buf);
}

static void ring_section(struct snapshot *s, const struct gpu_ring *r)
{
        if (r) {
                evidence_ring(s, GPU_SNAPSHOT_RING_TITLE, r);
                return;
        }
        snapshot_section(s, GPU_SNAPSHOT_RING_TITLE);
        snapshot_puts(s, "(not recorded)\n");
}

int gpu_snapshot_crash(const struct gpu_snapshot_in *in, const char *programs_note, char *ret_path,
                       size_t cap)
{
        static const enum kmsg_filter filters[] = {KMSG_FILTER_GPU, KMSG_FILTER_ALL,
                                                   KMSG_FILTER_AER};
        struct vigil_ctx *ctx = in->ctx;
        const char *root = ctx->opt->root;
        struct snapshot_header h;
        struct snapshot *s;
        int r = snapshot_open(&s, ctx->log_dir, SNAPSHOT_CRASH, in->real_ns);
        if (r < 0)
                return r;
        gpu_snapshot_header(in, "GPU CRASH DETECTED", &h);
        snapshot_header(s, &h);
        ring_section(s, in->ring);
        evidence_gpu_procs(s, &ctx->frame->gpu_procs[in->slot], in->real_ns);
        evidence_nvlink(s, &ctx->frame->gpus[in->slot]);
        evidence_kernel_log(s, ctx->kmsg, filters, sizeof(filters) / sizeof(filters[0]));
        evidence_pcie(s, root, ctx->frame->gpus[in->slot].pci_bus_id);
        snapshot_section(s, "NVIDIA kernel modules");
        gpu_snapshot_proc_lines(s, root, "/proc/modules", "nvidia");
        snapshot_section(s, "System memory");
        gpu_snapshot_proc_lines(s, root, "/proc/meminfo", NULL);
        snapshot_section(s, "System load");
        gpu_snapshot_proc_lines(s, root, "/proc/loadavg", NULL);
        gpu_snapshot_proc_lines(s, root, "/proc/uptime", NULL);
        if (programs_note) {
                snapshot_section(s, "Programs");
                snapshot_printf(s, "%s\n", programs_note);
        }
        return snapshot_commit(s, ret_path, cap);
}

/* "column: value" per cell of the sample that took the snapshot: every column of its
 * CSV row, as the reference lists them (throttle_reasons, the fans and vigil's columns
 * included). A sample that answered has no comma in a cell (flags are '|'-joined), so a
 * split at commas is exact. */
static void current_state(struct snapshot *s, const struct gpu_frame *g)
{
        char hb[2048], rb[2048];
        struct strbuf head, row;
        snapshot_section(s, "Current state");
        if (!g->ok || !g->sampled_real_ns) {
                snapshot_puts(s, "(no samples recorded)\n");
                return;
        }
        sb_init_fixed(&head, hb, sizeof(hb));
        sb_init_fixed(&row, rb, sizeof(rb));
        gpu_row_header(&head, g->nfans);
        gpu_row_csv(&row, g, g->nfans, NULL);
        const char *hp = hb, *rp = rb;
        while (*hp && *hp != '\n') {
                size_t hl = strcspn(hp, ",\n"), rl = strcspn(rp, ",\n");
                snapshot_printf(s, " %.*s: %.*s\n", (int)hl, hp, (int)rl, rp);
                hp += hl + (hp[hl] == ',');
                rp += rl + (rp[rl] == ',');
        }
}

static void last_rows(struct snapshot *s, const struct gpu_ring *r, size_t want)
{
        char buf[1024];
        struct strbuf sb;
        size_t n = r ? ring_count(r) : 0;
        snapshot_section(s, "Last 50 telemetry readings");
        if (n == 0) {
                snapshot_puts(s, "(no samples recorded)\n");
                return;
        }
        sb_init_fixed(&sb, buf, sizeof(buf));
        ring_csv_header(r, &sb);
        snapshot_put_sb(s, &sb);
        for (size_t i = n > want ? n - want : 0; i < n; i++) {
                sb_init_fixed(&sb, buf, sizeof(buf));
                ring_csv_row(r, i, &sb);
                snapshot_put_sb(s, &sb);
        }
}

static void threshold_line(struct snapshot *s, const char *label, double v)
{
        if (VAL_OK(v))
                snapshot_printf(s, " %s: %.0fC\n", label, v);
        else
                snapshot_printf(s, " %s: N/A\n", label);
}

static void thermal_and_fans(struct snapshot *s, const struct gpu_snapshot_in *in)
{
        const struct gpu_frame *g = &in->ctx->frame->gpus[in->slot];
        const struct nvml_shared *sh = in->ctx->nvml;
        const struct nvml_gpu *ng = sh && in->slot < sh->ngpus ? &sh->gpu[in->slot] : NULL;
        snapshot_section(s, "Thermal thresholds");
        threshold_line(s, "shutdown",
                       VAL_OK(g->shutdown_temp_c) || !ng ? g->shutdown_temp_c : ng->shutdown_c);
        threshold_line(s, "slowdown",
                       VAL_OK(g->slowdown_temp_c) || !ng ? g->slowdown_temp_c : ng->slowdown_c);
        threshold_line(s, "gpu_max", VAL_OK(g->temp_max_c) || !ng ? g->temp_max_c : ng->gpu_max_c);
        snapshot_section(s, "Fan control policies");
        unsigned nf = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
        if (nf == 0)
                snapshot_puts(s, "(no fans)\n");
        for (unsigned i = 0; i < nf; i++) {
                nvmlFanControlPolicy_t p = 0;
                bool have = ng && ng->handle && sh->lib.fan_policy &&
                            sh->lib.fan_policy(ng->handle, i, &p) == NVML_SUCCESS;
                snapshot_printf(s, " fan[%u]: policy=", i);
                if (have)
                        snapshot_printf(s, "%u (%s)", p,
                                        p == NVML_FAN_POLICY_MANUAL ? "manual" : "automatic");
                else
                        snapshot_puts(s, "N/A");
                if (VAL_OK(g->fan_target_pct[i]))
                        snapshot_printf(s, " target=%.0f%%", g->fan_target_pct[i]);
                if (VAL_OK(g->fan_speed_pct[i]))
                        snapshot_printf(s, " speed=%.0f%%", g->fan_speed_pct[i]);
                snapshot_puts(s, "\n");
        }
}

int gpu_snapshot_spike(const struct gpu_snapshot_in *in, char *ret_path, size_t cap)
{
        struct snapshot_header h;
        struct snapshot *s;
        int r = snapshot_open(&s, in->ctx->log_dir, SNAPSHOT_SPIKE, in->real_ns);
        if (r < 0)
                return r;
        gpu_snapshot_header(in, "FAN SPIKE DETECTED", &h);
        snapshot_header(s, &h);
        current_state(s, &in->ctx->frame->gpus[in->slot]);
        last_rows(s, in->ring, GPU_SNAPSHOT_SPIKE_ROWS);
        thermal_and_fans(s, in);
        return snapshot_commit(s, ret_path, cap);
}
