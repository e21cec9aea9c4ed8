/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: Raspberry Pi incident snapshots, on the host clock. An incident is a
 * condition becoming true that blanks a signage screen or corrupts its storage:
 *   under-voltage now (throttled bit 0 set), the temperature reaching the critical
 *   threshold (--temp-crit, 80 °C), /dev/shm at the full threshold (--shm-full, 90 %),
 *   the root or log file system read-only, new storage errors in the kernel log
 * as the Pi rules (rpi_rules.h) decide them: this detector runs its own copy of the
 * same rule table with the same thresholds and hysteresis, without their lines, so
 * the two never disagree. It writes incidents/incident-YYYYMMDD-HHMMSS.log, at most one
 * per 60 s (the snapshot limiter; later triggers in the cooldown are counted and the
 * first few logged):
 *   === RASPBERRY PI INCIDENT ===      header, with the reasons as its Error line (STORAGE
 *                                      INCIDENT for a storage one off a Raspberry Pi)
 *   === Recent host samples (last 50) ===   the host CSV's header and last rows
 *   === dmesg (voltage/thermal) ===    the kernel log's voltage and thermal lines
 *   === Throttle history ===           each change of the throttled word since start
 *   === Watched processes ===          the --watch groups as last sampled
 * Bounded memory: the rows and the history live in two byte rings allocated at start
 * (about 70 KB, touched as they fill). Off with --no-log (nowhere to write).
 * It also answers `vigil snapshot REASON` where no GPU is sampled: the same file,
 * titled REQUESTED SNAPSHOT, with no cooldown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/kmsg.h"
#include "collect/nvml_lib.h"
#include "core/vigil.h"
#include "detect/rpi_rules.h"
#include "core/rpi_throttle.h"
#include "detect/storage_rules.h"
#include "core/eventlog.h"
#include "detect/evidence.h"
#include "core/host_row.h"
#include "encode/host_row_csv.h"
#include "encode/host_row_text.h"
#include "detect/snapshot.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/logring.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define INCIDENT_ROWS          50
#define INCIDENT_ROW_BYTES     (64 * 1024) /* ring arena for the rows */
#define INCIDENT_HISTORY       32          /* throttle transitions kept */
#define INCIDENT_HISTORY_BYTES 4096
#define INCIDENT_ROW_MAX       8192 /* one formatted row (256 cores fit) */

enum trigger { TRIG_UNDERVOLT, TRIG_TEMP, TRIG_SHM, TRIG_READONLY, TRIG_STORAGE_ERR, TRIG_COUNT };

static const struct {
        const char *rule;     /* rpi_rules[].name */
        enum rpi_level level; /* the level that is an incident */
} triggers[TRIG_COUNT] = {
    [TRIG_UNDERVOLT] = {RPI_COND_UNDER_VOLTAGE, RPI_LEVEL_WARN},
    [TRIG_TEMP] = {"temperature", RPI_LEVEL_CRIT},
    [TRIG_SHM] = {"shm_full", RPI_LEVEL_WARN},
    [TRIG_READONLY] = {"fs_readonly", RPI_LEVEL_WARN},
    [TRIG_STORAGE_ERR] = {"storage_errors", RPI_LEVEL_WARN},
};

struct incident {
        struct rpi_rules_state *rules;
        struct rpi_thresholds th;
        int rule_of[TRIG_COUNT]; /* index into rpi_rules, -1 if absent */
        bool was[TRIG_COUNT];    /* the condition held at the previous tick */
        struct logring rows;     /* formatted host CSV rows, newest last */
        struct logring history;  /* throttle word changes, one line each */
        uint64_t history_total;  /* changes seen since start */
        bool have_word;
        uint32_t last_word;
        struct snapshot_limiter limit;
        uint64_t incidents;       /* snapshots written */
        struct host_row_text own; /* the row's text where the context shares none */
};

static void push_text(struct logring *r, const char *text, size_t n)
{
        void *p = logring_push(r, n);
        if (p)
                memcpy(p, text, n);
}

/* The tick's host row, formatted once for this detector and the host CSV
 * (encode/host_row_text.h). */
static void keep_row(struct incident *in, struct vigil_ctx *ctx, const struct tick *t)
{
        struct host_row_text *c = ctx->host_text ? ctx->host_text : &in->own;
        const char *row = host_row_text(c, ctx->frame, t->seq[VCLOCK_HOST], ctx->frame->host.ncpu);
        if (row && c->len > 0)
                push_text(&in->rows, row, c->len);
}

