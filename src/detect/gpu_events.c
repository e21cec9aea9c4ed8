/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: NVML events and GPU snapshots, on the GPU clock. See gpu_events.h.
 *
 * Each GPU tick, in this order: the flight recorder takes every GPU sampled; a GPU
 * that stopped answering (its first failed sample after answering) takes a crash
 * snapshot; the event queue is drained (counters, events.log, crash snapshots for
 * Xid, recovery-action and unavailable events); a FAN_SPIKE flag of the GPU rules
 * takes a spike snapshot; a `vigil snapshot` request takes one crash-kind snapshot per
 * GPU; due crash follow-ups are written; the listener's notes are logged. The flight
 * recorders and the listener start at the first GPU tick, once the NVML source has
 * acquired the GPUs (collect/nvml.c), with what it learnt of them.
 *
 * Cooldowns are per GPU (the reference logger watched one GPU per process): a crash
 * snapshot at most every 60 s, a spike snapshot every 10 s; the first three held back
 * after each are logged, all are counted. A requested snapshot has no cooldown. The
 * external programs run in a worker thread (detect/snapshot_programs.h), so the loop
 * never waits for them. */
#include "detect/gpu_events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/nvml_events.h"
#include "collect/nvml_lib.h"
#include "core/ring.h"
#include "detect/gpu_rules.h"
#include "detect/xid_catalog.h"
#include "core/eventlog.h"
#include "detect/evidence.h"
#include "detect/gpu_snapshot.h"
#include "core/counters.h"
#include "detect/snapshot.h"
#include "detect/snapshot_programs.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/hot.h"

#define BATCH 256 /* events taken from the queue at a time */

struct gpu_ev_gpu {
        struct gpu_ring ring;
        struct clock_burst burst;
        bool was_ok;         /* answered at least once since the last failure streak */
        uint64_t handle_gen; /* the handle generation the listener has */
        uint64_t spikes;     /* FAN_SPIKE samples counted by the rules, seen */
        uint64_t spike_number;
        struct snapshot_limiter crash_lim, spike_lim;
        int64_t procs_seen_ns; /* the process list last looked at (its taken_real_ns) */
        char procs_last[160];  /* its pids and names, as events.log had them */
        char last_crash[1400]; /* the last crash snapshot's path; "" before one */
};

struct gpu_events {
        struct vigil_ctx *ctx;
        struct nvml_listener *listener;
        bool started; /* the recorders and the listener (start_recorders) */
        unsigned ngpus;
        struct gpu_ev_gpu gpu[VIGIL_MAX_GPUS];
        struct snapshot_followups followups;
        struct snapshot_programs programs;
        struct nvml_event batch[BATCH];
};

/* "crashes/crash-...log": the path relative to the log directory, for events.log. */
static const char *rel_path(const struct vigil_ctx *ctx, const char *path)
{
        size_t n = strlen(ctx->log_dir);
        if (!strncmp(path, ctx->log_dir, n) && path[n] == '/')
                return path + n + 1;
        return path;
}

/* "crash-20261202-120000" from ".../crashes/crash-20261202-120000.log". */
static void base_name(char *out, size_t cap, const char *path)
{
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        size_t n = strlen(b);
        if (n >= 4 && !strcmp(b + n - 4, ".log"))
                n -= 4;
        snprintf(out, cap, "%.*s", (int)n, b);
}

static void start_programs(struct gpu_events *d, unsigned slot, const char *path)
{
        struct vigil_ctx *ctx = d->ctx;
        const struct gpu_frame *g = &ctx->frame->gpus[slot];
        char base[SNAPSHOT_NAME_MAX];
        base_name(base, sizeof(base), path);
        int r = snapshot_programs_start(&d->programs, ctx->log_dir, base, g->name, g->pci_bus_id);
        if (r < 0)
                vlog(LOG_WARN, "gpu%u: crash snapshot programs not run: %s", g->index,
                     strerror(-r));
}

