/* SPDX-License-Identifier: Apache-2.0 */
/* Source: keeps the kernel log ring (kmsg.h) current by draining /dev/kmsg on every
 * host tick, and publishes it as ctx->kmsg for the snapshot writers. The daemon waits
 * on the device between ticks and drains it when lines come; a tick whose wait found
 * the device quiet reads nothing (kmsg_drain_pending). Code that takes a snapshot
 * between host ticks calls kmsg_drain(ctx->kmsg) first to add the newest lines. */
#include <errno.h>

#include "collect/kmsg.h"
#include "core/vigil.h"
#include "util/log.h"
#include "util/hot.h"

static int kmsg_src_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct kmsg *k;
        int r = kmsg_open(&k, ctx->opt->root, KMSG_DEFAULT_RECORDS);
        if (r < 0)
                return r;
        /* All the kernel holds, so the lines before the start are in the snapshots
         * and the scanners of new lines (detect/kernel_gpu.c) start after them. */
        int drained = kmsg_drain_to_start(k, 64);
        const char *why = kmsg_take_error(k);
        /* A machine without /dev/kmsg (a container) simply has no kernel log; a
         * permission problem is worth saying once, with what fixes it. */
        if (why && drained != -ENOENT)
                vlog(LOG_INFO, "%s; snapshots will not include it", why);
        ctx->kmsg = k;
        *ret_state = k;
        return 0;
}

VIGIL_HOT static int kmsg_src_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        (void)ctx;
        (void)t;
        int r = kmsg_drain_pending(state);
        /* An unreadable log was reported once at start; it is not a sampling failure. */
        return r < 0 && !kmsg_error(state) ? r : 0;
}

static void kmsg_src_fini(void *state)
{
        kmsg_close(state);
}

const struct vigil_source vigil_source_kmsg = {
    .name = "kmsg",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = kmsg_src_init,
    .sample = kmsg_src_sample,
    .fini = kmsg_src_fini,
};
