/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: fewer GPUs answering than the machine should have (core/gpu_count.h). At
 * start it takes the expected count (expected-gpus, else the run state file's, else
 * NVML's count now); at every tick it counts the GPUs answering and, when that falls
 * short or is whole again, writes one events.log line (the findings read it):
 *   type=GPU_COUNT state=missing answering=1 expected=2 from=state
 *   type=GPU_COUNT state=back answering=2 expected=2 from=state
 * The counts go to /metrics through the counters (vigil_gpus_expected,
 * vigil_gpus_answering). The state file itself is written by the postmortem sink,
 * which keeps the count (local/postmortem_sink.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_lib.h"
#include "core/counters.h"
#include "core/eventlog.h"
#include "core/gpu_count.h"
#include "core/runstate.h"
#include "core/vigil.h"
#include "detect/gpu_missing.h"
#include "util/log.h"
#include "util/hot.h"

struct gpu_missing {
        struct gpu_expect expect;
        unsigned counted; /* NVML's count at start (0 when absent) */
        struct gpu_count_state st;
        bool failed_since_lost[VIGIL_MAX_GPUS]; /* a sample failed after the kernel's loss */
};

/* The GPUs the kernel log says are lost that still count as answering (a sample of the
 * slot succeeds: the library's cached answer, a simulator): not answering, until a
 * sample fails and a later one succeeds again, when the loss is over. */
static unsigned lost_in_kernel_log(struct gpu_missing *s, struct vigil_ctx *ctx)
{
        unsigned n = 0;
        for (unsigned i = 0; i < ctx->frame->ngpus && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &ctx->frame->gpus[i];
                if (!ctx->gpu_lost_klog[i]) {
                        s->failed_since_lost[i] = false;
                        continue;
                }
                bool failing = g->present && g->consecutive_failures > 0;
                if (failing) {
                        s->failed_since_lost[i] = true;
                        continue; /* counted as failing already */
                }
                if (s->failed_since_lost[i] && g->present) {
                        ctx->gpu_lost_klog[i] = false; /* it answers again */
                        s->failed_since_lost[i] = false;
                        continue;
                }
                n++;
        }
        return n;
}

/* NVML's GPU count at this start: -1 when it was not asked (--gpu none), 0 when the
 * library is absent or failed. */
int gpu_missing_seen(const struct vigil_ctx *ctx)
{
        if (!strcmp(ctx->opt->gpu_list, "none"))
                return -1;
        return ctx->nvml ? (int)ctx->nvml->device_count : 0;
}

static int gm_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct runstate prev;
        bool known = false;
        unsigned remembered = 0;
        int seen = gpu_missing_seen(ctx);
        if (ctx->log_dir && runstate_load(ctx->log_dir, &prev) == 0) {
                known = prev.gpus_known;
                remembered = prev.gpus;
        }
        struct gpu_expect e = gpu_count_expect(ctx->opt->expected_gpus, known, remembered, seen);
        if (e.from == GPU_EXPECT_NONE)
                return -ENODEV; /* nothing expected: no check, no series */
        struct gpu_missing *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->expect = e;
        s->counted = seen > 0 ? (unsigned)seen : 0;
        ctx->extra->gpus_known = true;
        ctx->extra->gpus_expected = e.expected;
        ctx->extra->gpus_answering = gpu_count_answering(s->counted, ctx->frame);
        if (s->counted < e.expected)
                vlog(LOG_WARN, "GPUs: %u of %u expected answer (expected: %s)", s->counted,
                     e.expected, gpu_expect_from_name(e.from));
        *ret_state = s;
        return 0;
}

VIGIL_HOT static void gm_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct gpu_missing *s = state;
        unsigned n = gpu_count_answering(s->counted, ctx->frame);
        unsigned lost = lost_in_kernel_log(s, ctx);
        n = lost < n ? n - lost : 0;
        ctx->extra->gpus_answering = n;
        enum gpu_count_change c = gpu_count_step(&s->st, &s->expect, n);
        if (c == GPU_COUNT_SAME)
                return;
        eventlog_event(ctx->events, t->real_ns, EV_GPU_COUNT,
                       "state=%s answering=%u expected=%u from=%s",
                       c == GPU_COUNT_MISSING ? "missing" : "back", n, s->expect.expected,
                       gpu_expect_from_name(s->expect.from));
}

static void gm_fini(void *state)
{
        free(state);
}

const struct vigil_detector vigil_detector_gpu_missing = {
    .name = "gpu-missing",
    .clocks = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
    .init = gm_init,
    .feed = gm_feed,
    .fini = gm_fini,
};
