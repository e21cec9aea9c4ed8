/* SPDX-License-Identifier: Apache-2.0 */
/* /metrics: the families of what is counted outside the frame's values (struct counters
 * in core/counters.h, struct gpu_stats and struct self_frame in core/frame.h), one row
 * each in exposition order: its name, type, help and the function that writes its
 * samples. See metrics_render.h.
 *
 *   # HELP vigil_remote_write_queue_bytes Bytes of the on-disk remote-write queue.
 *   # TYPE vigil_remote_write_queue_bytes gauge
 *   vigil_remote_write_queue_bytes 18432
 */
#include <math.h>
#include <stdint.h>

#include "collect/gpu_klog.h"
#include "core/throttle_reasons.h"
#include "core/vigil.h"
#include "metrics/metrics.h"
#include "metrics/metrics_render.h"
#include "report/pm_cause.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "unknown"
#endif

/* ---- per GPU: struct gpu_counters ---- */

static void xid_errors(struct render *r, const struct render_src *s)
{
        char code[12];
        for (unsigned i = 0; s->x && i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_counters *g = &s->x->gpus[i];
                const char *base = s->gpu_bases[i];
                unsigned n = g->nxids < COUNTERS_MAX_XIDS ? g->nxids : COUNTERS_MAX_XIDS;
                for (unsigned j = 0; base && j < n; j++) {
                        metrics_fmt_value(code, sizeof(code), g->xids[j].xid);
                        metrics_sample(r, base, "xid", code, (double)g->xids[j].count);
                }
                if (base && g->xids_other)
                        metrics_sample(r, base, "xid", "other", (double)g->xids_other);
        }
}

static void gpu_events(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; s->x && i < VIGIL_MAX_GPUS; i++) {
                for (unsigned k = 0; s->gpu_bases[i] && k < GPU_EV_COUNT; k++)
                        metrics_sample(r, s->gpu_bases[i], "type", gpu_event_type_names[k],
                                       (double)s->x->gpus[i].events[k]);
        }
}

/* ---- per GPU: the GPU rules' statistics (struct gpu_stats in the frame) ---- */

static void anomalies(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_stats *st = &s->f->gpu_stats[i];
                for (unsigned k = 0; s->gpu_bases[i] && k < GPU_ANOM_COUNT; k++)
                        if (st->anomalies[k])
                                metrics_sample(r, s->gpu_bases[i], "type", gpu_anomaly_names[k],
                                               (double)st->anomalies[k]);
        }
}

static void throttle_seconds(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                for (unsigned b = 0; s->gpu_bases[i] && b < GPU_THROTTLE_BITS; b++)
                        if (throttle_reasons[b].label)
                                metrics_sample(r, s->gpu_bases[i], "reason",
                                               throttle_reasons[b].label,
                                               s->f->gpu_stats[i].throttle_seconds[b]);
        }
}

static void nvml_failures(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (s->gpu_bases[i])
                        metrics_sample(r, s->gpu_bases[i], NULL, NULL,
                                       (double)s->f->gpu_stats[i].failed_samples);
        }
}

/* ---- struct counters ---- */

static void snapshots_suppressed(struct render *r, const struct render_src *s)
{
        if (s->x)
                metrics_sample(r, NULL, NULL, NULL, (double)s->x->snapshots_suppressed);
}

static void listener_restarts(struct render *r, const struct render_src *s)
{
        if (s->x)
                metrics_sample(r, NULL, NULL, NULL, (double)s->x->event_listener_restarts);
}

static unsigned nrules(const struct counters *x)
{
        return !x ? 0 : x->nrules < COUNTERS_MAX_RULES ? x->nrules : COUNTERS_MAX_RULES;
}

static void rule_active(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; i < nrules(s->x); i++)
                metrics_sample(r, NULL, "rule", s->x->rules[i].name, s->x->rules[i].active ? 1 : 0);
}

static void rule_fired(struct render *r, const struct render_src *s)
{
        for (unsigned i = 0; i < nrules(s->x); i++)
                metrics_sample(r, NULL, "rule", s->x->rules[i].name, (double)s->x->rules[i].fired);
}