/* Write a crash-kind snapshot of slot now. mono_ns 0: a requested one (no follow-ups). */
static void write_crash(struct gpu_events *d, unsigned slot, const char *error, uint64_t number,
                        int64_t mono_ns, int64_t real_ns)
{
        struct vigil_ctx *ctx = d->ctx;
        const struct gpu_frame *g = &ctx->frame->gpus[slot];
        char path[1400], extra[512] = "", note[256];
        struct strbuf sb;
        if (!ctx->log_dir || ctx->disk_paused) {
                vlog(LOG_WARN, "gpu%u: crash snapshot not written (%s)", g->index,
                     ctx->log_dir ? "disk low: writes paused" : "--no-log");
                return;
        }
        /* The Xid may come with other event bits ("Event: GpuUnavailable|Xid(79)"). */
        const char *xid = error ? strstr(error, "Xid(") : NULL;
        if (xid) {
                sb_init_fixed(&sb, extra, sizeof(extra));
                if (xid_describe(&sb, (unsigned)strtoul(xid + 4, NULL, 10)) == 0)
                        sb_putc(&sb, '\n');
        }
        snapshot_programs_poll(&d->programs, NULL, NULL, 0);
        if (d->programs.running)
                snprintf(note, sizeof(note),
                         "(lspci and nvidia-smi not run: the programs of "
                         "an earlier snapshot are still running)");
        else
                snprintf(note, sizeof(note),
                         "lspci -vvs and nvidia-smi (at most 5 s each) are run by a worker "
                         "thread: their output is in this file's name + \"%s\".log",
                         SNAPSHOT_PROGRAMS_SUFFIX);
        vigil_flush_all(ctx);
        struct gpu_snapshot_in in = {ctx, slot, &d->gpu[slot].ring, error, extra, number, real_ns};
        int r = gpu_snapshot_crash(&in, note, path, sizeof(path));
        if (r < 0) {
                vlog(LOG_WARN, "gpu%u: WARNING: crash snapshot failed: %s", g->index, strerror(-r));
                return;
        }
        ctx->frame->self.snapshots++;
        if (mono_ns)
                vlog(LOG_WARN, "gpu%u: CRASH #%llu → %s", g->index, (unsigned long long)number,
                     path);
        else
                vlog(LOG_INFO, "gpu%u: snapshot (%s) → %s", g->index, error ? error : "requested",
                     path);
        if (mono_ns)
                snprintf(d->gpu[slot].last_crash, sizeof(d->gpu[slot].last_crash), "%s", path);
        eventlog_event(ctx->events, real_ns, EV_CRASH_SNAPSHOT,
                       "gpu=%u number=%llu file=%s reason=\"%s\"", g->index,
                       (unsigned long long)number, rel_path(ctx, path), error ? error : "");
        if (mono_ns)
                snapshot_followups_arm(&d->followups, (int)slot, mono_ns, path);
        if (!d->programs.running)
                start_programs(d, slot, path);
}

/* An Xid that arrives while the cooldown holds its snapshot back (often right after the
 * failure that took the snapshot) is appended to that snapshot, so the crash file
 * always names the Xid. True when it was written. */
