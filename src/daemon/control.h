/* SPDX-License-Identifier: Apache-2.0 */
/* Talking to a running instance. `vigil status` sends SIGUSR1 to the pid in the lock
 * file; the daemon writes DIR/status.txt (atomically, by rename) and the command prints
 * it. `vigil snapshot [REASON]` writes DIR/snapshot.request and sends SIGUSR2; the
 * daemon takes the reason and raises ctx->snapshot_requested for the snapshot writers. */
#ifndef VIGIL_CORE_CONTROL_H
#define VIGIL_CORE_CONTROL_H

#include <stdint.h>

#include "daemon/sched.h"
#include "core/vigil.h"
#include "util/strbuf.h"

/* Daemon side (main thread): the status text, also printed to stderr (the reference's
 * SIGUSR1 line) and written to DIR/status.txt. */
void control_status_text(struct vigil_ctx *ctx, const struct sched *s, int64_t real_ns,
                         struct strbuf *out);
void control_write_status(struct vigil_ctx *ctx, const struct sched *s, int64_t real_ns);
/* Daemon side: read DIR/snapshot.request into ctx->snapshot_reason and set
 * ctx->snapshot_requested. */
void control_take_snapshot_request(struct vigil_ctx *ctx);

/* Command side: `vigil status` and `vigil snapshot [REASON]` for the instance writing
 * to log_dir. Return the exit status (0 ok, 1 no instance or no answer). */
int control_cmd_status(const char *log_dir);
int control_cmd_snapshot(const char *log_dir, const char *reason);

#endif
