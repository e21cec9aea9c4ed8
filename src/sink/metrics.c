/* The Prometheus text exposition of a frame. See metrics.h.
 *
 *   # HELP vigil_gpu_power_watts Power draw of the GPU.
 *   # TYPE vigil_gpu_power_watts gauge
 *   vigil_gpu_power_watts{gpu="0",uuid="GPU-5d6c..."} 231.5
 *
 * Families are written family by family (all GPUs of one family together), as the
 * format requires. The families of the frame's values, and their order, come from the
 * areas' tables (core/metric_defs.h): a plain series is a table line, and the code here
 * renders the families a table marks MR_CODE where the table has them. Rendering
 * allocates nothing: it appends to the caller's buffer. */
#include "sink/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/gpu_klog.h"
#include "core/metric_defs.h"
#include "core/throttle_reasons.h"
#include "core/vigil.h"
#include "core/rpi_throttle.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "unknown"
#endif

/* The family being written: its header goes out with its first sample. broken: the
 * code and an area's table disagree (no sample is written, the render fails). */
struct render {
        struct strbuf *sb;
        const char *name;
        const char *type;
        const char *help;
        bool header_done;
        bool broken;
        unsigned next_family; /* the counter families' order: none before this one */
};

/* A walk through one area's table (core/metric_defs.h), row d next. */
struct rows {
        const struct metric_def *d, *end;
};

/* ---- samples ---- */

static void fam_begin(struct render *r, const char *name, const char *type, const char *help)
{
        r->name = name;
        r->type = type;
        r->help = help;
        r->header_done = false;
}

/* A family of core/counter_metrics.def; one out of the table's order breaks the render. */
static void fam_of(struct render *r, enum counter_family id)
{
        const struct metric_def *d = &counter_families[id];
        if (id < r->next_family)
                r->broken = true;
        r->next_family = id + 1;
        fam_begin(r, d->name, d->type, d->help);
}

/* One output line, assembled on the stack and appended with one copy: a scrape writes
 * hundreds of short pieces, and this keeps each to a memcpy. */
struct line {
        char b[1024];
        size_t n;
        bool over;
};

static void lput(struct line *l, const char *s, size_t len)
{
        if (len > sizeof(l->b) - l->n) {
                l->over = true;
                return;
        }
        memcpy(l->b + l->n, s, len);
        l->n += len;
}

static void lputs(struct line *l, const char *s)
{
        lput(l, s, strlen(s));
}

/* A label value: as it is when it needs no escaping (the usual case), else escaped. */
static void lput_label(struct line *l, const char *s)
{
        size_t n = 0;
        while (s[n] >= 0x20 && s[n] < 0x7f && s[n] != '\\' && s[n] != '"')
                n++;
        if (!s[n]) {
                lput(l, s, n);
                return;
        }
        char tmp[512];
        struct strbuf sb;
        sb_init_fixed(&sb, tmp, sizeof(tmp));
        metrics_put_label_value(&sb, s);
        l->over |= sb.overflow;
        lput(l, tmp, sb.len);
}

static void flush_line(struct render *r, struct line *l)
{
        if (l->over)
                r->sb->overflow = true;
        else
                sb_put(r->sb, l->b, l->n);
}

/* One sample of the current family: name{base,key="val"} v. base is a pre-escaped
 * label list (or NULL); key/val an optional label with a raw value. NAN is skipped. */
