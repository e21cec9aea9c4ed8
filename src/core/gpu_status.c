/* SPDX-License-Identifier: Apache-2.0 */
/* The status and summary lines of one GPU. See gpu_status.h. */
#include "core/gpu_status.h"

#include "util/fmt.h"

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
