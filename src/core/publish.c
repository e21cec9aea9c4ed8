/* SPDX-License-Identifier: Apache-2.0 */
/* The copy of the frame, counters and findings that threads other than the loop read
 * (HTTP, remote-write), and the flush every sink before a snapshot. See core/vigil.h. */
#include <string.h>

#include "core/counters.h"
#include "core/eventlog.h"
#include "core/findings.h"
#include "core/health.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/hot.h"
#include "util/log.h"

uint64_t vigil_published_copy(struct vigil_ctx *ctx, struct frame *out, struct counters *extra)
{
        pthread_mutex_lock(&ctx->pub_lock);
        uint64_t seq = ctx->published_seq;
        if (seq)
                frame_copy_live(out, ctx->published, true);
        if (seq && extra)
                counters_copy(extra, ctx->published_extra, ctx->published->ngpus);
        pthread_mutex_unlock(&ctx->pub_lock);
        return seq;
}

VIGIL_HOT void vigil_publish(struct vigil_ctx *ctx)
{
        if (!ctx->publish_wanted)
                return;
        pthread_mutex_lock(&ctx->pub_lock);
        bool procs_moved = ctx->published->gpu_procs_gen != ctx->frame->gpu_procs_gen;
        /* The slots of the GPUs present only (frame_copy_live); the process lists when
         * they moved. */
        frame_copy_live(ctx->published, ctx->frame, procs_moved || ctx->published_seq == 0);
        counters_copy(ctx->published_extra, ctx->extra, ctx->frame->ngpus);
        ctx->published->self.write_errors += eventlog_write_errors(ctx->events);
        /* The findings change with events only: copied when they did. */
        if (ctx->findings && ctx->published_findings &&
            ctx->published_findings->gen != ctx->findings->gen)
                findings_copy(ctx->published_findings, ctx->findings);
        if (ctx->health && ctx->published_health && ctx->published_health->gen != ctx->health->gen)
                health_copy(ctx->published_health, ctx->health);
        ctx->published_seq++;
        pthread_mutex_unlock(&ctx->pub_lock);
}

uint64_t vigil_published_health(struct vigil_ctx *ctx, struct health *out)
{
        pthread_mutex_lock(&ctx->pub_lock);
        uint64_t seq = ctx->published_health ? ctx->published_seq : 0;
        if (seq)
                health_copy(out, ctx->published_health);
        pthread_mutex_unlock(&ctx->pub_lock);
        return seq;
}

/* Say a failed sync or write-back of the logs, once a minute at most: the lines since
 * the last good one may not be on the disk (a failing SD card shows here first). */
static void say_sync_error(struct vigil_ctx *ctx, int err)
{
        struct fssync *s = ctx->log_sync;
        if (!ratelimit_ok(&s->said, now_mono_ns(), NULL))
                return;
        vlog(LOG_WARN,
             "syncing the logs in %s failed: %s (%llu failed syncs so far); the lines since "
             "the last good sync may not be on the disk; retrying every round",
             ctx->log_dir ? ctx->log_dir : ".", strerror(-err), (unsigned long long)s->errors);
}

/* The round over every log that got lines, started by the caller; a failed sync is
 * said (once a minute at most) and its file stays unsynced, for the next round. */
VIGIL_HOT static void end_round(struct vigil_ctx *ctx)
{
        if (ctx->flush_sinks)
                ctx->flush_sinks(ctx);
        eventlog_sync_in(ctx->events, ctx->log_sync);
        int r = fssync_end(ctx->log_sync);
        if (r < 0) {
                ctx->frame->self.sync_errors = ctx->log_sync->errors;
                say_sync_error(ctx, r);
        }
}

void vigil_flush_all(struct vigil_ctx *ctx)
{
        fssync_begin(ctx->log_sync);
        end_round(ctx);
}

VIGIL_HOT void vigil_flush_due(struct vigil_ctx *ctx)
{
        fssync_begin_periodic(ctx->log_sync);
        end_round(ctx);
}

VIGIL_HOT void vigil_watch_logs(struct vigil_ctx *ctx, int64_t now_ns)
{
        fssync_begin_watch(ctx->log_sync, now_ns);
        end_round(ctx);
}