static void sample(struct render *r, const char *base, const char *key, const char *val, double v)
{
        struct line l;
        if (isnan(v) || r->broken)
                return;
        l.n = 0;
        l.over = false;
        if (!r->header_done) {
                lput(&l, "# HELP ", 7);
                lputs(&l, r->name);
                lput(&l, " ", 1);
                lputs(&l, r->help);
                lput(&l, "\n# TYPE ", 8);
                lputs(&l, r->name);
                lput(&l, " ", 1);
                lputs(&l, r->type);
                lput(&l, "\n", 1);
                r->header_done = true;
        }
        lputs(&l, r->name);
        bool has_base = base && base[0];
        if (has_base || key) {
                lput(&l, "{", 1);
                if (has_base)
                        lputs(&l, base);
                if (has_base && key)
                        lput(&l, ",", 1);
                if (key) {
                        lputs(&l, key);
                        lput(&l, "=\"", 2);
                        lput_label(&l, val);
                        lput(&l, "\"", 1);
                }
                lput(&l, "}", 1);
        }
        char num[40];
        size_t nn = metrics_fmt_value(num, sizeof(num), v);
        lput(&l, " ", 1);
        lput(&l, num, nn);
        lput(&l, "\n", 1);
        flush_line(r, &l);
}

static double field_at(const void *obj, size_t off)
{
        double v;
        memcpy(&v, (const char *)obj + off, sizeof(v));
        return v;
}

/* Begin the family of the table's next row, a code-rendered one (MR_CODE). */
static void fam_code(struct render *r, struct rows *t)
{
        if (t->d >= t->end || t->d->row != MR_CODE) {
                r->broken = true;
                return;
        }
        fam_begin(r, t->d->name, t->d->type, t->d->help);
        t->d++;
}

/* The table's series rows from the next one up to the next code row (or the end), over
 * count objects of the given stride, family by family; bases[i] is object i's label list
 * (NULL: skip it; bases NULL: no labels). */
static void render_series(struct render *r, struct rows *t, const void *objs, size_t stride,
                          unsigned count, const char *const *bases)
{
        while (t->d < t->end && t->d->row == MR_SERIES) {
                const struct metric_def *first = t->d, *end = t->d + 1;
                while (end < t->end && end->row == MR_SERIES && !end->name)
                        end++;
                fam_begin(r, first->name, first->type, first->help);
                for (unsigned i = 0; i < count; i++) {
                        const char *obj = (const char *)objs + i * stride;
                        if (bases && !bases[i])
                                continue;
                        for (const struct metric_def *k = first; k < end; k++)
                                sample(r, bases ? bases[i] : NULL, k->key, k->val,
                                       field_at(obj, k->off) * k->scale);
                }
                t->d = end;
        }
}

/* The table's rows were all rendered, or the render is broken. */
static void rows_done(struct render *r, const struct rows *t)
{
        if (t->d != t->end)
                r->broken = true;
}

/* ---- host ---- */

/* A family over the CPUs: cpu="all" (all, when not NAN), then one series per core. */
static void render_cpus(struct render *r, struct rows *t, const double *v, unsigned n, double scale,
                        double all)
{
        char idx[12];
        fam_code(r, t);
        sample(r, NULL, "cpu", "all", all * scale);
        if (n > VIGIL_MAX_CPUS)
                n = VIGIL_MAX_CPUS;
        for (unsigned i = 0; i < n; i++) {
                metrics_fmt_value(idx, sizeof(idx), i);
                sample(r, NULL, "cpu", idx, v[i] * scale);
        }
}

static void render_host(struct render *r, const struct host_frame *h)
{
        struct rows t = {host_metrics.rows, host_metrics.rows + host_metrics.n};
        render_cpus(r, &t, h->cpu_pct, h->ncpu, 0.01, h->cpu_total_pct);
        render_series(r, &t, h, 0, 1, NULL);
        fam_code(r, &t); /* vigil_swap_used_bytes */
        sample(r, NULL, NULL, NULL, h->swap_total_bytes - h->swap_free_bytes);
        render_series(r, &t, h, 0, 1, NULL);
        render_cpus(r, &t, h->cpu_freq_hz, h->nfreq, 1, NAN);

        fam_code(r, &t); /* vigil_temperature_celsius */
        unsigned nt = h->ntemps < VIGIL_MAX_TEMPS ? h->ntemps : VIGIL_MAX_TEMPS;
        for (unsigned i = 0; i < nt; i++) {
                char lab[200];
                struct strbuf lb;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, "chip=\"");
                metrics_put_label_value(&lb, h->temps[i].chip);
                sb_puts(&lb, "\"");
                if (!lb.overflow)
                        sample(r, lab, "sensor", h->temps[i].sensor, h->temps[i].celsius);
        }

        fam_code(r, &t); /* vigil_cpu_governor_info */
        if (h->governor[0])
                sample(r, NULL, "governor", h->governor, 1);
        rows_done(r, &t);
}