static bool note_in_last_crash(struct gpu_events *d, unsigned slot, const char *error,
                               int64_t real_ns)
{
        struct gpu_ev_gpu *gs = &d->gpu[slot];
        const char *xid = error ? strstr(error, "Xid(") : NULL;
        char buf[1024], ts[48];
        struct strbuf sb;
        if (!xid || !gs->last_crash[0] || d->ctx->disk_paused)
                return false;
        fmt_time_iso_ms(ts, sizeof(ts), real_ns);
        sb_init_fixed(&sb, buf, sizeof(buf));
        sb_printf(&sb, "\n=== Xid after this snapshot ===\n%s %s\n", ts, error);
        if (xid_describe(&sb, (unsigned)strtoul(xid + 4, NULL, 10)) == 0)
                sb_putc(&sb, '\n');
        int fd = open(gs->last_crash, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return false;
        bool ok = write(fd, sb.buf, sb.len) == (ssize_t)sb.len;
        close(fd);
        return ok;
}

/* A critical event or a failure: a crash snapshot unless the cooldown holds it back.
 * what names it on stderr ("Xid 79 (GPU has fallen off the bus; action: ...)"). */
static void crash(struct gpu_events *d, unsigned slot, const char *error, const char *what,
                  int64_t mono_ns, int64_t real_ns)
{
        struct vigil_ctx *ctx = d->ctx;
        unsigned idx = ctx->frame->gpus[slot].index;
        uint64_t number = ctx->frame->gpu_stats[slot].crashes;
        enum snapshot_verdict v = snapshot_limiter_check(&d->gpu[slot].crash_lim, mono_ns);
        if (v != SNAPSHOT_TAKE) {
                ctx->extra->snapshots_suppressed++;
                bool noted = note_in_last_crash(d, slot, error, real_ns);
                if (v == SNAPSHOT_SUPPRESS_REPORT) {
                        vlog(LOG_WARN,
                             "gpu%u: CRITICAL EVENT #%llu %s (snapshot suppressed by 60s "
                             "cooldown)",
                             idx, (unsigned long long)number, what);
                        eventlog_event(ctx->events, real_ns, EV_SNAPSHOT_SUPPRESSED,
                                       "gpu=%u kind=crash number=%llu cooldown=60s%s%s", idx,
                                       (unsigned long long)number, noted ? " noted_in=" : "",
                                       noted ? rel_path(ctx, d->gpu[slot].last_crash) : "");
                }
                return;
        }
        vlog(LOG_WARN, "gpu%u: CRITICAL EVENT %s — capturing crash snapshot (crash #%llu)", idx,
             what, (unsigned long long)number);
        write_crash(d, slot, error, number, mono_ns, real_ns);
}

static void spike(struct gpu_events *d, unsigned slot, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        struct gpu_ev_gpu *gs = &d->gpu[slot];
        unsigned idx = ctx->frame->gpus[slot].index;
        char path[1400];
        gs->spike_number++;
        enum snapshot_verdict v = snapshot_limiter_check(&gs->spike_lim, t->mono_ns);
        if (v != SNAPSHOT_TAKE) {
                ctx->extra->snapshots_suppressed++;
                if (v == SNAPSHOT_SUPPRESS_REPORT) {
                        vlog(LOG_INFO, "gpu%u: SPIKE #%llu (cooldown, no snapshot)", idx,
                             (unsigned long long)gs->spike_number);
                        eventlog_event(ctx->events, t->real_ns, EV_SNAPSHOT_SUPPRESSED,
                                       "gpu=%u kind=spike number=%llu cooldown=10s", idx,
                                       (unsigned long long)gs->spike_number);
                }
                return;
        }
        if (!ctx->log_dir || ctx->disk_paused)
                return;
        vigil_flush_all(ctx);
        struct gpu_snapshot_in in = {ctx,       slot, &gs->ring, NULL, NULL, gs->spike_number,
                                     t->real_ns};
        int r = gpu_snapshot_spike(&in, path, sizeof(path));
        if (r < 0) {
                vlog(LOG_WARN, "gpu%u: WARNING: spike snapshot failed: %s", idx, strerror(-r));
                return;
        }
        ctx->frame->self.snapshots++;
        vlog(LOG_INFO, "gpu%u: SPIKE #%llu → %s", idx, (unsigned long long)gs->spike_number, path);
        eventlog_event(ctx->events, t->real_ns, EV_SPIKE_SNAPSHOT, "gpu=%u number=%llu file=%s",
                       idx, (unsigned long long)gs->spike_number, rel_path(ctx, path));
}

static void count_event(struct vigil_ctx *ctx, const struct nvml_event *e)
{
        unsigned types[GPU_EV_COUNT];
        unsigned n = gpu_event_counters(e, types);
        for (unsigned i = 0; i < n; i++)
                counters_add_event(ctx->extra, e->slot, (enum gpu_event_type)types[i]);
        if (e->type & NVML_EVENT_XID_CRITICAL_ERROR)
                counters_add_xid(ctx->extra, e->slot,
                                 e->data > 0xffffffffULL ? 0xffffffffu : (uint32_t)e->data);
}

static void one_event(struct gpu_events *d, const struct nvml_event *e)
{
        struct vigil_ctx *ctx = d->ctx;
        char buf[1024], what[640], ts[40];
        struct strbuf sb;
        if (e->slot >= d->ngpus)
                return;
        unsigned idx = ctx->frame->gpus[e->slot].index;
        count_event(ctx, e);
        fmt_time_iso_us(ts, sizeof(ts), e->real_ns);
        if (gpu_event_is_clock_only(e->type)) {
                if (clock_burst_add(&d->gpu[e->slot].burst, e->mono_ns)) {
                        vlog(LOG_INFO, "gpu%u: EVENT: %s ClockBurst(%u in 1.0s)", idx, ts,
                             CLOCK_BURST_EVENTS);
                        eventlog_event(ctx->events, e->real_ns, EV_NVML_EVENT,
                                       "gpu=%u event=ClockBurst count=%u window=1.0s", idx,
                                       CLOCK_BURST_EVENTS);
                }
                return;
        }
        sb_init_fixed(&sb, what, sizeof(what));
        gpu_event_story(&sb, e);
        vlog(gpu_event_is_critical(e->type) ? LOG_WARN : LOG_INFO, "gpu%u: EVENT: %s %s", idx, ts,
             what);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_line(&sb, idx, e);
        eventlog_printf(ctx->events, e->real_ns, "%s", buf);
        if (!gpu_event_is_critical(e->type))
                return;
        gpu_rules_note_crash(ctx->frame, e->slot);
        if (ctx->nvml && e->slot < ctx->nvml->ngpus) /* who ran: list them at the next sample */
                ctx->nvml->procs_wanted[e->slot] = true;
        sb_init_fixed(&sb, buf, sizeof(buf));
        sb_puts(&sb, "Event: ");
        gpu_event_names(&sb, e);
        crash(d, e->slot, buf, what, e->mono_ns, e->real_ns);
}

/* The kernel-log scan's requests: critical as an NVML Xid event is. */
static void kernel_wanted(struct gpu_events *d, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        for (unsigned slot = 0; slot < d->ngpus; slot++) {
                char *why = ctx->gpu_crash_wanted[slot];
                if (!why[0])
                        continue;
                gpu_rules_note_crash(ctx->frame, slot);
                if (ctx->nvml && slot < ctx->nvml->ngpus)
                        ctx->nvml->procs_wanted[slot] = true;
                crash(d, slot, why, why, t->mono_ns, t->real_ns);
                why[0] = '\0';
        }
}

static void drain(struct gpu_events *d)
{
        size_t n;
        do {
                n = nvml_listener_drain(d->listener, d->batch, BATCH);
                for (size_t i = 0; i < n; i++)
                        one_event(d, &d->batch[i]);
        } while (n == BATCH);
}

/* A new process list: to events.log when it differs from the last one logged, or was
 * taken for a reason other than the cadence (start, an event, a recovery). */
VIGIL_HOT static void procs_taken(struct gpu_events *d, unsigned slot)
{
        struct vigil_ctx *ctx = d->ctx;
        struct gpu_ev_gpu *gs = &d->gpu[slot];
        const struct gpu_proc_list *l = &ctx->frame->gpu_procs[slot];
        char pids[sizeof(gs->procs_last)];
        struct strbuf sb;
        if (!l->valid || l->taken_real_ns == gs->procs_seen_ns)
                return;
        gs->procs_seen_ns = l->taken_real_ns;
        sb_init_fixed(&sb, pids, sizeof(pids));
        gpu_procs_format_short(&sb, l);
        if (!strcmp(pids, gs->procs_last) && !strcmp(l->reason, "interval"))
                return;
        snprintf(gs->procs_last, sizeof(gs->procs_last), "%s", pids);
        char line[1024], work[768];
        struct strbuf lb, wb;
        sb_init_fixed(&wb, work, sizeof(work));
        gpu_procs_format_workloads(&wb, l);
        sb_init_fixed(&lb, line, sizeof(line));
        event_begin(&lb, EV_GPU_PROCESSES);
        sb_printf(&lb, " gpu=%u reason=%s compute=%u graphics=%u pids=%s",
                  ctx->frame->gpus[slot].index, l->reason, l->count[GPU_PROC_COMPUTE],
                  l->count[GPU_PROC_GRAPHICS], pids[0] ? pids : "-");
        if (work[0]) /* only when a process has one: the line is otherwise as before */
                sb_printf(&lb, " workloads=%s", work);
        eventlog_printf(ctx->events, l->taken_real_ns, "%s", line);
}

/* The flight recorder, failures, handle changes: one GPU's sample. */
static void sampled(struct gpu_events *d, unsigned slot, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        struct gpu_ev_gpu *gs = &d->gpu[slot];
        const struct gpu_frame *g = &ctx->frame->gpus[slot];
        ring_push(&gs->ring, g);
        procs_taken(d, slot);
        if (!g->ok && g->consecutive_failures == 1 && gs->was_ok) {
                char err[160];
                snprintf(err, sizeof(err), "NVML_FAILED: %s", g->error);
                crash(d, slot, err, err, t->mono_ns, t->real_ns);
        }
        gs->was_ok = g->ok;
        const struct nvml_shared *sh = ctx->nvml;
        if (g->ok && sh && slot < sh->ngpus && sh->gpu[slot].handle_gen != gs->handle_gen) {
                gs->handle_gen = sh->gpu[slot].handle_gen;
                nvml_listener_set_handle(d->listener, slot, sh->gpu[slot].handle);
        }
        const struct gpu_stats *st = &ctx->frame->gpu_stats[slot];
        if (st->anomalies[GPU_ANOM_FAN_SPIKE] > gs->spikes) {
                gs->spikes = st->anomalies[GPU_ANOM_FAN_SPIKE];
                spike(d, slot, t);
        }
}

static void requested(struct gpu_events *d, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        char err[200];
        snprintf(err, sizeof(err), "Requested: %s", ctx->snapshot_reason);
        ctx->snapshot_requested = 0;
        for (unsigned slot = 0; slot < d->ngpus; slot++) {
                vlog(LOG_INFO, "gpu%u: snapshot requested (%s)", ctx->frame->gpus[slot].index,
                     ctx->snapshot_reason);
                write_crash(d, slot, err, ctx->frame->gpu_stats[slot].crashes, 0, t->real_ns);
        }
}

VIGIL_HOT static void followups(struct gpu_events *d, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        struct snapshot_followup_due due[SNAPSHOT_FOLLOWUP_SLOTS * SNAPSHOT_FOLLOWUP_STEPS];
        char title[64], path[1400];
        size_t n =
            snapshot_followups_due(&d->followups, t->mono_ns, due, sizeof(due) / sizeof(due[0]));
        for (size_t i = 0; i < n; i++) {
                unsigned slot = (unsigned)due[i].tag;
                if (slot >= d->ngpus || !ctx->log_dir || ctx->disk_paused)
                        continue;
                const struct gpu_frame *g = &ctx->frame->gpus[slot];
                struct snapshot_header h;
                struct gpu_snapshot_in in = {
                    ctx, slot, NULL, NULL, NULL, ctx->frame->gpu_stats[slot].crashes, t->real_ns};
                snprintf(title, sizeof(title), "GPU CRASH FOLLOW-UP (+%us)", due[i].delay_s);
                gpu_snapshot_header(&in, title, &h);
                int r = evidence_followup(ctx->log_dir, &due[i], &h, ctx->kmsg, ctx->opt->root,
                                          g->pci_bus_id, &ctx->frame->gpu_procs[slot], path,
                                          sizeof(path));
                if (r < 0) {
                        vlog(LOG_WARN, "gpu%u: crash follow-up (+%us) failed: %s", g->index,
                             due[i].delay_s, strerror(-r));
                        continue;
                }
                ctx->frame->self.snapshots++;
                eventlog_event(ctx->events, t->real_ns, EV_CRASH_FOLLOWUP,
                               "gpu=%u delay=%us file=%s", g->index, due[i].delay_s,
                               rel_path(ctx, path));
        }
}

/* The listener's notes, its drops and restarts; a finished programs worker. */
static void housekeeping(struct gpu_events *d, const struct tick *t)
{
        struct vigil_ctx *ctx = d->ctx;
        char text[NVML_LISTENER_NOTE_LEN], path[1400];
        bool warn = false;
        int r;
        while (nvml_listener_take_note(d->listener, text, sizeof(text), &warn)) {
                vlog(warn ? LOG_WARN : LOG_INFO, "%s", text);
                if (warn)
                        eventlog_event(ctx->events, t->real_ns, EV_EVENT_LISTENER,
                                       "state=failed error=\"%s\"", text);
        }
        ctx->frame->self.events_dropped = nvml_listener_dropped(d->listener);
        ctx->extra->event_listener_restarts = nvml_listener_restarts(d->listener);
        if (snapshot_programs_poll(&d->programs, &r, path, sizeof(path))) {
                if (r < 0)
                        vlog(LOG_WARN, "crash snapshot programs: %s", strerror(-r));
                else
                        vlog(LOG_INFO, "crash snapshot programs → %s", path);
        }
}

static void start_recorders(struct gpu_events *d);
static void start_listener(struct gpu_events *d);

VIGIL_HOT static void gpu_events_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct gpu_events *d = state;
        bool first = !d->started;
        if (first)
                start_recorders(d);
        for (unsigned slot = 0; slot < d->ngpus; slot++)
                if (ctx->frame->gpus[slot].sampled)
                        sampled(d, slot, t);
        nvml_listener_nudge(d->listener);
        drain(d);
        kernel_wanted(d, t);
        if (ctx->snapshot_requested)
                requested(d, t);
        followups(d, t);
        housekeeping(d, t);
        if (first) /* its notes are logged from the next tick on, after system-info's */
                start_listener(d);
}

