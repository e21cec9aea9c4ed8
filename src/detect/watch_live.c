/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: is each watched program (--watch) running, on the host clock, from the
 * process scan (core/proc_ends.h's struct watch_procs, filled by collect/procs.c):
 *
 *   type=WATCH watch="player" state="missing"                 none at vigil's start
 *   type=WATCH watch="player" state="gone" old_pid=812 comm="chromium"
 *               cause="out of memory (chromium pid 812)"      its last process ended
 *   type=WATCH watch="player" state="back" pid=990 down_s=14 restarts=1
 *   type=WATCH watch="player" state="restarted" pid=990 old_pid=812 comm="chromium"
 *               restarts=2 cause="segfault (chromium pid 812)"
 *
 * The program is the watch's oldest process (the earliest start time: the player, not
 * its short-lived children); a restart is that process replaced by another (its pid
 * gone, or reused by a new process), or processes again after none. Each restart
 * counts in vigil_watch_restarts_total{watch}. The cause is what the kernel said of
 * the old process or the watch in the last CAUSE_WINDOW_NS (detect/kernel_host.c:
 * an OOM kill, a segfault, a trap), or left out. A gone or restarted program also
 * writes an incident snapshot (incidents/, one a minute at most, the snapshot
 * limiter's): the watch's count, PSS and CPU over the last minute and the kernel
 * log's lines that name its command or pid. Scans that could not list every process
 * (the pid table full, /proc unreadable) decide nothing.
 *
 * A watch of a systemd unit (--watch NAME=unit:UNIT: its processes are the unit's
 * cgroup's) also has the unit's state read by `systemctl show` on a thread of its own
 * (collect/systemd_unit.h: every UNIT_POLL_NS, and soon after its program ended):
 *
 *   type=UNIT watch="player" unit="player.service" active="activating"
 *               sub="auto-restart" result="signal" nrestarts=4 main="killed by signal 11"
 *
 * one line when its ActiveState, Result or NRestarts changes, in
 * vigil_unit_restarts_total and vigil_unit_failed; a unit not installed, or systemctl
 * missing or failing, is said once and the rest goes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/kmsg.h"
#include "collect/systemd_unit.h"
#include "core/counters.h"
#include "core/eventlog.h"
#include "core/vigil.h"
#include "detect/snapshot.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define CAUSE_WINDOW_NS (60 * NSEC_PER_SEC)
#define HISTORY_MAX     64 /* samples kept per watch: a minute at the default interval */
#define HISTORY_NS      (60 * NSEC_PER_SEC)
#define KLOG_LINES      20 /* kernel log lines about the program in its snapshot */

struct sample {
        int64_t real_ns, mono_ns;
        double count, pss_bytes, cpu_pct;
};

struct live_watch {
        bool started; /* a complete scan was seen */
        bool up;
        struct watch_procs last; /* the last complete scan with processes */
        int64_t down_mono_ns;
        struct sample hist[HISTORY_MAX];
        unsigned nhist, next;
};

struct watch_live {
        struct live_watch w[VIGIL_MAX_WATCHES];
        struct snapshot_limiter limit;
        /* the watches of a unit: the poller's unit i is watch unit_watch[i] */
        struct unit_poller *units;
        unsigned nunits;
        unsigned unit_watch[VIGIL_MAX_WATCHES];
        uint64_t unit_reads[VIGIL_MAX_WATCHES];
        struct unit_state unit_told[VIGIL_MAX_WATCHES];
        bool unit_error_said, unit_missing_said[VIGIL_MAX_WATCHES];
};

static void keep_sample(struct live_watch *lw, const struct watch_frame *wf, const struct tick *t)
{
        struct sample *s = &lw->hist[lw->next];
        *s = (struct sample){t->real_ns, t->mono_ns, wf->count, wf->pss_bytes, wf->cpu_pct};
        lw->next = (lw->next + 1) % HISTORY_MAX;
        if (lw->nhist < HISTORY_MAX)
                lw->nhist++;
}

/* What the kernel said of the old program (pid, or any process of watch w) lately. */
static void cause_of(const struct vigil_ctx *ctx, int32_t pid, int w, int64_t now_ns, char *out,
                     size_t cap)
{
        const struct proc_end *e =
            proc_ends_find(&ctx->proc_ends, pid, w, now_ns - CAUSE_WINDOW_NS);
        out[0] = '\0';
        if (e)
                snprintf(out, cap, "%s (%s pid %d)", e->what, e->comm, (int)e->pid);
}

static void put_value(struct snapshot *s, double v, double scale, int decimals)
{
        if (VAL_OK(v))
                snapshot_printf(s, " %*.*f", 10, decimals, v / scale);
        else
                snapshot_printf(s, " %10s", "n/a");
}

static void section_history(struct snapshot *s, const struct live_watch *lw, const char *name,
                            int64_t now_ns)
{
        char title[128];
        snprintf(title, sizeof(title), "%s: the last minute", name);
        snapshot_section(s, title);
        snapshot_puts(s, "time                         procs     pss_mb    cpu_pct\n");
        unsigned first = (lw->next + HISTORY_MAX - lw->nhist) % HISTORY_MAX;
        for (unsigned i = 0; i < lw->nhist; i++) {
                const struct sample *x = &lw->hist[(first + i) % HISTORY_MAX];
                if (now_ns - x->mono_ns > HISTORY_NS)
                        continue;
                char when[48];
                fmt_time_iso_ms(when, sizeof(when), x->real_ns);
                snapshot_printf(s, "%-23s", when);
                put_value(s, x->count, 1, 0);
                put_value(s, x->pss_bytes, 1048576.0, 1);
                put_value(s, x->cpu_pct, 1, 1);
                snapshot_puts(s, "\n");
        }
}

/* Does the kernel log line name the program: its command, or its pid as the kernel's
 * lines print one ("[812]", "process 812 ", "pid=812,")? */
static bool names_program(const char *text, const struct watch_procs *p)
{
        char pid[3][32];
        if (strlen(p->leader_comm) >= 3 && strstr(text, p->leader_comm))
                return true;
        snprintf(pid[0], sizeof(pid[0]), "[%d]", (int)p->leader);
        snprintf(pid[1], sizeof(pid[1]), "process %d ", (int)p->leader);
        snprintf(pid[2], sizeof(pid[2]), "pid=%d,", (int)p->leader);
        return p->leader > 0 &&
               (strstr(text, pid[0]) || strstr(text, pid[1]) || strstr(text, pid[2]));
}

static void section_klog(struct snapshot *s, struct kmsg *k, const struct watch_procs *p)
{
        size_t n = k ? kmsg_count(k) : 0, shown = 0, from = n;
        struct kmsg_record rec;
        snapshot_section(s, "dmesg (the program)");
        /* the newest KLOG_LINES that name it, oldest first */
        while (from > 0 && shown < KLOG_LINES)
                if (kmsg_get(k, --from, &rec) && names_program(rec.text, p))
                        shown++;
        for (size_t i = from; i < n; i++) {
                char ts[32];
                if (!kmsg_get(k, i, &rec) || !names_program(rec.text, p))
                        continue;
                kmsg_format_time(ts, sizeof(ts), rec.usec);
                snapshot_printf(s, "%s %s\n", ts, rec.text);
        }
        if (!shown)
                snapshot_puts(s, k ? "(no kernel log line names it)\n"
                                   : "(the kernel log is not read)\n");
}

static void snapshot_program(struct watch_live *st, struct vigil_ctx *ctx, const struct tick *t,
                             unsigned w, const char *reason)
{
        struct live_watch *lw = &st->w[w];
        enum snapshot_verdict v = snapshot_limiter_check(&st->limit, t->mono_ns);
        if (v != SNAPSHOT_TAKE || !ctx->log_dir || ctx->disk_paused)
                return;
        struct snapshot *s;
        char path[1024];
        vigil_flush_all(ctx);
        int r = snapshot_open(&s, ctx->log_dir, SNAPSHOT_INCIDENT, t->real_ns);
        if (r == 0) {
                struct snapshot_header h = {
                    .title = "PROGRAM INCIDENT",
                    .real_ns = t->real_ns,
                    .error = reason,
                    .uptime_s = (t->mono_ns - ctx->frame->self.started_mono_ns) / NSEC_PER_SEC,
                    .samples = ctx->frame->self.samples[VCLOCK_HOST],
                    .peak_temp_c = VAL_MISSING,
                    .peak_power_w = VAL_MISSING,
                    .event_number = ctx->extra->watch_restarts[w] + 1,
                };
                snapshot_header(s, &h);
                section_history(s, lw, ctx->frame->watches[w].name, t->mono_ns);
                section_klog(s, ctx->kmsg, &lw->last);
                r = snapshot_commit(s, path, sizeof(path));
        }
        if (r < 0) {
                vlog(LOG_ERR, "Incident (%s): snapshot failed: %s", reason, strerror(-r));
                ctx->frame->self.write_errors++;
                return;
        }
        ctx->frame->self.snapshots++;
        /* watch= says whose: the health rules give the player's state from it, not
         * from a Pi's or a storage incident. */
        eventlog_event(ctx->events, t->real_ns, EV_INCIDENT, "reason=\"%s\" snapshot=%s watch=%s",
                       reason, path, ctx->frame->watches[w].name);
}

/* One WATCH line, and for a program that ended, its snapshot. */
static void tell(struct watch_live *st, struct vigil_ctx *ctx, const struct tick *t, unsigned w,
                 const char *state, const struct watch_procs *now, const char *cause)
{
        struct live_watch *lw = &st->w[w];
        const char *name = ctx->frame->watches[w].name;
        char line[768], reason[256];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_WATCH);
        event_put(&sb, "watch", name);
        event_put(&sb, "state", state);
        if (now && now->leader > 0)
                sb_printf(&sb, " pid=%d", (int)now->leader);
        bool ended = !strcmp(state, "gone") || !strcmp(state, "restarted");
        if (ended && lw->last.leader > 0) {
                sb_printf(&sb, " old_pid=%d", (int)lw->last.leader);
                event_put(&sb, "comm", lw->last.leader_comm);
        }
        if (!strcmp(state, "back"))
                sb_printf(&sb, " down_s=%lld",
                          (long long)((t->mono_ns - lw->down_mono_ns) / NSEC_PER_SEC));
        if (!strcmp(state, "back") || !strcmp(state, "restarted"))
                sb_printf(&sb, " restarts=%llu", (unsigned long long)ctx->extra->watch_restarts[w]);
        if (cause && cause[0])
                event_put(&sb, "cause", cause);
        eventlog_printf(ctx->events, t->real_ns, "%s", line);
        if (!ended)
                return;
        for (unsigned i = 0; st->units && i < st->nunits; i++)
                if (st->unit_watch[i] == w)
                        unit_poller_poke(st->units); /* what systemd makes of it */
        snprintf(reason, sizeof(reason), "%s %s%s%s", name, state, cause && cause[0] ? ": " : "",
                 cause ? cause : "");
        snapshot_program(st, ctx, t, w, reason);
}

static bool replaced(const struct watch_procs *old, const struct watch_procs *now)
{
        if (old->leader <= 0 || now->leader <= 0 || old->leader == now->leader)
                return old->leader == now->leader && old->leader > 0 &&
                       old->leader_start != now->leader_start; /* the pid reused */
        return !watch_procs_has(now, old->leader);
}

static void feed_one(struct watch_live *st, struct vigil_ctx *ctx, const struct tick *t, unsigned w)
{
        struct live_watch *lw = &st->w[w];
        const struct watch_procs *now = &ctx->watch_procs[w];
        char cause[200];
        keep_sample(lw, &ctx->frame->watches[w], t);
        if (!now->known)
                return;
        bool running = now->count > 0;
        if (!lw->started) {
                lw->started = true;
                lw->up = running;
                lw->down_mono_ns = t->mono_ns;
                if (!running)
                        tell(st, ctx, t, w, "missing", NULL, NULL);
        } else if (lw->up && !running) {
                cause_of(ctx, lw->last.leader, (int)w, t->mono_ns, cause, sizeof(cause));
                lw->up = false;
                lw->down_mono_ns = t->mono_ns;
                tell(st, ctx, t, w, "gone", NULL, cause);
        } else if (!lw->up && running) {
                lw->up = true;
                ctx->extra->watch_restarts[w]++;
                tell(st, ctx, t, w, "back", now, NULL);
        } else if (running && replaced(&lw->last, now)) {
                cause_of(ctx, lw->last.leader, (int)w, t->mono_ns, cause, sizeof(cause));
                ctx->extra->watch_restarts[w]++;
                tell(st, ctx, t, w, "restarted", now, cause);
        }
        if (running)
                lw->last = *now;
}

/* A unit's new reading: its counters, and a UNIT line when it changed. */
static void unit_read(struct watch_live *st, struct vigil_ctx *ctx, const struct tick *t,
                      unsigned i, const struct unit_state *u)
{
        unsigned w = st->unit_watch[i];
        struct unit_counters *uc = &ctx->extra->units[w];
        const struct unit_state *old = &st->unit_told[i];
        const char *name = ctx->frame->watches[w].name;
        if (!u->loaded && !st->unit_missing_said[i]) {
                vlog(LOG_WARN, "watch %s: systemd unit %s is not installed (LoadState not loaded)",
                     name, uc->unit);
                st->unit_missing_said[i] = true;
        }
        uc->known = true;
        uc->nrestarts = u->nrestarts;
        uc->failed = !strcmp(u->active, "failed");
        if (old->known && !strcmp(old->active, u->active) && !strcmp(old->result, u->result) &&
            old->nrestarts == u->nrestarts)
                return;
        char line[768], main_text[64];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_UNIT);
        event_put(&sb, "watch", name);
        event_put(&sb, "unit", uc->unit);
        event_put(&sb, "active", u->active);
        if (u->sub[0])
                event_put(&sb, "sub", u->sub);
        if (u->result[0])
                event_put(&sb, "result", u->result);
        if (u->nrestarts >= 0)
                sb_printf(&sb, " nrestarts=%lld", (long long)u->nrestarts);
        unit_main_describe(u, main_text, sizeof(main_text));
        if (main_text[0])
                event_put(&sb, "main", main_text);
        eventlog_printf(ctx->events, t->real_ns, "%s", line);
        st->unit_told[i] = *u;
}