/* ---- process watches ---- */

static void render_watches(struct render *r, const struct frame *f)
{
        char labs[VIGIL_MAX_WATCHES][96];
        const char *bases[VIGIL_MAX_WATCHES];
        unsigned n = f->nwatches < VIGIL_MAX_WATCHES ? f->nwatches : VIGIL_MAX_WATCHES;
        for (unsigned i = 0; i < n; i++) {
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_puts(&lb, "watch=\"");
                metrics_put_label_value(&lb, f->watches[i].name);
                sb_putc(&lb, '"');
                bases[i] = lb.overflow ? NULL : labs[i];
        }
        struct rows t = {watch_metrics.rows, watch_metrics.rows + watch_metrics.n};
        render_series(r, &t, f->watches, sizeof(f->watches[0]), n, bases);
        rows_done(r, &t);
}

/* ---- Raspberry Pi ---- */

static void render_rpi(struct render *r, const struct rpi_frame *p)
{
        static const char *const conds[4] = {RPI_COND_UNDER_VOLTAGE, RPI_COND_ARM_FREQ_CAPPED,
                                             RPI_COND_THROTTLED, RPI_COND_SOFT_TEMP_LIMIT};
        struct rows t = {rpi_metrics.rows, rpi_metrics.rows + rpi_metrics.n};
        if (!p->present)
                return;
        render_series(r, &t, p, 0, 1, NULL);

        fam_code(r, &t); /* vigil_rpi_throttled */
        if (p->throttled_valid && p->throttled <= 0xffffffffu) {
                uint32_t word = (uint32_t)p->throttled;
                /* since="boot" only where the sticky bits mean that (gencmd). */
                unsigned nsince = rpi_frame_sticky_reliable(p) ? 2 : 1;
                for (unsigned since = 0; since < nsince; since++) {
                        for (unsigned c = 0; c < 4; c++) {
                                char lab[64];
                                snprintf(lab, sizeof(lab), "condition=\"%s\"", conds[c]);
                                sample(r, lab, "since", since ? "boot" : "now",
                                       (word >> (c + 16 * since)) & 1);
                        }
                }
        } else if (VAL_OK(p->undervolt_alarm)) {
                /* No word: the rpi_volt alarm says under-voltage now, nothing else. */
                sample(r, "condition=\"" RPI_COND_UNDER_VOLTAGE "\"", "since", "now",
                       p->undervolt_alarm);
        }

        fam_code(r, &t); /* vigil_rpi_v3d_busy_ratio */
        unsigned nq = p->nv3d < VIGIL_V3D_QUEUES ? p->nv3d : VIGIL_V3D_QUEUES;
        for (unsigned i = 0; i < nq; i++)
                sample(r, NULL, "queue", p->v3d[i].queue, p->v3d[i].busy_ratio);

        fam_code(r, &t); /* vigil_rpi_info */
        if (p->model[0])
                sample(r, NULL, "model", p->model, 1);
        rows_done(r, &t);
}

/* ---- GPUs ---- */

/* "gpu="N",uuid="..."" for each present GPU slot; NULL for the others. */
static void gpu_bases(const struct frame *f, char (*labs)[160], const char **bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                bases[i] = NULL;
                if (i >= f->ngpus || !g->present)
                        continue;
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_printf(&lb, "gpu=\"%u\"", g->index);
                if (g->uuid[0]) {
                        sb_puts(&lb, ",uuid=\"");
                        metrics_put_label_value(&lb, g->uuid);
                        sb_putc(&lb, '"');
                }
                if (!lb.overflow)
                        bases[i] = labs[i];
        }
}

