/* Sink: summary.log every 5 minutes, and the status line. See gpu_summary.h. */
#include "sink/gpu_summary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/vigil.h"
#include "sink/gpu_sinks.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"

/* The reference starts its peaks at 0. */
static double peak(double v)
{
        return VAL_OK(v) ? v : 0.0;
}

void gpu_status_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s)
{
        const uint64_t *a = s->anomalies, *p = s->period_anomalies;
        sb_printf(sb,
                  "Status: %lldh%lldm | %llu samples | %llu spk | %llu crash | pwr %llu (+%llu/5m) "
                  "| inv %llu (+%llu/5m) | spur %llu (+%llu/5m) | tdp_chg %llu | peak: %.0fC/%.0fW",
                  (long long)(uptime_s / 3600), (long long)(uptime_s % 3600 / 60),
                  (unsigned long long)s->samples, (unsigned long long)a[GPU_ANOM_FAN_SPIKE],
                  (unsigned long long)s->crashes, (unsigned long long)a[GPU_ANOM_POWER_BREACH],
                  (unsigned long long)p[GPU_ANOM_POWER_BREACH],
                  (unsigned long long)a[GPU_ANOM_FAN_INVERSION],
                  (unsigned long long)p[GPU_ANOM_FAN_INVERSION],
                  (unsigned long long)a[GPU_ANOM_SPURIOUS_THROTTLE],
                  (unsigned long long)p[GPU_ANOM_SPURIOUS_THROTTLE],
                  (unsigned long long)a[GPU_ANOM_TDP_CHANGE], peak(s->peak_temp_c),
                  peak(s->peak_power_w));
}

void gpu_summary_line(struct strbuf *sb, const struct gpu_stats *s, int64_t uptime_s,
                      double window_s, int64_t real_ns, unsigned index)
{
        char ts[48];
        const uint64_t *a = s->anomalies, *p = s->period_anomalies;
        if (window_s < 1.0)
                window_s = 1.0;
        double per_min = 60.0 / window_s;
        fmt_time_iso_us(ts, sizeof(ts), real_ns);
        sb_printf(sb,
                  "%s | %lldh%lldm | window=%.0fs | samples=%llu (+%llu) spikes=%llu crashes=%llu ",
                  ts, (long long)(uptime_s / 3600), (long long)(uptime_s % 3600 / 60), window_s,
                  (unsigned long long)s->samples, (unsigned long long)s->period_samples,
                  (unsigned long long)a[GPU_ANOM_FAN_SPIKE], (unsigned long long)s->crashes);
        sb_printf(sb,
                  "pwr_breaches=%llu (rate=%.1f/min) fan_inversions=%llu (rate=%.1f/min) "
                  "spurious_throttles=%llu (rate=%.1f/min) ",
                  (unsigned long long)a[GPU_ANOM_POWER_BREACH],
                  (double)p[GPU_ANOM_POWER_BREACH] * per_min,
                  (unsigned long long)a[GPU_ANOM_FAN_INVERSION],
                  (double)p[GPU_ANOM_FAN_INVERSION] * per_min,
                  (unsigned long long)a[GPU_ANOM_SPURIOUS_THROTTLE],
                  (double)p[GPU_ANOM_SPURIOUS_THROTTLE] * per_min);
        sb_printf(sb, "tdp_changes=%llu (period=%llu) peak_temp=%.0fC peak_power=%.0fW gpu=%u\n",
                  (unsigned long long)a[GPU_ANOM_TDP_CHANGE],
                  (unsigned long long)p[GPU_ANOM_TDP_CHANGE], peak(s->peak_temp_c),
                  peak(s->peak_power_w), index);
}

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

static int gpu_summary_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
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

const struct vigil_sink sink_gpu_summary = {
    .name = "gpu-summary",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = gpu_summary_init,
    .write = gpu_summary_write,
    .fini = gpu_summary_fini,
};