VIGIL_HOT static void units_feed(struct watch_live *st, struct vigil_ctx *ctx, const struct tick *t)
{
        char err[160];
        for (unsigned i = 0; st->units && i < st->nunits; i++) {
                struct unit_state u;
                uint64_t reads;
                if (unit_poller_get(st->units, i, &u, &reads) && reads != st->unit_reads[i]) {
                        st->unit_reads[i] = reads;
                        unit_read(st, ctx, t, i, &u);
                }
        }
        if (st->units && !st->unit_error_said) {
                unit_poller_error(st->units, err, sizeof(err));
                if (err[0]) {
                        vlog(LOG_WARN, "watch: the systemd units' state is not read: %s", err);
                        st->unit_error_said = true;
                }
        }
}

VIGIL_HOT static void watch_live_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct watch_live *st = state;
        for (unsigned w = 0; w < ctx->frame->nwatches && w < VIGIL_MAX_WATCHES; w++)
                feed_one(st, ctx, t, w);
        units_feed(st, ctx, t);
}

static void watch_live_fini(void *state)
{
        struct watch_live *st = state;
        if (st)
                unit_poller_stop(st->units);
        free(st);
}

/* The poller of the watches that name a systemd unit; none: nothing started. */
static void units_start(struct watch_live *st, struct vigil_ctx *ctx)
{
        const char *names[VIGIL_MAX_WATCHES];
        for (unsigned w = 0; w < ctx->opt->nwatches && w < VIGIL_MAX_WATCHES; w++) {
                const char *unit = watch_spec_unit(&ctx->opt->watches[w]);
                if (!unit)
                        continue;
                copy_bounded(ctx->extra->units[w].unit, sizeof(ctx->extra->units[w].unit), unit,
                             strlen(unit));
                st->unit_watch[st->nunits] = w;
                names[st->nunits++] = unit;
        }
        int r = st->nunits ? unit_poller_start(&st->units, names, st->nunits, 0) : 0;
        if (r < 0)
                vlog(LOG_WARN, "watch: cannot read the systemd units' state: %s", strerror(-r));
}

static int watch_live_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (ctx->opt->nwatches == 0)
                return -ENODEV;
        struct watch_live *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        snapshot_limiter_init(&st->limit, SNAPSHOT_INCIDENT);
        units_start(st, ctx);
        *ret_state = st;
        return 0;
}

const struct vigil_detector vigil_detector_watch_live = {
    .name = "watch-live",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = watch_live_init,
    .feed = watch_live_feed,
    .fini = watch_live_fini,
};
