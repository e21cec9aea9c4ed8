/* SPDX-License-Identifier: Apache-2.0 */
/* Sink: summary.log every 5 minutes, and the status line. See gpu_summary.h. */
#include "local/gpu_summary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gpu_status.h"
#include "core/vigil.h"
#include "local/gpu_sinks.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/hot.h"

int summary_append(const char *dir, const char *text, size_t len, uint64_t max_bytes)
{
        char path[1100], old[1100];
        struct stat st;
        snprintf(path, sizeof(path), "%s/summary.log", dir);
        snprintf(old, sizeof(old), "%s/summary.log.1", dir);
        if (stat(path, &st) == 0 && (uint64_t)st.st_size > max_bytes)
                rename(path, old);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (fd < 0)
                return -errno;
        ssize_t w = write(fd, text, len);
        int r = w == (ssize_t)len ? 0 : w < 0 ? -errno : -ENOSPC;
        close(fd);
        return r;
}

/* The sink: every 5 minutes of the GPU clock, a line per GPU, then new periods. */
struct gpu_summary {
        int64_t last_mono_ns; /* start, then the last summary */
        char text[VIGIL_MAX_GPUS * 512];
        char status[512];
};

static int gpu_summary_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->nvml)
                return -ENODEV;
        struct gpu_summary *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->last_mono_ns = ctx->frame->self.started_mono_ns;
        *ret_state = s;
        return 0;
}

static void reset_period(struct gpu_stats *s)
{
        s->period_samples = s->period_failed_samples = s->period_crashes = 0;
        for (unsigned k = 0; k < GPU_ANOM_COUNT; k++)
                s->period_anomalies[k] = 0;
}

VIGIL_HOT static int gpu_summary_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct gpu_summary *s = state;
        struct frame *f = ctx->frame;
        struct strbuf sb, line;
        int r = 0;
        if (t->mono_ns - s->last_mono_ns < SUMMARY_INTERVAL_NS)
                return 0;
        double window = (double)(t->mono_ns - s->last_mono_ns) / 1e9;
        int64_t up = (t->mono_ns - f->self.started_mono_ns) / NSEC_PER_SEC;
        s->last_mono_ns = t->mono_ns;
        sb_init_fixed(&sb, s->text, sizeof(s->text));
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                sb_init_fixed(&line, s->status, sizeof(s->status));
                gpu_status_line(&line, &f->gpu_stats[i], up);
                vlog(LOG_INFO, "gpu%u: %s", f->gpus[i].index, s->status);
                gpu_summary_line(&sb, &f->gpu_stats[i], up, window, t->real_ns, f->gpus[i].index);
                reset_period(&f->gpu_stats[i]);
        }
        if (ctx->log_dir && !ctx->disk_paused && sb.len) {
                r = summary_append(ctx->log_dir, sb.buf, sb.len, SUMMARY_MAX_BYTES);
                if (r < 0)
                        f->self.write_errors++;
        }
        return r;
}

/* At exit, the reference's last Status line, one per GPU. */
static void gpu_summary_fini(void *state, struct vigil_ctx *ctx)
{
        struct gpu_summary *s = state;
        const struct frame *f = ctx->frame;
        int64_t up = (now_mono_ns() - f->self.started_mono_ns) / NSEC_PER_SEC;
        struct strbuf line;
        for (unsigned i = 0; s && i < f->ngpus && i < VIGIL_MAX_GPUS; i++) {
                sb_init_fixed(&line, s->status, sizeof(s->status));
                gpu_status_line(&line, &f->gpu_stats[i], up);
                vlog(LOG_INFO, "gpu%u: %s", f->gpus[i].index, s->status);
        }
        free(s);
}

const struct vigil_sink vigil_sink_gpu_summary = {
    .name = "gpu-summary",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = gpu_summary_init,
    .write = gpu_summary_write,
    .fini = gpu_summary_fini,
};
