/* The remote-write push's own families on /metrics. See metrics.h.
 *
 *   # HELP vigil_remote_write_queue_bytes Bytes of the on-disk remote-write queue.
 *   # TYPE vigil_remote_write_queue_bytes gauge
 *   vigil_remote_write_queue_bytes 18432
 */
#include <math.h>

#include "core/metric_defs.h"
#include "sink/metrics.h"

static void family(struct strbuf *out, enum counter_family id)
{
        const struct metric_def *d = &counter_families[id];
        sb_printf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name, d->type);
}

/* The family's one sample, labels (NULL: none) as written between braces. */
static void value(struct strbuf *out, enum counter_family id, const char *labels, double v)
{
        char num[40];
        metrics_fmt_value(num, sizeof(num), v);
        if (labels)
                sb_printf(out, "%s{%s} %s\n", counter_families[id].name, labels, num);
        else
                sb_printf(out, "%s %s\n", counter_families[id].name, num);
}

void metrics_render_push(struct strbuf *out, const struct push_counters *p)
{
        if (!p->on)
                return;
        family(out, CF_RW_QUEUE_BYTES);
        value(out, CF_RW_QUEUE_BYTES, NULL, (double)p->queue_bytes);
        family(out, CF_RW_QUEUE_SAMPLES);
        value(out, CF_RW_QUEUE_SAMPLES, NULL, (double)p->queue_samples);
        if (!isnan(p->oldest_age_s)) {
                family(out, CF_RW_OLDEST_AGE);
                value(out, CF_RW_OLDEST_AGE, NULL, p->oldest_age_s);
        }
        family(out, CF_RW_SENT);
        value(out, CF_RW_SENT, NULL, (double)p->sent);
        family(out, CF_RW_RETRIED);
        value(out, CF_RW_RETRIED, NULL, (double)p->retried);
        family(out, CF_RW_DROPPED);
        value(out, CF_RW_DROPPED, "reason=\"queue_full\"", (double)p->dropped_full);
        value(out, CF_RW_DROPPED, "reason=\"queue_write_error\"", (double)p->dropped_write);
        value(out, CF_RW_DROPPED, "reason=\"rejected\"", (double)p->dropped_reject);
        family(out, CF_RW_FAILED);
        value(out, CF_RW_FAILED, NULL, (double)p->failed);
        if (!isnan(p->last_success_s)) {
                family(out, CF_RW_LAST_SUCCESS);
                value(out, CF_RW_LAST_SUCCESS, NULL, p->last_success_s);
        }
}