/* The health verdict: one series per component, the state as its value (0 healthy, 1
 * degraded, 2 unhealthy), as node_exporter's *_state-less gauges do, so that a change
 * of state moves a value instead of ending one series and starting another; the reason
 * and the action are in /health and `vigil health`, not in labels. */
static void health_state(struct render *r, const struct render_src *s)
{
        unsigned n =
            s->x && s->x->nhealth < COUNTERS_MAX_HEALTH ? s->x->nhealth : COUNTERS_MAX_HEALTH;
        for (unsigned i = 0; s->x && i < n; i++)
                metrics_sample(r, NULL, "component", s->x->health[i].component,
                               s->x->health[i].state);
}

/* How earlier runs ended: the end kinds' names as core/runstate.h has them. */
static const char *const run_kinds[] = {"first", "clean", "killed", "reboot", "unknown"};

static void unclean_ends(struct render *r, const struct render_src *s)
{
        for (unsigned k = 0; s->x && s->x->runs_known && k < 3; k++)
                metrics_sample(r, NULL, "kind", run_kinds[2 + k], (double)s->x->unclean_ends[k]);
}

static void previous_run_end(struct render *r, const struct render_src *s)
{
        if (s->x && s->x->runs_known && s->x->previous_end >= 0 && s->x->previous_end < 5)
                metrics_sample(r, NULL, "kind", run_kinds[s->x->previous_end], 1);
}

/* ---- the GPU count check (core/gpu_count.h, set by detect/gpu_missing.c) ---- */

/* No sample unless gpus_known: a machine that has had GPUs. */
static void gpus_expected(struct render *r, const struct render_src *s)
{
        if (s->x && s->x->gpus_known)
                metrics_sample(r, NULL, NULL, NULL, (double)s->x->gpus_expected);
}

static void gpus_answering(struct render *r, const struct render_src *s)
{
        if (s->x && s->x->gpus_known)
                metrics_sample(r, NULL, NULL, NULL, (double)s->x->gpus_answering);
}

/* ---- vigil itself: struct self_frame ---- */

static const char *const clock_names[VCLOCK_COUNT] = {"host", "gpu", "pss"};

static void samples(struct render *r, const struct render_src *s)
{
        for (unsigned c = 0; c < VCLOCK_COUNT; c++)
                metrics_sample(r, NULL, "source", clock_names[c], (double)s->f->self.samples[c]);
}

static void sample_duration(struct render *r, const struct render_src *s)
{
        for (unsigned c = 0; c < VCLOCK_COUNT; c++) {
                if (s->f->self.samples[c])
                        metrics_sample(r, NULL, "source", clock_names[c],
                                       s->f->self.sample_seconds[c]);
        }
}

static void missed_deadlines(struct render *r, const struct render_src *s)
{
        metrics_sample(r, NULL, NULL, NULL, (double)s->f->self.missed_deadlines);
}

static void write_errors(struct render *r, const struct render_src *s)
{
        metrics_sample(r, NULL, NULL, NULL, (double)s->f->self.write_errors);
}

static void sync_errors(struct render *r, const struct render_src *s)
{
        metrics_sample(r, NULL, NULL, NULL, (double)s->f->self.sync_errors);
}

static void events_dropped(struct render *r, const struct render_src *s)
{
        metrics_sample(r, NULL, NULL, NULL, (double)s->f->self.events_dropped);
}

static void snapshots(struct render *r, const struct render_src *s)
{
        metrics_sample(r, NULL, NULL, NULL, (double)s->f->self.snapshots);
}

static void start_time(struct render *r, const struct render_src *s)
{
        /* To the millisecond: finer digits say nothing and cost a slow conversion. */
        if (s->f->self.started_real_ns > 0)
                metrics_sample(r, NULL, NULL, NULL,
                               (double)(s->f->self.started_real_ns / 1000000) / 1e3);
}

static void build_info(struct render *r, const struct render_src *s)
{
        (void)s;
        metrics_sample(r, NULL, "version", VIGIL_VERSION, 1);
}

/* vigil_machine_info{machine_id,hardware_id,hardware_id_source} 1: which machine this
 * is, for joins (a scrape's target, or a pushed series' instance, names only a host). */