static void format_time(char *out, size_t cap, int64_t real_ns)
{
        time_t sec = (time_t)(real_ns / NSEC_PER_SEC);
        struct tm tm;
        localtime_r(&sec, &tm);
        size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
        if (n > 0)
                snprintf(out + n, cap - n, ".%03lld",
                         (long long)(real_ns % NSEC_PER_SEC / NSEC_PER_MSEC));
}

/* One history line per change of the whole word (sticky bits included). */
VIGIL_HOT static void keep_throttle(struct incident *in, const struct frame *f, int64_t real_ns)
{
        if (!f->rpi.present || !f->rpi.throttled_valid)
                return;
        uint32_t w = (uint32_t)f->rpi.throttled;
        if (in->have_word && w == in->last_word)
                return;
        char when[40], hex[16], flags[200], line[320];
        format_time(when, sizeof(when), real_ns);
        rpi_throttle_hex(w, hex, sizeof(hex));
        rpi_frame_flags(&f->rpi, flags, sizeof(flags));
        char prev[16] = "start";
        if (in->have_word)
                rpi_throttle_hex(in->last_word, prev, sizeof(prev));
        int n = snprintf(line, sizeof(line), "%s %s -> %s %s", when, prev, hex,
                         flags[0] ? flags : "(none)");
        if (n > 0)
                push_text(&in->history, line,
                          (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
        in->history_total++;
        in->have_word = true;
        in->last_word = w;
}

/* The conditions that became true this tick, as a bit mask of enum trigger. */
static unsigned new_triggers(struct incident *in)
{
        unsigned mask = 0;
        for (unsigned i = 0; i < TRIG_COUNT; i++) {
                if (in->rule_of[i] < 0)
                        continue;
                bool now =
                    rpi_rules_level(in->rules, (unsigned)in->rule_of[i]) >= triggers[i].level;
                if (now && !in->was[i])
                        mask |= 1u << i;
                in->was[i] = now;
        }
        return mask;
}

static void describe(const struct incident *in, const struct frame *f, unsigned mask,
                     struct strbuf *sb)
{
        const char *sep = "";
        if (mask & (1u << TRIG_UNDERVOLT)) {
                sb_printf(sb, "%sunder-voltage now", sep);
                sep = "; ";
        }
        if (mask & (1u << TRIG_TEMP)) {
                sb_printf(sb, "%stemperature %.1fC >= %.0fC (critical)", sep, f->rpi.temp_c,
                          in->th.temp_crit_c);
                sep = "; ";
        }
        if (mask & (1u << TRIG_SHM)) {
                const struct host_frame *h = &f->host;
                sb_printf(sb, "%s/dev/shm %.1f%% full >= %.0f%%", sep,
                          h->shm_used_bytes / h->shm_total_bytes * 100.0, in->th.shm_full_pct);
                sep = "; ";
        }
        unsigned storage = (1u << TRIG_READONLY) | (1u << TRIG_STORAGE_ERR);
        if (mask & storage) {
                sb_puts(sb, sep);
                storage_describe_incident(f, mask & (1u << TRIG_READONLY),
                                          mask & (1u << TRIG_STORAGE_ERR), sb);
        }
}

static void extra_lines(const struct frame *f, struct strbuf *sb)
{
        const struct rpi_frame *p = &f->rpi;
        if (p->model[0])
                sb_printf(sb, "Model: %s\n", p->model);
        if (p->throttled_valid) {
                char hex[16], flags[200];
                rpi_throttle_hex((uint32_t)p->throttled, hex, sizeof(hex));
                rpi_frame_flags(p, flags, sizeof(flags)); /* HAS: only where reliable */
                sb_printf(sb, "Throttled: %s %s\n", hex, flags);
        }
        if (VAL_OK(p->temp_c))
                sb_printf(sb, "SoC temperature: %.1fC\n", p->temp_c);
        if (VAL_OK(p->volt_core_v))
                sb_printf(sb, "Core voltage: %.4fV\n", p->volt_core_v);
        const struct host_frame *h = &f->host;
        if (VAL_OK(h->shm_used_bytes) && VAL_OK(h->shm_total_bytes) && h->shm_total_bytes > 0)
                sb_printf(sb, "/dev/shm: %.1f%% used (%.0f of %.0f MB)\n",
                          h->shm_used_bytes / h->shm_total_bytes * 100.0,
                          h->shm_used_bytes / 1048576.0, h->shm_total_bytes / 1048576.0);
}

static void section_rows(struct snapshot *s, const struct incident *in, const struct frame *f)
{
        char title[64], head[INCIDENT_ROW_MAX];
        struct strbuf sb;
        snprintf(title, sizeof(title), "Recent host samples (last %d)", INCIDENT_ROWS);
        snapshot_section(s, title);
        struct host_row hr; /* for the watches' column names */
        host_row_build(&hr, f);
        sb_init_fixed(&sb, head, sizeof(head));
        host_row_header(&sb, f->host.ncpu, &hr);
        snapshot_put_sb(s, &sb);
        for (size_t i = 0; i < logring_count(&in->rows); i++) {
                size_t n;
                const void *row = logring_get(&in->rows, i, &n);
                snapshot_write(s, row, n);
        }
}

static void section_history(struct snapshot *s, const struct incident *in)
{
        size_t n = logring_count(&in->history);
        snapshot_section(s, "Throttle history");
        if (in->history_total == 0)
                snapshot_puts(s, "(no throttled word: not read on this machine)\n");
        if (in->history_total > n)
                snapshot_printf(s, "(%llu older changes not kept)\n",
                                (unsigned long long)(in->history_total - n));
        for (size_t i = 0; i < n; i++) {
                size_t len;
                const void *line = logring_get(&in->history, i, &len);
                snapshot_write(s, line, len);
                snapshot_puts(s, "\n");
        }
}

static void print_value(struct snapshot *s, const char *key, double v, double scale, int decimals)
{
        snapshot_printf(s, " %s=", key);
        if (VAL_OK(v))
                snapshot_printf(s, "%.*f", decimals, v / scale);
        else
                snapshot_puts(s, "n/a");
}

static void section_procs(struct snapshot *s, const struct frame *f)
{
        snapshot_section(s, "Watched processes");
        if (f->nwatches == 0)
                snapshot_puts(s, "(none: no --watch given)\n");
        for (unsigned i = 0; i < f->nwatches && i < VIGIL_MAX_WATCHES; i++) {
                const struct watch_frame *w = &f->watches[i];
                snapshot_printf(s, "%s:", w->name);
                print_value(s, "count", w->count, 1, 0);
                print_value(s, "pss_mb", w->pss_bytes, 1048576.0, 1);
                print_value(s, "cpu_pct", w->cpu_pct, 1, 1);
                print_value(s, "threads", w->threads, 1, 0);
                print_value(s, "oldest_age_s", w->oldest_age_s, 1, 0);
                snapshot_puts(s, "\n");
        }
}

static int write_incident(struct incident *in, struct vigil_ctx *ctx, const struct tick *t,
                          const char *title, const char *reason, char *path, size_t cap)
{
        const struct frame *f = ctx->frame;
        struct snapshot *s;
        char extra[1024];
        struct strbuf xb;
        vigil_flush_all(ctx); /* the rows before the incident are on disk first */
        int r = snapshot_open(&s, ctx->log_dir, SNAPSHOT_INCIDENT, t->real_ns);
        if (r < 0)
                return r;
        sb_init_fixed(&xb, extra, sizeof(extra));
        extra_lines(f, &xb);
        struct snapshot_header h = {
            .title = title,
            .real_ns = t->real_ns,
            .error = reason,
            .uptime_s = (t->mono_ns - f->self.started_mono_ns) / NSEC_PER_SEC,
            .samples = f->self.samples[VCLOCK_HOST],
            .peak_temp_c = VAL_MISSING,
            .peak_power_w = VAL_MISSING,
            .event_number = in->incidents + 1,
            .extra_lines = extra,
        };
        snapshot_header(s, &h);
        section_rows(s, in, f);
        enum kmsg_filter power = KMSG_FILTER_POWER;
        evidence_kernel_log(s, ctx->kmsg, &power, 1);
        section_history(s, in);
        section_procs(s, f);
        return snapshot_commit(s, path, cap);
}

static void on_incident(struct incident *in, struct vigil_ctx *ctx, const struct tick *t,
                        unsigned mask)
{
        char reason[256], path[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, reason, sizeof(reason));
        describe(in, ctx->frame, mask, &sb);
        enum snapshot_verdict v = snapshot_limiter_check(&in->limit, t->mono_ns);
        if (v == SNAPSHOT_SUPPRESS_REPORT) {
                vlog(LOG_WARN, "Incident (%s): snapshot suppressed, one per 60s", reason);
                return;
        }
        if (v == SNAPSHOT_SUPPRESS_QUIET)
                return;
        if (ctx->disk_paused) {
                vlog(LOG_WARN, "Incident (%s): no snapshot, the disk is full", reason);
                return;
        }
        /* A storage incident off a Pi says what it is. */
        unsigned storage = (1u << TRIG_READONLY) | (1u << TRIG_STORAGE_ERR);
        const char *title = (mask & ~storage) || ctx->frame->rpi.present ? "RASPBERRY PI INCIDENT"
                                                                         : "STORAGE INCIDENT";
        int r = write_incident(in, ctx, t, title, reason, path, sizeof(path));
        if (r < 0) {
                vlog(LOG_ERR, "Incident (%s): snapshot failed: %s", reason, strerror(-r));
                ctx->frame->self.write_errors++;
                return;
        }
        in->incidents++;
        ctx->frame->self.snapshots++;
        vlog(LOG_WARN, "Incident snapshot: %s (%s)", path, reason);
        eventlog_event(ctx->events, t->real_ns, EV_INCIDENT, "reason=\"%s\" snapshot=%s", reason,
                       path);
}

/* `vigil snapshot REASON` on a machine without GPUs (with GPUs the GPU event detector
 * answers it with crash-kind snapshots): the same snapshot, titled as requested, with
 * no cooldown. */
static void on_request(struct incident *in, struct vigil_ctx *ctx, const struct tick *t)
{
        char reason[200], path[1024];
        snprintf(reason, sizeof(reason), "Requested: %s", ctx->snapshot_reason);
        ctx->snapshot_requested = 0;
        int r = write_incident(in, ctx, t, "REQUESTED SNAPSHOT", reason, path, sizeof(path));
        if (r < 0) {
                vlog(LOG_ERR, "Requested snapshot failed: %s", strerror(-r));
                ctx->frame->self.write_errors++;
                return;
        }
        ctx->frame->self.snapshots++;
        vlog(LOG_INFO, "Snapshot: %s (%s)", path, reason);
        eventlog_event(ctx->events, t->real_ns, EV_SNAPSHOT, "reason=\"%s\" snapshot=%s",
                       ctx->snapshot_reason, path);
}

VIGIL_HOT static void incident_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct incident *in = state;
        const struct frame *f = ctx->frame;
        keep_row(in, ctx, t);
        keep_throttle(in, f, t->real_ns);
        rpi_rules_eval(in->rules, f, t->real_ns);
        unsigned mask = new_triggers(in);
        if (mask)
                on_incident(in, ctx, t, mask);
        if (ctx->snapshot_requested && (!ctx->nvml || ctx->nvml->ngpus == 0))
                on_request(in, ctx, t);
}

static void incident_fini(void *state)
{
        struct incident *in = state;
        if (!in)
                return;
        rpi_rules_free(in->rules);
        logring_fini(&in->rows);
        logring_fini(&in->history);
        free(in);
}

static int incident_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->log_dir)
                return -ENODEV;
        struct incident *in = calloc(1, sizeof(*in));
        if (!in)
                return -ENOMEM;
        rpi_thresholds_from_options(&in->th, ctx->opt);
        in->rules = rpi_rules_new(&in->th); /* no sink: the Pi rules say it already */
        if (!in->rules || logring_init(&in->rows, INCIDENT_ROW_BYTES, INCIDENT_ROWS) < 0 ||
            logring_init(&in->history, INCIDENT_HISTORY_BYTES, INCIDENT_HISTORY) < 0) {
                incident_fini(in);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < TRIG_COUNT; i++) {
                in->rule_of[i] = -1;
                for (unsigned k = 0; k < rpi_nrules; k++)
                        if (!strcmp(rpi_rules[k].name, triggers[i].rule))
                                in->rule_of[i] = (int)k;
        }
        snapshot_limiter_init(&in->limit, SNAPSHOT_INCIDENT);
        *ret_state = in;
        return 0;
}

const struct vigil_detector vigil_detector_rpi_incident = {
    .name = "rpi-incident",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = incident_init,
    .feed = incident_feed,
    .fini = incident_fini,
};