/* At the first GPU tick, after the NVML source's first (its GPUs acquired, or found
 * not answering): a flight recorder per GPU with its fan count. */
static void start_recorders(struct gpu_events *d)
{
        const struct nvml_shared *sh = d->ctx->nvml;
        size_t cap = ring_capacity_for(RING_WINDOW_NS, d->ctx->opt->gpu_interval_ns);
        d->started = true;
        for (unsigned i = 0; i < d->ngpus; i++) {
                struct gpu_ev_gpu *gs = &d->gpu[i];
                if (ring_init(&gs->ring, cap, sh->gpu[i].nfans) < 0)
                        vlog(LOG_WARN, "gpu%u: no memory for the flight recorder",
                             sh->gpu[i].index);
                gs->handle_gen = sh->gpu[i].handle_gen;
                /* Acquired (identified): its first failure is a crash. */
                gs->was_ok = sh->gpu[i].handle != NULL;
        }
}

/* At the end of the first GPU tick: the listener, with the handles acquired (a GPU
 * acquired later is handed to it at its first good sample: sampled()). */
static void start_listener(struct gpu_events *d)
{
        const struct nvml_shared *sh = d->ctx->nvml;
        nvmlDevice_t handles[VIGIL_MAX_GPUS] = {0};
        for (unsigned i = 0; i < d->ngpus; i++)
                handles[i] = sh->gpu[i].handle;
        unsigned long long types = NVML_LISTENER_TYPES;
        if (d->ctx->opt->no_gpu_clock_events)
                types &= ~(unsigned long long)NVML_EVENT_CLOCK;
        int r = nvml_listener_start(&d->listener, &sh->lib, d->ngpus, handles, NVML_EVQ_DEFAULT_CAP,
                                    gpu_event_wants_action, types);
        if (r == -ENOTSUP)
                vlog(LOG_INFO, "NVML has no event interface: GPU events not listened to");
        else if (r < 0)
                vlog(LOG_WARN, "NVML event listener not started: %s", strerror(-r));
}