static void machine_info(struct render *r, const struct render_src *s)
{
        const struct machine_ident *m = s->x ? &s->x->ident : NULL;
        if (!m || (!m->machine_id[0] && !m->hardware_id[0]))
                return;
        char lab[256];
        struct strbuf lb;
        sb_init_fixed(&lb, lab, sizeof(lab));
        const char *sep = "";
        if (m->hardware_id[0]) {
                sb_puts(&lb, "hardware_id=\"");
                metrics_put_label_value(&lb, m->hardware_id);
                sb_puts(&lb, "\",hardware_id_source=\"");
                metrics_put_label_value(&lb, m->hardware_src);
                sb_putc(&lb, '"');
                sep = ",";
        }
        if (m->machine_id[0])
                sb_printf(&lb, "%smachine_id=\"%s\"", sep, m->machine_id); /* 32 hex digits */
        if (!lb.overflow)
                metrics_sample(r, lab, NULL, NULL, 1);
}

/* ---- the remote-write push: struct push_counters (only with --remote-write) ---- */

/* The push's counters, NULL when there is no push. */
static const struct push_counters *push(const struct render_src *s)
{
        return s->x && s->x->push.on ? &s->x->push : NULL;
}

static void rw_queue_bytes(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->queue_bytes);
}

static void rw_queue_samples(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->queue_samples);
}

static void rw_oldest_age(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, push(s)->oldest_age_s);
}

static void rw_sent(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->sent);
}

static void rw_retried(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->retried);
}

static void rw_dropped(struct render *r, const struct render_src *s)
{
        const struct push_counters *p = push(s);
        if (!p)
                return;
        metrics_sample(r, "reason=\"queue_full\"", NULL, NULL, (double)p->dropped_full);
        metrics_sample(r, "reason=\"queue_write_error\"", NULL, NULL, (double)p->dropped_write);
        metrics_sample(r, "reason=\"rejected\"", NULL, NULL, (double)p->dropped_reject);
        metrics_sample(r, "reason=\"queue_damaged\"", NULL, NULL, (double)p->dropped_damage);
}

static void rw_repairs(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->queue_repairs);
}

static void rw_failed(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, (double)push(s)->failed);
}

static void rw_last_success(struct render *r, const struct render_src *s)
{
        if (push(s))
                metrics_sample(r, NULL, NULL, NULL, push(s)->last_success_s);
}

/* ---- the alerts pushed to an Alertmanager: struct alert_counters (--alertmanager) ---- */

static const struct alert_counters *alerts(const struct render_src *s)
{
        return s->x && s->x->alerts.on ? &s->x->alerts : NULL;
}

static void am_sent(struct render *r, const struct render_src *s)
{
        if (alerts(s))
                metrics_sample(r, NULL, NULL, NULL, (double)alerts(s)->sent);
}

static void am_errors(struct render *r, const struct render_src *s)
{
        if (alerts(s))
                metrics_sample(r, NULL, NULL, NULL, (double)alerts(s)->errors);
}

static void am_pending(struct render *r, const struct render_src *s)
{
        if (alerts(s))
                metrics_sample(r, NULL, NULL, NULL, (double)alerts(s)->pending);
}

/* ---- the kernel log's GPU errors (detect/kernel_gpu.c), while it is scanned ---- */

/* Every kind of each device counted (a GPU's from the first scan), labelled by the GPU
 * when the device (or its link) is one's. */
static void klog_gpu_errors(struct render *r, const struct render_src *s)
{
        const struct counters *x = s->x;
        char base[240];
        if (!x || !x->klog_on)
                return;
        unsigned n = x->nklog < COUNTERS_MAX_KLOG_DEV ? x->nklog : COUNTERS_MAX_KLOG_DEV;
        for (unsigned i = 0; i < n; i++) {
                const struct klog_dev_counters *d = &x->klog[i];
                const char *gpu =
                    d->slot >= 0 && d->slot < VIGIL_MAX_GPUS ? s->gpu_bases[d->slot] : NULL;
                struct strbuf lb;
                sb_init_fixed(&lb, base, sizeof(base));
                if (gpu)
                        sb_printf(&lb, "%s,", gpu);
                sb_puts(&lb, "pci=\"");
                metrics_put_label_value(&lb, d->pci[0] ? d->pci : "unknown");
                sb_putc(&lb, '"');
                for (unsigned k = 0; !lb.overflow && k < COUNTERS_KLOG_KINDS; k++)
                        metrics_sample(r, base, "kind", klog_kind_names[k], (double)d->count[k]);
        }
        for (unsigned k = 0; k < COUNTERS_KLOG_KINDS; k++)
                if (x->klog_other[k])
                        metrics_sample(r, "pci=\"other\"", "kind", klog_kind_names[k],
                                       (double)x->klog_other[k]);
}

