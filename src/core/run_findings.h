/* The findings of the running daemon (core/findings.h): the events.log lines it wrote
 * (fed through the events tap) and its counters, for the exit summary, `vigil status`
 * and the dashboard. Main loop's thread. */
#ifndef VIGIL_CORE_RUN_FINDINGS_H
#define VIGIL_CORE_RUN_FINDINGS_H

#include <stdint.h>

#include "core/findings.h"
#include "core/vigil.h"

/* Into *out (overwritten): a copy of ctx->findings (the events so far) with the
 * counters of the frame and ctx->extra added, sorted. missed: the scheduler's missed
 * deadlines. Sources: host always, "pi" on a Raspberry Pi, each GPU found. */
void run_findings_build(const struct vigil_ctx *ctx, uint64_t missed, struct findings *out);

#endif