static void render_gpu_special(struct render *r, struct rows *t, const struct frame *f,
                               const char *const *bases)
{
        fam_code(r, t); /* vigil_gpu_up */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (bases[i])
                        sample(r, bases[i], NULL, NULL, f->gpus[i].ok ? 1 : 0);
        }
        fam_code(r, t); /* vigil_gpu_info */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                char lab[320];
                struct strbuf lb;
                if (!bases[i])
                        continue;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, bases[i]);
                sb_puts(&lb, ",name=\"");
                metrics_put_label_value(&lb, f->gpus[i].name);
                sb_putc(&lb, '"');
                if (!lb.overflow)
                        sample(r, lab, "pci_bus_id", f->gpus[i].pci_bus_id, 1);
        }
        fam_code(r, t); /* vigil_gpu_pstate */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                double p = f->gpus[i].pstate;
                if (bases[i] && p >= 0 && p <= 15)
                        sample(r, bases[i], NULL, NULL, p);
        }
        fam_code(r, t); /* vigil_gpu_processes */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_proc_list *l = &f->gpu_procs[i];
                for (unsigned ty = 0; bases[i] && l->valid && ty < GPU_PROC_TYPES; ty++)
                        if (l->supported[ty])
                                sample(r, bases[i], "type",
                                       gpu_proc_type_name((enum gpu_proc_type)ty), l->count[ty]);
        }
}

static void render_gpu_arrays(struct render *r, struct rows *t, const struct frame *f,
                              const char *const *bases)
{
        fam_code(r, t); /* vigil_gpu_clocks_event_reason */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                uint64_t m = f->gpus[i].throttle_mask;
                if (!bases[i] || !f->gpus[i].throttle_valid)
                        continue;
                for (unsigned b = 0; b < GPU_THROTTLE_BITS; b++)
                        if (throttle_reasons[b].label)
                                sample(r, bases[i], "reason", throttle_reasons[b].label,
                                       (m >> b) & 1);
        }
        fam_code(r, t); /* vigil_gpu_recovery_action */
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++)
                if (bases[i] && f->gpus[i].recovery_valid)
                        sample(r, bases[i], NULL, NULL, f->gpus[i].recovery_action);
        /* vigil_gpu_fan_speed_ratio, then vigil_gpu_fan_target_ratio */
        for (unsigned k = 0; k < 2; k++) {
                fam_code(r, t);
                for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                        const struct gpu_frame *g = &f->gpus[i];
                        unsigned nf = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
                        for (unsigned j = 0; bases[i] && j < nf; j++) {
                                char idx[12];
                                metrics_fmt_value(idx, sizeof(idx), j);
                                sample(r, bases[i], "fan", idx,
                                       (k ? g->fan_target_pct[j] : g->fan_speed_pct[j]) / 100);
                        }
                }
        }
}

/* ---- counters kept outside the frame ---- */

static void render_gpu_extra(struct render *r, const struct counters *x, const char *const *bases)
{
        char code[12];
        fam_of(r, CF_XID_ERRORS);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_counters *g = &x->gpus[i];
                unsigned n = g->nxids < COUNTERS_MAX_XIDS ? g->nxids : COUNTERS_MAX_XIDS;
                for (unsigned j = 0; bases[i] && j < n; j++) {
                        metrics_fmt_value(code, sizeof(code), g->xids[j].xid);
                        sample(r, bases[i], "xid", code, (double)g->xids[j].count);
                }
                if (bases[i] && g->xids_other)
                        sample(r, bases[i], "xid", "other", (double)g->xids_other);
        }
        fam_of(r, CF_GPU_EVENTS);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                for (unsigned k = 0; bases[i] && k < GPU_EV_COUNT; k++)
                        sample(r, bases[i], "type", gpu_event_type_names[k],
                               (double)x->gpus[i].events[k]);
        }
}

