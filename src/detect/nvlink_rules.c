/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: NVLink links and the GPU's NVLink fabric (nvlink_rules.h). Reads the values
 * the NVML source leaves in the frame on the slow cadence (collect/nvml_read.c) and
 * writes one events.log line per change:
 *   type=NVLINK gpu=0 link=3 state=errors counter=recovery_events delta=2 total=14
 *   type=NVLINK gpu=0 link=5 state=down
 *   type=NVLINK gpu=0 link=5 state=up
 *   type=FABRIC gpu=0 state=incomplete fabric=in_progress
 *   type=FABRIC gpu=0 state=degraded health=degraded_bw,route_recovery
 * The health verdict (core/health_rules.c) and the findings read the lines. */
#include "detect/nvlink_rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_lib.h"
#include "core/eventlog.h"
#include "core/nvlink.h"
#include "util/strbuf.h"
#include "util/hot.h"

void nvlink_watch_init(struct nvlink_watch *w)
{
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS; l++) {
                w->up[l] = VAL_MISSING;
                w->down[l] = false;
                w->last_line_ns[l] = 0;
                for (unsigned c = 0; c < NVLINK_COUNTERS; c++)
                        w->base[l][c] = VAL_MISSING;
        }
        w->fabric = FV_NONE;
        w->faults[0] = '\0';
}

/* Link l's state: a line when one that was up is down, and when it is back. */
static void step_state(struct nvlink_watch *w, const struct gpu_frame *g, unsigned l,
                       nvlink_emit_fn emit, void *arg)
{
        char text[64];
        double u = g->nvlink_up[l];
        if (!VAL_OK(u))
                return;
        if (w->up[l] == 1 && u == 0) {
                snprintf(text, sizeof(text), " gpu=%u link=%u state=down", g->index, l);
                emit(arg, EV_NVLINK, text);
                w->down[l] = true;
        } else if (w->down[l] && u == 1) {
                snprintf(text, sizeof(text), " gpu=%u link=%u state=up", g->index, l);
                emit(arg, EV_NVLINK, text);
                w->down[l] = false;
        }
        w->up[l] = u;
}

/* Link l's counters: a line per counter that rose since its last line, when the link's
 * last line is NVLINK_LINE_GAP_NS old. */
static void step_counters(struct nvlink_watch *w, const struct gpu_frame *g, unsigned l,
                          int64_t mono_ns, nvlink_emit_fn emit, void *arg)
{
        bool may = !w->last_line_ns[l] || mono_ns - w->last_line_ns[l] >= NVLINK_LINE_GAP_NS;
        for (unsigned c = 0; c < NVLINK_COUNTERS; c++) {
                char text[160];
                double v = g->nvlink_errors[l][c];
                double *b = &w->base[l][c];
                if (!VAL_OK(v))
                        continue;
                if (!VAL_OK(*b) || v < *b) { /* the first value, or reset by a reload */
                        *b = v;
                        continue;
                }
                if (v == *b || !may)
                        continue;
                snprintf(text, sizeof(text),
                         " gpu=%u link=%u state=errors counter=%s delta=%.0f total=%.0f", g->index,
                         l, nvlink_counter_name((enum nvlink_counter)c), v - *b, v);
                emit(arg, EV_NVLINK, text);
                *b = v;
                w->last_line_ns[l] = mono_ns;
        }
}

/* The probe's verdict: completed (with or without an error), or how long it has taken. */
static enum fabric_verdict fabric_verdict(const struct gpu_frame *g, double waited_s)
{
        if (!VAL_OK(g->fabric_state))
                return FV_NONE;
        if (g->fabric_state == 3) /* NVML_GPU_FABRIC_STATE_COMPLETED */
                return VAL_OK(g->fabric_status) && g->fabric_status != 0 ? FV_FAILED : FV_COMPLETED;
        return waited_s >= FABRIC_GRACE_S ? FV_INCOMPLETE : FV_WAITING;
}