static int gpu_events_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct nvml_shared *sh = ctx->nvml;
        if (!sh || sh->ngpus == 0)
                return -ENODEV;
        struct gpu_events *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->ctx = ctx;
        d->ngpus = sh->ngpus < VIGIL_MAX_GPUS ? sh->ngpus : VIGIL_MAX_GPUS;
        snapshot_programs_init(&d->programs);
        for (unsigned i = 0; i < d->ngpus; i++) {
                struct gpu_ev_gpu *gs = &d->gpu[i];
                snapshot_limiter_init(&gs->crash_lim, SNAPSHOT_CRASH);
                snapshot_limiter_init(&gs->spike_lim, SNAPSHOT_SPIKE);
        }
        *ret_state = d;
        return 0;
}

static void gpu_events_fini(void *state)
{
        struct gpu_events *d = state;
        if (!d)
                return;
        if (!nvml_listener_stop(d->listener)) {
                vlog(LOG_WARN, "NVML: the event listener's wait did not end when interrupted: "
                               "left running, nvmlShutdown skipped");
                if (d->ctx->nvml)
                        d->ctx->nvml->listener_left = true;
        }
        snapshot_programs_fini(&d->programs);
        for (unsigned i = 0; i < d->ngpus; i++)
                ring_fini(&d->gpu[i].ring);
        free(d);
}

const struct vigil_detector vigil_detector_gpu_events = {
    .name = "gpu-events",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = gpu_events_init,
    .feed = gpu_events_feed,
    .fini = gpu_events_fini,
};