/* The GPU rules' statistics (struct gpu_stats in the frame). */
static void render_gpu_stats(struct render *r, const struct frame *f, const char *const *bases)
{
        fam_of(r, CF_ANOMALIES);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_stats *st = &f->gpu_stats[i];
                for (unsigned k = 0; bases[i] && k < GPU_ANOM_COUNT; k++)
                        if (st->anomalies[k])
                                sample(r, bases[i], "type", gpu_anomaly_names[k],
                                       (double)st->anomalies[k]);
        }
        fam_of(r, CF_THROTTLE_SECONDS);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                for (unsigned b = 0; bases[i] && b < GPU_THROTTLE_BITS; b++)
                        if (throttle_reasons[b].label)
                                sample(r, bases[i], "reason", throttle_reasons[b].label,
                                       f->gpu_stats[i].throttle_seconds[b]);
        }
        fam_of(r, CF_NVML_FAILURES);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (bases[i])
                        sample(r, bases[i], NULL, NULL, (double)f->gpu_stats[i].failed_samples);
        }
}

static void render_rules(struct render *r, const struct counters *x)
{
        unsigned n = x->nrules < COUNTERS_MAX_RULES ? x->nrules : COUNTERS_MAX_RULES;
        fam_of(r, CF_SNAPSHOTS_SUPPRESSED);
        sample(r, NULL, NULL, NULL, (double)x->snapshots_suppressed);
        fam_of(r, CF_LISTENER_RESTARTS);
        sample(r, NULL, NULL, NULL, (double)x->event_listener_restarts);
        fam_of(r, CF_RULE_ACTIVE);
        for (unsigned i = 0; i < n; i++)
                sample(r, NULL, "rule", x->rules[i].name, x->rules[i].active ? 1 : 0);
        fam_of(r, CF_RULE_FIRED);
        for (unsigned i = 0; i < n; i++)
                sample(r, NULL, "rule", x->rules[i].name, (double)x->rules[i].fired);
}

/* The kernel log's GPU errors: every kind of each device counted (a GPU's from the
 * first scan), labelled by the GPU when the device (or its link) is one's. */
static void render_klog(struct render *r, const struct counters *x, const char *const *bases)
{
        char base[240];
        unsigned n = x->nklog < COUNTERS_MAX_KLOG_DEV ? x->nklog : COUNTERS_MAX_KLOG_DEV;
        fam_of(r, CF_KLOG_GPU_ERRORS);
        for (unsigned i = 0; i < n; i++) {
                const struct klog_dev_counters *d = &x->klog[i];
                const char *gpu = d->slot >= 0 && d->slot < VIGIL_MAX_GPUS ? bases[d->slot] : NULL;
                struct strbuf lb;
                sb_init_fixed(&lb, base, sizeof(base));
                if (gpu)
                        sb_printf(&lb, "%s,", gpu);
                sb_puts(&lb, "pci=\"");
                metrics_put_label_value(&lb, d->pci[0] ? d->pci : "unknown");
                sb_putc(&lb, '"');
                for (unsigned k = 0; !lb.overflow && k < COUNTERS_KLOG_KINDS; k++)
                        sample(r, base, "kind", klog_kind_names[k], (double)d->count[k]);
        }
        for (unsigned k = 0; k < COUNTERS_KLOG_KINDS; k++)
                if (x->klog_other[k])
                        sample(r, "pci=\"other\"", "kind", klog_kind_names[k],
                               (double)x->klog_other[k]);
        fam_of(r, CF_KLOG_SKIPPED);
        for (unsigned k = 0; k < KLOG_SKIP_COUNT; k++)
                sample(r, NULL, "reason", klog_skip_names[k], (double)x->klog_skipped[k]);
}

/* ---- vigil itself ---- */