VIGIL_HOT static void step_fabric(struct nvlink_watch *w, const struct gpu_frame *g,
                                  double waited_s, nvlink_emit_fn emit, void *arg)
{
        char text[192], faults[96];
        struct strbuf sb;
        enum fabric_verdict v = fabric_verdict(g, waited_s);
        if (v == FV_NONE)
                return;
        const char *probe = fabric_state_name((unsigned)g->fabric_state);
        if (v != w->fabric &&
            (v == FV_INCOMPLETE || v == FV_FAILED ||
             (v == FV_COMPLETED && (w->fabric == FV_INCOMPLETE || w->fabric == FV_FAILED)))) {
                sb_init_fixed(&sb, text, sizeof(text));
                sb_printf(&sb, " gpu=%u state=%s fabric=%s", g->index,
                          v == FV_INCOMPLETE ? "incomplete"
                          : v == FV_FAILED   ? "failed"
                                             : "completed",
                          probe);
                if (v == FV_FAILED)
                        sb_printf(&sb, " status=%.0f", g->fabric_status);
                emit(arg, EV_FABRIC, text);
                /* The two share gpuN.fabric: a completed line clears it, so faults still
                 * there are said again after it. */
                if (v == FV_COMPLETED)
                        w->faults[0] = '\0';
        }
        w->fabric = v;
        if (!VAL_OK(g->fabric_health_mask))
                return;
        sb_init_fixed(&sb, faults, sizeof(faults));
        fabric_health_faults((unsigned)g->fabric_health_mask, &sb);
        /* The faults' end while the probe is incomplete or failed would clear that too:
         * the completed line does it. */
        if (!strcmp(faults, w->faults) || (!faults[0] && (v == FV_INCOMPLETE || v == FV_FAILED)))
                return;
        if (faults[0])
                snprintf(text, sizeof(text), " gpu=%u state=degraded health=%s", g->index, faults);
        else
                snprintf(text, sizeof(text), " gpu=%u state=healthy", g->index);
        emit(arg, EV_FABRIC, text);
        snprintf(w->faults, sizeof(w->faults), "%s", faults);
}

VIGIL_HOT void nvlink_watch_step(struct nvlink_watch *w, const struct gpu_frame *g, double uptime_s,
                                 int64_t mono_ns, nvlink_emit_fn emit, void *arg)
{
        for (unsigned l = 0; l < g->nvlinks && l < VIGIL_MAX_NVLINKS; l++) {
                step_state(w, g, l, emit, arg);
                step_counters(w, g, l, mono_ns, emit, arg);
        }
        step_fabric(w, g, uptime_s, emit, arg);
}

/* ---- The detector ---- */

struct nvlink_rules {
        /* Sized for every GPU slot but touched only for the GPUs sampled: a watch is
         * made fresh at its GPU's first sample (seen[]), so the pages of absent GPUs'
         * watches are never written (calloc'd memory stays unmapped until then). */
        struct nvlink_watch gpu[VIGIL_MAX_GPUS];
        bool seen[VIGIL_MAX_GPUS];
        int64_t start_ns; /* the first tick: the probe's wait when the uptime is unknown */
        struct vigil_ctx *ctx;
        int64_t real_ns;
};

static void to_eventlog(void *arg, enum event_kind kind, const char *text)
{
        struct nvlink_rules *s = arg;
        eventlog_event(s->ctx->events, s->real_ns, kind, "%s", text + 1);
}

static int nr_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->nvml)
                return -ENODEV; /* no NVML: no GPU to watch */
        struct nvlink_rules *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *ret_state = s;
        return 0;
}

VIGIL_HOT static void nr_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct nvlink_rules *s = state;
        const struct frame *f = ctx->frame;
        if (!s->start_ns)
                s->start_ns = t->mono_ns;
        s->ctx = ctx;
        s->real_ns = t->real_ns;
        double up = f->host.uptime_s;
        if (!VAL_OK(up))
                up = (double)(t->mono_ns - s->start_ns) / 1e9;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                if (!(g->present && g->ok && g->sampled))
                        continue;
                if (!s->seen[i]) {
                        nvlink_watch_init(&s->gpu[i]);
                        s->seen[i] = true;
                }
                nvlink_watch_step(&s->gpu[i], g, up, t->mono_ns, to_eventlog, s);
        }
}

static void nr_fini(void *state)
{
        free(state);
}

const struct vigil_detector vigil_detector_nvlink = {
    .name = "nvlink",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = nr_init,
    .feed = nr_feed,
    .fini = nr_fini,
};