static void klog_skipped(struct render *r, const struct render_src *s)
{
        for (unsigned k = 0; s->x && s->x->klog_on && k < KLOG_SKIP_COUNT; k++)
                metrics_sample(r, NULL, "reason", klog_skip_names[k],
                               (double)s->x->klog_skipped[k]);
}

/* ---- processes: struct counters ---- */

static void oom_kills(struct render *r, const struct render_src *s)
{
        unsigned n = s->f->nwatches < VIGIL_MAX_WATCHES ? s->f->nwatches : VIGIL_MAX_WATCHES;
        if (!s->x || !s->x->oom_on)
                return;
        for (unsigned w = 0; w < n; w++)
                metrics_sample(r, NULL, "victim", s->f->watches[w].name,
                               (double)s->x->oom_kills[w]);
        metrics_sample(r, NULL, "victim", "other", (double)s->x->oom_kills[VIGIL_MAX_WATCHES]);
}

static void oom_kernel(struct render *r, const struct render_src *s)
{
        if (s->x && s->x->oom_kernel_known)
                metrics_sample(r, NULL, NULL, NULL, (double)s->x->oom_kernel);
}

static void last_end(struct render *r, const struct render_src *s)
{
        for (int c = 0; s->x && s->x->last_end_cause > 0 && c < PM_CAUSE_COUNT; c++)
                metrics_sample(r, NULL, "cause", pm_cause_name((enum pm_cause)c),
                               c + 1 == s->x->last_end_cause ? 1 : 0);
}

/* The labels watch="W",unit="U" of watch w into base. */
static bool unit_base(const struct render_src *s, unsigned w, char *base, size_t cap)
{
        const struct unit_counters *u = &s->x->units[w];
        struct strbuf lb;
        if (!u->known)
                return false;
        sb_init_fixed(&lb, base, cap);
        sb_puts(&lb, "watch=\"");
        metrics_put_label_value(&lb, s->f->watches[w].name);
        sb_puts(&lb, "\",unit=\"");
        metrics_put_label_value(&lb, u->unit);
        sb_putc(&lb, '"');
        return !lb.overflow;
}

static void unit_restarts(struct render *r, const struct render_src *s)
{
        char base[256];
        for (unsigned w = 0; s->x && w < s->f->nwatches && w < VIGIL_MAX_WATCHES; w++)
                if (unit_base(s, w, base, sizeof(base)) && s->x->units[w].nrestarts >= 0)
                        metrics_sample(r, base, NULL, NULL, (double)s->x->units[w].nrestarts);
}

static void unit_failed(struct render *r, const struct render_src *s)
{
        char base[256];
        for (unsigned w = 0; s->x && w < s->f->nwatches && w < VIGIL_MAX_WATCHES; w++)
                if (unit_base(s, w, base, sizeof(base)))
                        metrics_sample(r, base, NULL, NULL, s->x->units[w].failed ? 1 : 0);
}

static void watch_restarts(struct render *r, const struct render_src *s)
{
        unsigned n = s->f->nwatches < VIGIL_MAX_WATCHES ? s->f->nwatches : VIGIL_MAX_WATCHES;
        for (unsigned w = 0; s->x && w < n; w++)
                metrics_sample(r, NULL, "watch", s->f->watches[w].name,
                               (double)s->x->watch_restarts[w]);
}

/* ---- the table ---- */

struct counter_family {
        const char *name;
        const char *type; /* "gauge" or "counter" */
        const char *help;
        void (*render)(struct render *r, const struct render_src *s);
};

