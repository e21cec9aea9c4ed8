/* The remote-write push's own families on /metrics. See metrics.h.
 *
 *   # HELP vigil_remote_write_queue_bytes Bytes of the on-disk remote-write queue.
 *   # TYPE vigil_remote_write_queue_bytes gauge
 *   vigil_remote_write_queue_bytes 18432
 */
#include <math.h>

#include "sink/metrics.h"

static void family(struct strbuf *out, const char *name, const char *type, const char *help)
{
        sb_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void value(struct strbuf *out, const char *series, double v)
{
        char num[40];
        metrics_fmt_value(num, sizeof(num), v);
        sb_printf(out, "%s %s\n", series, num);
}

void metrics_render_push(struct strbuf *out, const struct push_counters *p)
{
        if (!p->on)
                return;
        family(out, "vigil_remote_write_queue_bytes", "gauge",
               "Bytes of the on-disk remote-write queue.");
        value(out, "vigil_remote_write_queue_bytes", (double)p->queue_bytes);
        family(out, "vigil_remote_write_queue_samples", "gauge",
               "Samples waiting in the remote-write queue.");
        value(out, "vigil_remote_write_queue_samples", (double)p->queue_samples);
        if (!isnan(p->oldest_age_s)) {
                family(out, "vigil_remote_write_oldest_sample_age_seconds", "gauge",
                       "Age of the oldest sample waiting in the remote-write queue.");
                value(out, "vigil_remote_write_oldest_sample_age_seconds", p->oldest_age_s);
        }
        family(out, "vigil_remote_write_samples_sent_total", "counter",
               "Samples the remote-write receiver accepted.");
        value(out, "vigil_remote_write_samples_sent_total", (double)p->sent);
        family(out, "vigil_remote_write_samples_retried_total", "counter",
               "Samples sent again after a failed remote-write request.");
        value(out, "vigil_remote_write_samples_retried_total", (double)p->retried);
        family(out, "vigil_remote_write_samples_dropped_total", "counter",
               "Samples never pushed, by reason.");
        value(out, "vigil_remote_write_samples_dropped_total{reason=\"queue_full\"}",
              (double)p->dropped_full);
        value(out, "vigil_remote_write_samples_dropped_total{reason=\"queue_write_error\"}",
              (double)p->dropped_write);
        value(out, "vigil_remote_write_samples_dropped_total{reason=\"rejected\"}",
              (double)p->dropped_reject);
        family(out, "vigil_remote_write_failed_requests_total", "counter",
               "Remote-write requests that failed (network, HTTP 4xx and 5xx).");
        value(out, "vigil_remote_write_failed_requests_total", (double)p->failed);
        if (!isnan(p->last_success_s)) {
                family(out, "vigil_remote_write_last_success_timestamp_seconds", "gauge",
                       "When the receiver last accepted a push, seconds since the epoch.");
                value(out, "vigil_remote_write_last_success_timestamp_seconds", p->last_success_s);
        }
}
