/* SPDX-License-Identifier: Apache-2.0 */
/* The findings of the running daemon (core/findings.h): the events.log lines it wrote
 * (fed through the events tap) and its counters, for the exit summary, `vigil status`
 * and the dashboard. Main loop's thread. */
#ifndef VIGIL_CORE_RUN_FINDINGS_H
#define VIGIL_CORE_RUN_FINDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/findings.h"
#include "core/vigil.h"

struct counters;

/* What the findings of a run are built from (any thread, given copies). */
struct run_findings_in {
        const struct frame *frame;
        const struct counters *extra;  /* NULL: the counters kept outside the frame unknown */
        const struct findings *events; /* from events.log lines; NULL: none */
        uint64_t missed;               /* the scheduler's missed deadlines */
        bool disk_paused;              /* writes are paused now */
};

/* Into *out (overwritten): a copy of in->events with the counters of the frame and
 * in->extra added, sorted. Sources: host always, "pi" on a Raspberry Pi, each GPU. */
void run_findings_from(const struct run_findings_in *in, struct findings *out);

/* run_findings_from() on the main loop's own state (ctx->frame, ctx->extra,
 * ctx->findings). */
void run_findings_build(const struct vigil_ctx *ctx, uint64_t missed, struct findings *out);

/* Allocate ctx->findings (and its published copy) and set the events.log tap that
 * feeds them and, with --listen, the dashboard's history (ctx->history, created here);
 * under --no-log the events log is one without a file. Without memory there are no
 * findings or charts, and the daemon still runs. Main thread, before the plug-ins. */
void run_findings_start(struct vigil_ctx *ctx, const struct vigil_options *opt);

/* The exit summary's first block ("What happened: ..."), to stdout. */
void run_findings_print(const struct vigil_ctx *ctx, uint64_t missed);

#endif
