/* SPDX-License-Identifier: Apache-2.0 */
/* Detector: processes the kernel ended, as its log tells it (collect/host_klog.h), read
 * live through the kernel log reader's tap like the GPU lines (detect/kernel_gpu.c):
 * every record the kernel hands over from the daemon's start position on.
 *
 *   type=OOM_KILL pid=1234 comm="chromium" watch="player" scope="memory cgroup"
 *   cgroup="/system.slice/player.service" rss_kb=527360
 *   type=PROCESS_FAULT pid=1234 comm="chromium" watch="player" what="segfault"
 *
 * The OOM killer prints its summary line (cgroup, constraint) before the Killed line of
 * the same victim: the summary is remembered, the Killed line is the event. A victim is
 * a watch's when its pid was among the watch's processes at this host tick or the one
 * before (core/proc_ends.h: the kill is usually logged before the process is gone from
 * /proc, and the scan runs before the log is read), or its command is the watch's
 * oldest process's; it is counted in vigil_oom_kills_total{victim} (the watch's name,
 * else "other") and remembered for the liveness detector (detect/watch_live.c), which
 * names it as the cause when that watch's program goes. Fault lines of one command
 * are held to LINES_PER_MIN events a minute (the kernel rate-limits them too).
 *
 * Every machine, also without a readable kernel log: /proc/vmstat's oom_kill (Linux
 * 4.13+, mm/vmstat.c vmstat_text "oom_kill"; counted in mm/oom_kill.c
 * __oom_kill_process, count_vm_event(OOM_KILL)) is vigil_kernel_oom_kills_total, read
 * every host tick; a kernel without it is said once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/host_klog.h"
#include "collect/kmsg.h"
#include "core/counters.h"
#include "core/eventlog.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define QUEUE_MAX     64 /* lines between two ticks; more are dropped, counted */
#define SUMMARIES_MAX 4  /* OOM summaries waiting for their Killed line */
#define LINES_PER_MIN 10 /* PROCESS_FAULT lines a minute */
#define VMSTAT_MAX    (16 * 1024)

struct kernel_host {
        struct vigil_ctx *ctx;
        bool tapped;
        struct host_klog_line queue[QUEUE_MAX];
        unsigned nqueue;
        uint64_t dropped; /* lines past QUEUE_MAX in a tick, since start */
        bool dropped_said;
        struct host_klog_line summaries[SUMMARIES_MAX];
        unsigned next_summary;
        struct watch_procs prev[VIGIL_MAX_WATCHES]; /* the previous tick's */
        int64_t window_ns;                          /* the fault lines' minute */
        unsigned window_lines;
        struct pfile vmstat;
        bool vmstat_said;
};

static void kernel_host_tap(void *arg, const struct kmsg_record *rec)
{
        struct kernel_host *s = arg;
        struct host_klog_line l;
        if (host_klog_parse(rec->text, rec->len, &l) < 0)
                return;
        if (s->nqueue >= QUEUE_MAX) {
                s->dropped++;
                return;
        }
        s->queue[s->nqueue++] = l;
}

/* The watch whose process pid (comm) was, or -1: its pid among the watch's, or, for a
 * watch with more processes than WATCH_PIDS_MAX, its command the watch's program's (a
 * python3 of another script is no player's). */
static int watch_of(const struct kernel_host *s, int32_t pid, const char *comm)
{
        const struct vigil_ctx *ctx = s->ctx;
        unsigned n = ctx->frame->nwatches;
        for (unsigned w = 0; w < n && w < VIGIL_MAX_WATCHES; w++)
                if (watch_procs_has(&ctx->watch_procs[w], pid) || watch_procs_has(&s->prev[w], pid))
                        return (int)w;
        /* A watch with more processes than its pids kept: by its program's command. */
        for (unsigned w = 0; w < n && w < VIGIL_MAX_WATCHES; w++) {
                const struct watch_procs *a = &ctx->watch_procs[w], *b = &s->prev[w];
                if ((a->count > a->npids && !strcmp(a->leader_comm, comm)) ||
                    (b->count > b->npids && !strcmp(b->leader_comm, comm)))
                        return (int)w;
        }
        return -1;
}

static void remember(struct kernel_host *s, const struct host_klog_line *l, int watch,
                     int64_t mono_ns)
{
        struct proc_end e = {.pid = l->pid, .watch = watch, .mono_ns = mono_ns};
        copy_bounded(e.comm, sizeof(e.comm), l->comm, strlen(l->comm));
        copy_bounded(e.what, sizeof(e.what), l->what, strlen(l->what));
        proc_ends_add(&s->ctx->proc_ends, &e);
}