/* How earlier runs ended: the end kinds' names as core/runstate.h has them. */
static void render_runs(struct render *r, const struct counters *x)
{
        static const char *const kinds[] = {"first", "clean", "killed", "reboot", "unknown"};
        if (!x->runs_known)
                return;
        fam_of(r, CF_UNCLEAN_ENDS);
        for (unsigned k = 0; k < 3; k++)
                sample(r, NULL, "kind", kinds[2 + k], (double)x->unclean_ends[k]);
        fam_of(r, CF_PREVIOUS_RUN_END);
        if (x->previous_end >= 0 && x->previous_end < 5)
                sample(r, NULL, "kind", kinds[x->previous_end], 1);
}

/* The GPU count check: what the machine should have, and what answers. */
static void render_gpu_count(struct render *r, const struct counters *x)
{
        if (!x->gpus_known)
                return;
        fam_of(r, CF_GPUS_EXPECTED);
        sample(r, NULL, NULL, NULL, (double)x->gpus_expected);
        fam_of(r, CF_GPUS_ANSWERING);
        sample(r, NULL, NULL, NULL, (double)x->gpus_answering);
}

static void render_self(struct render *r, const struct self_frame *s)
{
        static const char *const src[VCLOCK_COUNT] = {"host", "gpu", "pss"};
        fam_of(r, CF_SAMPLES);
        for (unsigned c = 0; c < VCLOCK_COUNT; c++)
                sample(r, NULL, "source", src[c], (double)s->samples[c]);
        fam_of(r, CF_SAMPLE_DURATION);
        for (unsigned c = 0; c < VCLOCK_COUNT; c++) {
                if (s->samples[c])
                        sample(r, NULL, "source", src[c], s->sample_seconds[c]);
        }
        const struct {
                enum counter_family id;
                uint64_t v;
        } counters[] = {
            {CF_MISSED_DEADLINES, s->missed_deadlines},
            {CF_WRITE_ERRORS, s->write_errors},
            {CF_EVENTS_DROPPED, s->events_dropped},
            {CF_SNAPSHOTS, s->snapshots},
        };
        for (unsigned i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
                fam_of(r, counters[i].id);
                sample(r, NULL, NULL, NULL, (double)counters[i].v);
        }
        fam_of(r, CF_START_TIME);
        /* To the millisecond: finer digits say nothing and cost a slow conversion. */
        if (s->started_real_ns > 0)
                sample(r, NULL, NULL, NULL, (double)(s->started_real_ns / 1000000) / 1e3);
        fam_of(r, CF_BUILD_INFO);
        sample(r, NULL, "version", VIGIL_VERSION, 1);
}

int metrics_render(struct strbuf *out, const struct frame *f, const struct counters *x)
{
        struct render r = {.sb = out};
        struct rows gt = {gpu_metrics.rows, gpu_metrics.rows + gpu_metrics.n};
        char labs[VIGIL_MAX_GPUS][160];
        const char *bases[VIGIL_MAX_GPUS];

        render_host(&r, &f->host);
        render_watches(&r, f);
        render_rpi(&r, &f->rpi);
        metrics_render_storage(out, &f->storage);
        gpu_bases(f, labs, bases);
        render_gpu_special(&r, &gt, f, bases);
        render_series(&r, &gt, f->gpus, sizeof(f->gpus[0]), VIGIL_MAX_GPUS, bases);
        render_gpu_arrays(&r, &gt, f, bases);
        rows_done(&r, &gt);
        if (x)
                render_gpu_extra(&r, x, bases);
        render_gpu_stats(&r, f, bases);
        if (x) {
                render_rules(&r, x);
                render_runs(&r, x);
                render_gpu_count(&r, x);
        }
        render_self(&r, &f->self);
        if (x)
                metrics_render_push(out, &x->push);
        if (x && x->klog_on)
                render_klog(&r, x, bases);
        if (r.broken)
                return -EINVAL;
        return out->overflow ? -ENOBUFS : 0;
}