/* The families in exposition order, after the frame's values. */
static const struct counter_family counter_families[] = {
    /* per GPU: struct gpu_counters */
    {.name = "vigil_gpu_xid_errors_total",
     .type = "counter",
     .help = "Xid errors reported, by Xid code.",
     .render = xid_errors},
    {.name = "vigil_gpu_events_total",
     .type = "counter",
     .help = "NVML events received, by type.",
     .render = gpu_events},
    /* per GPU: struct gpu_stats */
    {.name = "vigil_gpu_anomalies_total",
     .type = "counter",
     .help = "Anomalies flagged, by type.",
     .render = anomalies},
    {.name = "vigil_gpu_clocks_event_reason_seconds_total",
     .type = "counter",
     .help = "Time spent with the clock-event (throttle) reason active.",
     .render = throttle_seconds},
    {.name = "vigil_gpu_nvml_failures_total",
     .type = "counter",
     .help = "Samples in which NVML failed.",
     .render = nvml_failures},
    /* struct counters */
    {.name = "vigil_snapshots_suppressed_total",
     .type = "counter",
     .help = "Diagnostic snapshots not written because of their cooldown.",
     .render = snapshots_suppressed},
    {.name = "vigil_gpu_event_listener_restarts_total",
     .type = "counter",
     .help = "Times the NVML event listener was restarted after a failure.",
     .render = listener_restarts},
    {.name = "vigil_rule_active",
     .type = "gauge",
     .help = "1 while the monitoring rule's condition holds.",
     .render = rule_active},
    {.name = "vigil_rule_fired_total",
     .type = "counter",
     .help = "Times the monitoring rule became active.",
     .render = rule_fired},
    {.name = "vigil_unclean_ends_total",
     .type = "counter",
     .help = "Runs of vigil on this log directory that ended uncleanly, by how.",
     .render = unclean_ends},
    {.name = "vigil_last_end",
     .type = "gauge",
     .help = "1 for why the run before this one ended, as its post-mortem decided (after an "
             "unclean end only).",
     .render = last_end},
    {.name = "vigil_previous_run_end",
     .type = "gauge",
     .help = "1 for how the run before this one ended (a post-mortem follows an unclean end).",
     .render = previous_run_end},
    {.name = "vigil_health_state",
     .type = "gauge",
     .help = "The health verdict of a component: 0 healthy, 1 degraded, 2 unhealthy.",
     .render = health_state},
    /* the GPU count check: struct counters */
    {.name = "vigil_gpus_expected",
     .type = "gauge",
     .help = "GPUs the machine should have: expected-gpus, else the most NVML counted at a start.",
     .render = gpus_expected},
    {.name = "vigil_gpus_answering",
     .type = "gauge",
     .help = "GPUs answering: NVML's count at start less the GPUs whose samples fail now.",
     .render = gpus_answering},
    /* vigil itself: struct self_frame */
    {.name = "vigil_samples_total",
     .type = "counter",
     .help = "Samples taken, by cadence.",
     .render = samples},
    {.name = "vigil_sample_duration_seconds",
     .type = "gauge",
     .help = "Duration of the last sample.",
     .render = sample_duration},
    {.name = "vigil_missed_deadlines_total",
     .type = "counter",
     .help = "Scheduler deadlines missed.",
     .render = missed_deadlines},
    {.name = "vigil_write_errors_total",
     .type = "counter",
     .help = "Failed writes to the log directory.",
     .render = write_errors},
    {.name = "vigil_sync_errors_total",
     .type = "counter",
     .help =
         "Failed syncs and write-backs of the log directory's files (each retried the next round).",
     .render = sync_errors},
    {.name = "vigil_events_dropped_total",
     .type = "counter",
     .help = "Events lost because the queue was full.",
     .render = events_dropped},
    {.name = "vigil_snapshots_total",
     .type = "counter",
     .help = "Diagnostic snapshots written.",
     .render = snapshots},
    {.name = "vigil_start_time_seconds",
     .type = "gauge",
     .help = "Start time of vigil, seconds since the epoch.",
     .render = start_time},
    {.name = "vigil_build_info", .type = "gauge", .help = "vigil's version.", .render = build_info},
    {.name = "vigil_machine_info",
     .type = "gauge",
     .help = "The machine's identity: its hardware's (Raspberry Pi serial, DMI, permanent MAC) "
             "and its systemd machine ID.",
     .render = machine_info},
    /* the remote-write push: struct push_counters */
    {.name = "vigil_remote_write_queue_bytes",
     .type = "gauge",
     .help = "Bytes of the on-disk remote-write queue.",
     .render = rw_queue_bytes},
    {.name = "vigil_remote_write_queue_samples",
     .type = "gauge",
     .help = "Samples waiting in the remote-write queue.",
     .render = rw_queue_samples},
    {.name = "vigil_remote_write_oldest_sample_age_seconds",
     .type = "gauge",
     .help = "Age of the oldest sample waiting in the remote-write queue.",
     .render = rw_oldest_age},
    {.name = "vigil_remote_write_samples_sent_total",
     .type = "counter",
     .help = "Samples the remote-write receiver accepted.",
     .render = rw_sent},
    {.name = "vigil_remote_write_samples_retried_total",
     .type = "counter",
     .help = "Samples sent again after a failed remote-write request.",
     .render = rw_retried},
    {.name = "vigil_remote_write_samples_dropped_total",
     .type = "counter",
     .help = "Samples never pushed, by reason.",
     .render = rw_dropped},
    {.name = "vigil_remote_write_queue_repairs_total",
     .type = "counter",
     .help = "Damage of the on-disk remote-write queue skipped, cut or set aside.",
     .render = rw_repairs},
    {.name = "vigil_remote_write_failed_requests_total",
     .type = "counter",
     .help = "Remote-write requests that failed (network, HTTP 4xx and 5xx).",
     .render = rw_failed},
    {.name = "vigil_remote_write_last_success_timestamp_seconds",
     .type = "gauge",
     .help = "When the receiver last accepted a push, seconds since the epoch.",
     .render = rw_last_success},
    /* the alerts pushed to an Alertmanager: struct alert_counters */
    {.name = "vigil_alertmanager_alerts_sent_total",
     .type = "counter",
     .help = "Alerts (firing or resolved) in requests the Alertmanager accepted.",
     .render = am_sent},
    {.name = "vigil_alertmanager_errors_total",
     .type = "counter",
     .help = "Requests to the Alertmanager that failed (network, HTTP 4xx and 5xx).",
     .render = am_errors},
    {.name = "vigil_alertmanager_alerts_pending",
     .type = "gauge",
     .help = "Alerts whose last state the Alertmanager has not taken yet (kept on disk).",
     .render = am_pending},
    /* the kernel log's GPU errors and its skipped records: struct counters */
    {.name = "vigil_gpu_kernel_errors_total",
     .type = "counter",
     .help = "GPU, NVSwitch and PCIe errors read from the kernel log, by kind and PCI address.",
     .render = klog_gpu_errors},
    {.name = "vigil_kernel_log_records_skipped_total",
     .type = "counter",
     .help = "Kernel log records not read: malformed, overwritten before they were read, too long.",
     .render = klog_skipped},
    /* processes ended and restarted: struct counters */
    {.name = "vigil_oom_kills_total",
     .type = "counter",
     .help = "Processes the kernel's OOM killer ended, read from the kernel log, by victim: the "
             "watch whose process it was, else other.",
     .render = oom_kills},
    {.name = "vigil_kernel_oom_kills_total",
     .type = "counter",
     .help = "OOM kills since boot, as the kernel counts them (/proc/vmstat oom_kill).",
     .render = oom_kernel},
    {.name = "vigil_watch_restarts_total",
     .type = "counter",
     .help = "Times a watched program restarted: a new oldest process, or one again after none.",
     .render = watch_restarts},
    {.name = "vigil_unit_restarts_total",
     .type = "counter",
     .help = "Restarts of a watched program's systemd unit by its Restart= setting (systemd's "
             "NRestarts; reset when the unit is stopped or started by hand).",
     .render = unit_restarts},
    {.name = "vigil_unit_failed",
     .type = "gauge",
     .help = "1 while a watched program's systemd unit is in the failed state.",
     .render = unit_failed},
};

void metrics_render_counters(struct render *r, const struct render_src *s)
{
        for (size_t i = 0; i < sizeof(counter_families) / sizeof(counter_families[0]); i++) {
                const struct counter_family *c = &counter_families[i];
                metrics_family(r, c->name, c->type, c->help);
                c->render(r, s);
        }
}