static void on_oom_kill(struct kernel_host *s, struct host_klog_line *l, const struct tick *t)
{
        struct vigil_ctx *ctx = s->ctx;
        for (unsigned i = 0; i < SUMMARIES_MAX; i++) {
                const struct host_klog_line *m = &s->summaries[i];
                if (m->pid == l->pid && m->kind == HKLOG_OOM_SUMMARY) {
                        copy_bounded(l->cgroup, sizeof(l->cgroup), m->cgroup, strlen(m->cgroup));
                        l->memcg |= m->memcg;
                        s->summaries[i].pid = 0;
                }
        }
        int w = watch_of(s, l->pid, l->comm);
        ctx->extra->oom_kills[w >= 0 ? (unsigned)w : VIGIL_MAX_WATCHES]++;
        remember(s, l, w, t->mono_ns);
        char line[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_OOM_KILL);
        sb_printf(&sb, " pid=%d", (int)l->pid);
        event_put(&sb, "comm", l->comm);
        if (w >= 0)
                event_put(&sb, "watch", ctx->frame->watches[w].name);
        event_put(&sb, "scope", l->memcg ? "memory cgroup" : "machine");
        if (l->cgroup[0])
                event_put(&sb, "cgroup", l->cgroup);
        if (l->rss_kb >= 0)
                sb_printf(&sb, " rss_kb=%lld", (long long)l->rss_kb);
        eventlog_printf(ctx->events, t->real_ns, "%s", line);
}

static void on_fault(struct kernel_host *s, const struct host_klog_line *l, const struct tick *t)
{
        struct vigil_ctx *ctx = s->ctx;
        int w = watch_of(s, l->pid, l->comm);
        remember(s, l, w, t->mono_ns);
        if (t->mono_ns - s->window_ns >= 60 * NSEC_PER_SEC) {
                s->window_ns = t->mono_ns;
                s->window_lines = 0;
        }
        if (s->window_lines++ >= LINES_PER_MIN && w < 0)
                return; /* a watch's own is always told */
        char line[512];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_PROCESS_FAULT);
        sb_printf(&sb, " pid=%d", (int)l->pid);
        event_put(&sb, "comm", l->comm);
        if (w >= 0)
                event_put(&sb, "watch", ctx->frame->watches[w].name);
        event_put(&sb, "what", l->what);
        eventlog_printf(ctx->events, t->real_ns, "%s", line);
}

/* /proc/vmstat's "oom_kill N" line. */
static void read_vmstat(struct kernel_host *s)
{
        struct counters *x = s->ctx->extra;
        int n = pfile_is_open(&s->vmstat) ? pfile_read(&s->vmstat) : -ENOENT;
        struct cursor c = cur_make(s->vmstat.buf, n > 0 ? (size_t)n : 0);
        uint64_t v;
        if (n > 0 && cur_find_line(&c, "oom_kill ") && cur_u64(&c, &v) == 0) {
                x->oom_kernel = v;
                x->oom_kernel_known = true;
                return;
        }
        x->oom_kernel_known = false;
        if (!s->vmstat_said) {
                vlog(LOG_INFO,
                     "/proc/vmstat has no oom_kill count (%s); OOM kills are counted "
                     "from the kernel log only",
                     n < 0 ? strerror(-n) : "a kernel before 4.13");
                s->vmstat_said = true;
        }
}

VIGIL_HOT static void kernel_host_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct kernel_host *s = state;
        for (unsigned i = 0; i < s->nqueue; i++) {
                struct host_klog_line *l = &s->queue[i];
                if (l->kind == HKLOG_OOM_SUMMARY) {
                        s->summaries[s->next_summary] = *l;
                        s->next_summary = (s->next_summary + 1) % SUMMARIES_MAX;
                } else if (l->kind == HKLOG_OOM_KILL) {
                        on_oom_kill(s, l, t);
                } else {
                        on_fault(s, l, t);
                }
        }
        s->nqueue = 0;
        if (s->dropped && !s->dropped_said) {
                vlog(LOG_WARN,
                     "kernel log: process lines came faster than they are read (%u a "
                     "tick at most); those past it are not reported",
                     (unsigned)QUEUE_MAX);
                s->dropped_said = true;
        }
        memcpy(s->prev, ctx->watch_procs, sizeof(s->prev));
        read_vmstat(s);
}

static void kernel_host_fini(void *state)
{
        struct kernel_host *s = state;
        if (s->tapped)
                kmsg_set_tap(s->ctx->kmsg, NULL, s);
        pfile_close(&s->vmstat);
        free(s);
}

static int kernel_host_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct kernel_host *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ctx = ctx;
        if (ctx->kmsg && !kmsg_error(ctx->kmsg) &&
            kmsg_set_tap(ctx->kmsg, kernel_host_tap, s) == 0) {
                s->tapped = true;
                ctx->extra->oom_on = true;
        }
        pfile_open(&s->vmstat, ctx->opt->root, "/proc/vmstat", VMSTAT_MAX);
        *ret_state = s;
        return 0;
}

const struct vigil_detector vigil_detector_kernel_host = {
    .name = "kernel-host",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = kernel_host_init,
    .feed = kernel_host_feed,
    .fini = kernel_host_fini,
};
