/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon: set-up, the sampling loop, signals and shutdown.
 *
 * One thread samples. It sleeps until the next absolute deadline (sched.c), runs the
 * sources due, then the detectors and sinks, then publishes a copy of the frame for
 * readers in other threads. Signals only set flags; the loop acts on them.
 *
 * The loop can move to another thread (ctx->move_loop): when the loop thread is stuck
 * in a driver call (core/stall_guard.h), the guard thread carries the loop on. So the
 * loop keeps the tick in progress and where it is in it in struct daemon, not on its
 * stack, the new loop thread takes the signals (a handler on another thread passes the
 * signal on to it), and the thread that ends the loop also ends the process. */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/kmsg.h"
#include "collect/proc_meminfo.h"
#include "daemon/control.h"
#include "daemon/diskguard.h"
#include "core/history.h"
#include "encode/host_row_text.h"
#include "daemon/lock.h"
#include "core/run_findings.h"
#include "daemon/sched.h"
#include "core/vigil.h"
#include "daemon/daemon.h"
#include "daemon/registry.h"
#include "core/eventlog.h"
#include "core/counters.h"
#include "detect/health_watch.h"
#include "detect/snapshot.h"
#include "report/postmortem.h"
#include "push/rw_identity.h"
#include "push/rw_queue.h"
#include "collect/hw_identity.h"
#include "util/clock.h"
#include "util/fdwait.h"
#include "util/log.h"
#include "util/notify.h"
#include "util/safedir.h"
#include "util/pfile.h"
#include "util/textmap.h"
#include "util/hot.h"

/* Signal flags: the one place vigil keeps process-global state, because a signal
 * handler can reach nothing else. */
/* Lock-free atomics: set by a handler on whichever thread took the signal, read by the
 * loop thread. */
static atomic_int sig_stop, sig_hup, sig_usr1, sig_usr2;
/* The thread running the loop, once it is not the main thread any more. */
static atomic_int loop_moved;
static _Atomic(pthread_t) loop_thread;

static void on_signal(int sig)
{
        /* A signal caught by a thread the loop left wakes the loop thread too. */
        if (atomic_load(&loop_moved)) {
                pthread_t lt = atomic_load(&loop_thread);
                if (!pthread_equal(lt, pthread_self()))
                        pthread_kill(lt, sig);
        }
        switch (sig) {
        case SIGTERM:
        case SIGINT:
                atomic_store(&sig_stop, 1);
                break;
        case SIGHUP:
                atomic_store(&sig_hup, 1);
                break;
        case SIGUSR1:
                atomic_store(&sig_usr1, 1);
                break;
        case SIGUSR2:
                atomic_store(&sig_usr2, 1);
                break;
        }
}

static const int handled_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};

static void install_signals(void)
{
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* No SA_RESTART: the sleep must return EINTR so the loop sees the flag. */
        for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
                sigaction(handled_signals[i], &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
}

/* Blocks of this size and more are mapped on their own and unmapped when freed. Set, it
 * also stops glibc's dynamic threshold (mallopt(3), M_MMAP_THRESHOLD: "the threshold is
 * adjusted upward to the size of the freed chunk"), which after a /report page of a few
 * MB kept every later large block in the heap, where its pages stay resident. 36 kB,
 * not glibc's 128 kB: the daemon's tables sized for their most (the dashboard's history,
 * the rules' per-GPU state, the trend's series: 40-110 kB each) are calloc'd and used in
 * part or filled over time, and calloc clears a block taken from the heap whole
 * (malloc/malloc.c, __libc_calloc: only memory the heap just got from the kernel is
 * known to be zero), faulting every page in at once; a mapped block is zero pages the
 * kernel fills only where written. Just above the blocks that come and go often:
 * opendir(3)'s (glibc dirent/opendir.c, __alloc_dir: 4 * BUFSIZ, 32 kB, and the DIR),
 * taken at every scan of /proc, and an HTTP connection's 32 kB buffer, which as mapped
 * blocks would each cost an mmap and a munmap. glibc maps a large block only when the
 * heap's top has no room for it (malloc/malloc.c: _int_malloc takes it from the top,
 * sysmalloc maps it): M_TOP_PAD 0 grows the heap by what is asked and no more (default
 * 128 kB more), so the top has no room to spare. The loop allocates almost nothing
 * once running, so the heap's growth costs no system calls then. */
#define MMAP_THRESHOLD_BYTES (36 * 1024)

#define SYNC_SLACK_NS (20 * NSEC_PER_MSEC)
/* When the code and read-only data pages are dropped a second time (util/textmap.h). */
#define LATE_DROP_NS (90 * NSEC_PER_SEC)
/* How late a tick may come, for the loss bound of watch rounds (util/fssync.h). */
#define WATCH_LATE_NS (250 * NSEC_PER_MSEC)
/* A write failure is logged when it starts, then at most this often while it lasts. */
#define WRITE_FAIL_LOG_EVERY_NS (60 * NSEC_PER_SEC)

/* Failed log writes (EIO, ENOSPC...): said once when they start, rate-limited while
 * they last, and the gap recorded in events.log when writes succeed again. */
struct write_health {
        uint64_t seen_errors; /* self.write_errors already accounted for */
        bool failing;
        int last_error;        /* -errno */
        uint64_t dropped;      /* rows lost in this episode */
        int64_t since_real_ns; /* episode start */
        int64_t last_error_mono_ns;
        int64_t last_log_mono_ns; /* 0 = never logged */
};

/* The running plug-ins and the loop's own state. */
struct daemon {
        struct vigil_ctx ctx;
        struct sched sched;
        struct diskguard guard;
        void *src_state[32];
        bool src_on[32];
        void *det_state[32];
        bool det_on[32];
        bool det_kmsg[32];   /* on vigil_kmsg_detectors: fed when the kernel log has lines */
        struct fdwait kwait; /* the deadlines, and the kernel log when there is one */
        void *sink_state[32];
        bool sink_on[32];
        int lock_fd;
        uint64_t source_errors;
        int64_t last_sync_mono_ns;
        int64_t sync_every_ns; /* between periodic sync rounds (fssync_cadence) */
        struct write_health wh;
        /* The tick in progress, and where run_sources is in it: clock, source, and when
         * the clock's sources started. */
        struct tick t;
        unsigned run_c;
        size_t run_i;
        int64_t run_start_ns;
        /* Service-manager keep-alives: every watchdog_ns (0: none), the last at. */
        int64_t watchdog_ns, last_watchdog_ns;
        struct host_row_text host_text; /* ctx.host_text */
        struct fssync log_sync;         /* ctx.log_sync */
        struct pfile meminfo;           /* /proc/meminfo for log_sync's choice; fd -1: none */
        int64_t late_drop_ns;           /* when to drop start-up's pages again; 0: done */
};

/* ctx->flush_sinks: every running sink's flush, in registry order. */
VIGIL_HOT static void flush_sinks(struct vigil_ctx *ctx)
{
        struct daemon *d = (struct daemon *)ctx; /* ctx is the first member */
        for (size_t i = 0; vigil_sinks[i]; i++)
                if (d->sink_on[i] && vigil_sinks[i]->flush)
                        vigil_sinks[i]->flush(d->sink_state[i], ctx);
}

static int make_dir(const char *dir)
{
        char path[1024];
        snprintf(path, sizeof(path), "%s", dir);
        for (char *p = path + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(path, 0750) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* What would grant access, after a permission error on the log directory. */
static const char *perm_hint(int r)
{
        if (r == -EACCES || r == -EPERM || r == -EROFS)
                return "; run as root, or choose a writable --log-dir";
        return "";
}

/* Refuse a log directory another user could redirect (util/safedir.h): one every user
 * may write and someone else owns, or a directory of vigil's in it that is a link. */
static int check_log_dir(const char *dir)
{
        char why[PATH_MAX + 512] = "";
        int r = safedir_check_owner(dir, why, sizeof(why));
        for (unsigned k = 0; r == 0 && k <= SNAPSHOT_KIND_COUNT + 1; k++) {
                const char *name = k < SNAPSHOT_KIND_COUNT    ? snapshot_dir_name(k)
                                   : k == SNAPSHOT_KIND_COUNT ? POSTMORTEM_DIR
                                                              : RWQ_DIR;
                r = safedir_check_sub(dir, name, why, sizeof(why));
        }
        if (r < 0)
                vlog(LOG_ERR, "%s", why[0] ? why : strerror(-r));
        return r;
}

static int open_log_dir(struct daemon *d, const struct vigil_options *opt)
{
        pid_t owner = 0;
        int r = make_dir(opt->log_dir);
        if (r < 0) {
                vlog(LOG_ERR, "cannot create log directory %s: %s%s", opt->log_dir, strerror(-r),
                     perm_hint(r));
                return r;
        }
        if ((r = check_log_dir(opt->log_dir)) < 0)
                return r;
        d->lock_fd = lock_acquire(opt->log_dir, &owner);
        if (d->lock_fd == -EWOULDBLOCK) {
                vlog(LOG_ERR, "another vigil (pid %d) is already writing to %s", (int)owner,
                     opt->log_dir);
                return -EWOULDBLOCK;
        }
        if (d->lock_fd < 0) {
                vlog(LOG_ERR, "cannot lock %s/vigil.pid: %s%s", opt->log_dir, strerror(-d->lock_fd),
                     perm_hint(d->lock_fd));
                return d->lock_fd;
        }
        r = eventlog_open(&d->ctx.events, opt->log_dir);
        if (r < 0) {
                vlog(LOG_ERR, "cannot open %s/events.log: %s%s", opt->log_dir, strerror(-r),
                     perm_hint(r));
                return r;
        }
        d->ctx.log_dir = opt->log_dir;
        /* Two logs or more in a round share one syncfs of their file system while the
         * machine holds little unwritten data (util/fssync.h): then it writes little
         * that is not ours. --sync-whole-fs takes it always (a file system of its own),
         * --sync-per-file never. */
        enum fssync_whole when = opt->sync_whole_fs   ? FSSYNC_WHOLE_ALWAYS
                                 : opt->sync_per_file ? FSSYNC_WHOLE_NEVER
                                                      : FSSYNC_WHOLE_QUIET;
        (void)fssync_open(&d->log_sync, opt->log_dir, when);
        if (fssync_wants_unwritten(&d->log_sync))
                (void)pfile_open(&d->meminfo, opt->root, "/proc/meminfo", 8192);
        /* A long interval over ext4's own commit bound syncs data only, that much
         * earlier (util/fs_commit.h): the same bound, no journal commit forced. */
        d->sync_every_ns = fssync_cadence(&d->log_sync, opt->sync_interval_ns);
        /* Where cachestat(2) shows what the kernel has written out by itself, a watch
         * round each tick replaces those light rounds and writes only what the kernel
         * has not (util/fssync.h). Ticks come at least every host interval, a little
         * late at worst. */
        (void)fssync_watch_setup(&d->log_sync, opt->interval_ns + WATCH_LATE_NS);
        d->ctx.log_sync = &d->log_sync;
        return 0;
}

/* The machine's unwritten file data for the coming sync round's choice between one
 * syncfs and an fdatasync per file (util/fssync.h), when that choice is open: the host
 * sample's figure when it read /proc/meminfo within the last sync period (the host
 * clock at least as fast as the sync's: no second read), else read here, an unreadable
 * file counting as a busy machine. Snapshot rounds between two periodic ones use this
 * figure (at most a sync interval old). */
static void note_unwritten(struct daemon *d, const struct tick *t)
{
        if (!fssync_wants_unwritten(&d->log_sync) || !pfile_is_open(&d->meminfo))
                return;
        const struct host_frame *h = &d->ctx.frame->host;
        if (!isnan(h->unwritten_bytes) && t->real_ns - h->sampled_real_ns < d->sync_every_ns) {
                fssync_unwritten(&d->log_sync, (long long)(h->unwritten_bytes / 1024));
                return;
        }
        struct proc_meminfo m = {.seen = 0, .valid = 0};
        int n = pfile_read(&d->meminfo);
        if (n > 0)
                (void)proc_meminfo_parse(d->meminfo.buf, (size_t)n, &m);
        fssync_unwritten(&d->log_sync, n > 0 ? proc_meminfo_unwritten_kb(&m) : -1);
}

/* Which machine this is (core/counters.h struct machine_ident), once, before the
 * plug-ins start: the state file, /metrics and the push name it. */
static void read_identity(const char *root, struct machine_ident *m)
{
        struct hw_identity hw;
        rw_machine_id_read(root, m->machine_id); /* "" when none */
        if (hw_identity_read(root, &hw) == 0) {
                snprintf(m->hardware_id, sizeof(m->hardware_id), "%s", hw.id);
                snprintf(m->hardware_src, sizeof(m->hardware_src), "%s", hw.source);
        }
}

/* Returns -errno when a required sink could not start. */
static int init_plugins(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        for (size_t i = 0; vigil_sources[i]; i++) {
                int r = vigil_sources[i]->init(ctx, &d->src_state[i]);
                d->src_on[i] = r >= 0;
                if (r < 0 && r != -ENODEV)
                        vlog(LOG_WARN, "source %s disabled: %s", vigil_sources[i]->name,
                             strerror(-r));
        }
        for (size_t i = 0; vigil_detectors[i]; i++) {
                int r = vigil_detectors[i]->init(ctx, &d->det_state[i]);
                d->det_on[i] = r >= 0;
                if (r < 0 && r != -ENODEV)
                        vlog(LOG_WARN, "detector %s disabled: %s", vigil_detectors[i]->name,
                             strerror(-r));
                for (size_t j = 0; vigil_kmsg_detectors[j]; j++)
                        d->det_kmsg[i] |= vigil_kmsg_detectors[j] == vigil_detectors[i];
        }
        fdwait_init(&d->kwait, kmsg_poll_fd(ctx->kmsg));
        for (size_t i = 0; vigil_sinks[i]; i++) {
                int r = vigil_sinks[i]->init(ctx, &d->sink_state[i]);
                d->sink_on[i] = r >= 0;
                if (r < 0 && r != -ENODEV && vigil_sinks[i]->required)
                        return r;
                if (r < 0 && r != -ENODEV)
                        vlog(LOG_WARN, "sink %s disabled: %s", vigil_sinks[i]->name, strerror(-r));
        }
        return 0;
}

static void fini_sinks(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        for (size_t i = 0; vigil_sinks[i]; i++) {
                if (d->sink_on[i] && vigil_sinks[i]->fini)
                        vigil_sinks[i]->fini(d->sink_state[i], ctx);
                d->sink_on[i] = false;
        }
}

static void fini_detectors(struct daemon *d)
{
        for (size_t i = 0; vigil_detectors[i]; i++)
                if (d->det_on[i] && vigil_detectors[i]->fini)
                        vigil_detectors[i]->fini(d->det_state[i]);
        memset(d->det_on, 0, sizeof(d->det_on));
}

static void fini_sources(struct daemon *d)
{
        for (size_t i = 0; vigil_sources[i]; i++)
                if (d->src_on[i] && vigil_sources[i]->fini)
                        vigil_sources[i]->fini(d->src_state[i]);
        memset(d->src_on, 0, sizeof(d->src_on));
}

static void fini_plugins(struct daemon *d)
{
        fini_sinks(d);
        fini_detectors(d);
        fini_sources(d);
}

/* Enable the clocks some running plug-in uses; the host clock always runs. */
static void enable_clocks(struct daemon *d, int64_t origin)
{
        const struct vigil_options *o = d->ctx.opt;
        unsigned used = VCLOCK_BIT(VCLOCK_HOST);
        for (size_t i = 0; vigil_sources[i]; i++)
                if (d->src_on[i])
                        used |= vigil_sources[i]->clocks;
        sched_init(&d->sched, origin);
        sched_enable(&d->sched, VCLOCK_HOST, o->interval_ns);
        if (used & VCLOCK_BIT(VCLOCK_GPU))
                sched_enable(&d->sched, VCLOCK_GPU, o->gpu_interval_ns);
        if (used & VCLOCK_BIT(VCLOCK_PSS))
                sched_enable(&d->sched, VCLOCK_PSS, o->pss_interval_ns);
}

/* The sources due, from the cursor (d->run_c, d->run_i) on: a loop that moved calls
 * the source that was running again, for the same tick. */
static void run_sources(struct daemon *d, const struct tick *t)
{
        struct vigil_ctx *ctx = &d->ctx;
        struct self_frame *self = &ctx->frame->self;
        for (; d->run_c < VCLOCK_COUNT; d->run_c++, d->run_i = 0) {
                unsigned c = d->run_c;
                if (!(t->due & VCLOCK_BIT(c)))
                        continue;
                if (d->run_i == 0)
                        d->run_start_ns = now_mono_ns();
                for (; vigil_sources[d->run_i]; d->run_i++) {
                        size_t i = d->run_i;
                        const struct vigil_source *s = vigil_sources[i];
                        if (!d->src_on[i] || !(s->clocks & VCLOCK_BIT(c)))
                                continue;
                        /* A source on several clocks runs once per tick, on its first. */
                        if ((s->clocks & t->due & (VCLOCK_BIT(c) - 1)) != 0)
                                continue;
                        if (s->sample(d->src_state[i], ctx, t) < 0)
                                d->source_errors++;
                }
                self->samples[c]++;
                self->sample_seconds[c] = (double)(now_mono_ns() - d->run_start_ns) / 1e9;
        }
}

/* Returns the last error a sink's write returned this tick (-errno), or 0. */
static int run_detectors_and_sinks(struct daemon *d, const struct tick *t)
{
        struct vigil_ctx *ctx = &d->ctx;
        int err = 0;
        for (size_t i = 0; vigil_detectors[i]; i++)
                if (d->det_on[i] && (vigil_detectors[i]->clocks & t->due))
                        vigil_detectors[i]->feed(d->det_state[i], ctx, t);
        for (size_t i = 0; vigil_sinks[i]; i++) {
                if (!d->sink_on[i] || !(vigil_sinks[i]->clocks & t->due))
                        continue;
                int r = vigil_sinks[i]->write(d->sink_state[i], ctx, t);
                if (r < 0)
                        err = r;
        }
        return err;
}

/* After the sinks: say when writes start failing (then once a minute at most), and
 * when they have succeeded for a second again, record the gap in events.log. */
static void watch_writes(struct daemon *d, const struct tick *t, int err)
{
        struct write_health *w = &d->wh;
        uint64_t errors = d->ctx.frame->self.write_errors;
        uint64_t fresh = errors - w->seen_errors;
        w->seen_errors = errors;
        if (fresh) {
                if (err < 0)
                        w->last_error = err;
                if (!w->failing) {
                        w->failing = true;
                        w->dropped = 0;
                        w->since_real_ns = t->real_ns;
                }
                w->dropped += fresh;
                w->last_error_mono_ns = t->mono_ns;
                if (!w->last_log_mono_ns ||
                    t->mono_ns - w->last_log_mono_ns >= WRITE_FAIL_LOG_EVERY_NS) {
                        vlog(LOG_WARN,
                             "writing to %s failed: %s; %llu rows dropped so far, retrying "
                             "on every sample",
                             d->ctx.log_dir, strerror(w->last_error ? -w->last_error : EIO),
                             (unsigned long long)w->dropped);
                        w->last_log_mono_ns = t->mono_ns;
                }
                return;
        }
        /* No write while the disk guard pauses them is no sign that writes work. */
        if (!w->failing || d->ctx.disk_paused || t->mono_ns - w->last_error_mono_ns < NSEC_PER_SEC)
                return;
        w->failing = false;
        double gap = (double)(t->real_ns - w->since_real_ns) / 1e9;
        const char *why = strerror(w->last_error ? -w->last_error : EIO);
        vlog(LOG_INFO, "writes recovered: %llu rows dropped over %.0f s (%s)",
             (unsigned long long)w->dropped, gap, why);
        eventlog_event(d->ctx.events, t->real_ns, EV_WRITE_RESUMED,
                       "dropped_rows=%llu failed_s=%.0f error=\"%s\"",
                       (unsigned long long)w->dropped, gap, why);
}

static void publish(struct daemon *d)
{
        d->ctx.frame->self.missed_deadlines = sched_missed(&d->sched);
        vigil_publish(&d->ctx);
}

static void guard_disk(struct daemon *d, const struct tick *t)
{
        struct vigil_ctx *ctx = &d->ctx;
        if (!ctx->log_dir)
                return;
        bool force = ctx->frame->self.write_errors != 0 && !ctx->disk_paused &&
                     d->guard.last_check_ns != 0 &&
                     t->mono_ns - d->guard.last_check_ns > NSEC_PER_SEC;
        int change = diskguard_check(&d->guard, ctx->log_dir, t->mono_ns, t->real_ns, force);
        if (change > 0) {
                vlog(LOG_WARN, "disk has %llu MB free (< %llu MB): pausing writes",
                     (unsigned long long)(d->guard.free_bytes >> 20),
                     (unsigned long long)ctx->opt->min_disk_mb);
                eventlog_event(ctx->events, t->real_ns, EV_DISK_LOW, "free_mb=%llu action=pause",
                               (unsigned long long)(d->guard.free_bytes >> 20));
                eventlog_set_paused(ctx->events, 1);
                ctx->disk_paused = true;
        } else if (change < 0) {
                eventlog_set_paused(ctx->events, 0);
                ctx->disk_paused = false;
                double gap = (double)(t->real_ns - d->guard.paused_since_real_ns) / 1e9;
                vlog(LOG_INFO, "disk space recovered, resuming writes after %.0f s", gap);
                eventlog_event(ctx->events, t->real_ns, EV_DISK_RESUMED,
                               "free_mb=%llu paused_s=%.0f",
                               (unsigned long long)(d->guard.free_bytes >> 20), gap);
        }
}

static void handle_requests(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        if (atomic_load(&sig_stop))
                ctx->stop_requested = 1;
        if (atomic_exchange(&sig_hup, 0)) {
                vlog(LOG_INFO, "SIGHUP: reopening log files");
                eventlog_reopen(ctx->events);
                for (size_t i = 0; vigil_sinks[i]; i++)
                        if (d->sink_on[i] && vigil_sinks[i]->reopen)
                                vigil_sinks[i]->reopen(d->sink_state[i], ctx);
        }
        if (atomic_exchange(&sig_usr1, 0)) {
                control_write_status(ctx, &d->sched, now_real_ns());
        }
        if (atomic_exchange(&sig_usr2, 0)) {
                control_take_snapshot_request(ctx);
        }
}

static bool should_stop(struct daemon *d, const struct tick *t)
{
        const struct vigil_options *o = d->ctx.opt;
        if (o->count && t->seq[VCLOCK_HOST] >= o->count)
                return true;
        if (o->duration_ns && t->mono_ns - d->ctx.frame->self.started_mono_ns >= o->duration_ns)
                return true;
        return false;
}

/* The rest of the tick in d->t, from the source cursor on: the sources, detectors and
 * sinks, the sync, the publication. True when it was the last tick. */
VIGIL_HOT static bool finish_tick(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        struct tick *t = &d->t;
        /* Before this tick's lines: a log the kernel wrote out since the last ones is
         * clean now, and one pending too long gets its data written. */
        if (fssync_watching(&d->log_sync))
                vigil_watch_logs(ctx, t->mono_ns);
        run_sources(d, t);
        for (unsigned c = 0; c < VCLOCK_COUNT; c++)
                if (t->due & VCLOCK_BIT(c))
                        t->seq[c]++;
        t->final = should_stop(d, t);
        watch_writes(d, t, run_detectors_and_sinks(d, t));
        /* Log files are fdatasync'ed every --sync-interval: a power loss loses at most
         * that much; snapshots sync first on their own (vigil_flush_all). The slack
         * keeps a tick a little early on the clock (the previous one woke late) from
         * pushing the sync a whole tick later. */
        if (!fssync_watching(&d->log_sync) &&
            t->mono_ns - d->last_sync_mono_ns >= d->sync_every_ns - SYNC_SLACK_NS) {
                note_unwritten(d, t);
                vigil_flush_due(ctx);
                d->last_sync_mono_ns = t->mono_ns;
        }
        publish(d);
        history_push(ctx->history, ctx->frame, t);
        if (d->watchdog_ns && t->mono_ns - d->last_watchdog_ns >= d->watchdog_ns) {
                notify_send("WATCHDOG=1");
                d->last_watchdog_ns = t->mono_ns;
        }
        /* Once, after the first minute's work: what the first ticks ran and read once
         * (the threads' start, the GPUs' first probing, system-info.txt) leaves the
         * resident set as start-up's did; what runs every minute comes back. */
        if (d->late_drop_ns && t->mono_ns >= d->late_drop_ns) {
                d->late_drop_ns = 0;
                (void)textmap_drop();
        }
        return t->final;
}

/* What ended a wait for the next deadline. */
enum woke { WOKE_DEADLINE, WOKE_SIGNAL, WOKE_KMSG };

/* Sleep until the deadline next (CLOCK_MONOTONIC), or until the kernel log has new
 * records when there is one to wait on: one wake-up either way, none while it is quiet
 * (util/fdwait.h: epoll, so a quiet log costs no poll call a wait). The device is
 * readable for records not yet read, with an error too when the kernel overwrote some
 * (Linux kernel/printk/printk.c, devkmsg_poll; Documentation/ABI/testing/dev-kmsg): both
 * are drained. */
static enum woke wait_next(struct daemon *d, int64_t next)
{
        enum fdwait_end e = fdwait_until(&d->kwait, next);
        /* A wait that watched the log to its deadline: the host tick need not read it. */
        kmsg_note_wait(d->ctx.kmsg, e == FDWAIT_DEADLINE);
        switch (e) {
        case FDWAIT_READY:
                return WOKE_KMSG;
        case FDWAIT_SIGNAL:
                return WOKE_SIGNAL;
        default:
                return WOKE_DEADLINE;
        }
}

/* The kernel log has new lines between ticks: take them into the ring and feed the
 * detectors that read them, at the time of the wake-up. A log that cannot be drained
 * is not waited on again (the host tick still drains it). */
static void kernel_log_ready(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        if (kmsg_drain(ctx->kmsg) < 0) {
                fdwait_drop(&d->kwait);
                return;
        }
        struct tick kt = d->t;
        kt.due = 0;
        kt.final = false;
        kt.mono_ns = now_mono_ns();
        kt.real_ns = now_real_ns();
        for (size_t i = 0; vigil_detectors[i]; i++)
                if (d->det_on[i] && d->det_kmsg[i])
                        vigil_detectors[i]->feed(d->det_state[i], ctx, &kt);
}

VIGIL_HOT static void loop(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        struct tick *t = &d->t;
        while (!ctx->stop_requested) {
                enum woke w = wait_next(d, sched_next(&d->sched));
                handle_requests(d);
                if (w == WOKE_SIGNAL || ctx->stop_requested)
                        continue;
                if (w == WOKE_KMSG) {
                        kernel_log_ready(d);
                        continue;
                }
                t->mono_ns = now_mono_ns();
                t->real_ns = now_real_ns();
                t->due = sched_due(&d->sched, t->mono_ns);
                if (!t->due)
                        continue;
                guard_disk(d, t);
                if (t->due & VCLOCK_BIT(VCLOCK_HOST)) {
                        host_frame_clear(&ctx->frame->host);
                        ctx->frame->host.sampled_real_ns = t->real_ns;
                }
                d->run_c = 0;
                d->run_i = 0;
                if (finish_tick(d))
                        break;
        }
}

static void print_exit_line(struct daemon *d)
{
        const struct self_frame *s = &d->ctx.frame->self;
        int64_t p50 = sched_lateness_quantile(&d->sched, 0.5);
        int64_t p99 = sched_lateness_quantile(&d->sched, 0.99);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
        vlog(LOG_INFO,
             "stopped: %llu host samples, %llu GPU samples, %llu missed deadlines, "
             "lateness p50 %.3f ms p99 %.3f ms, %llu write errors, cpu %.3f s, peak rss %ld kB",
             (unsigned long long)s->samples[VCLOCK_HOST],
             (unsigned long long)s->samples[VCLOCK_GPU],
             (unsigned long long)sched_missed(&d->sched), p50 < 0 ? 0.0 : (double)p50 / 1e6,
             p99 < 0 ? 0.0 : (double)p99 / 1e6, (unsigned long long)s->write_errors, cpu_s,
             ru.ru_maxrss);
}

/* d and what it holds (the frames through ctx), once the plug-ins are gone. */
static void free_daemon(struct daemon *d)
{
        struct vigil_ctx *ctx = &d->ctx;
        eventlog_close(ctx->events);
        history_free(ctx->history);
        free(ctx->findings);
        free(ctx->published_findings);
        health_watch_free(ctx);
        free(ctx->postmortem);
        if (d->lock_fd >= 0)
                close(d->lock_fd);
        fssync_close(&d->log_sync);
        fdwait_close(&d->kwait);
        pfile_close(&d->meminfo);
        pthread_mutex_destroy(&ctx->pub_lock);
        free(ctx->published_extra);
        free(ctx->extra);
        free(ctx->published);
        free(ctx->frame);
        free(d);
}

/* After the loop: the shutdown. Frees d; returns the exit status. */
static int stop_daemon(struct daemon *d)
{
        notify_send("STOPPING=1");
        vigil_flush_all(&d->ctx);
        eventlog_event(d->ctx.events, now_real_ns(), EV_STOP, "samples=%llu",
                       (unsigned long long)d->ctx.frame->self.samples[VCLOCK_HOST]);
        /* The sinks first: the live view leaves the alternate screen, so the lines
         * below stay on the terminal. */
        fini_sinks(d);
        print_exit_line(d);
        /* The detectors print the run's figures (the reference's summary, the GPUs');
         * what happened comes last, critical first, so that the last screen of the
         * terminal tells it whatever the number of GPUs. */
        fini_detectors(d);
        if (!d->ctx.opt->quiet)
                run_findings_print(&d->ctx, sched_missed(&d->sched));
        fini_sources(d);
        free_daemon(d);
        return 0;
}

/* ctx->move_loop: this thread carries the loop on, and ends the process. */
static _Noreturn void move_loop(struct vigil_ctx *ctx)
{
        struct daemon *d = (struct daemon *)ctx; /* ctx is the first member */
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
                sigaddset(&set, handled_signals[i]);
        atomic_store(&loop_thread, pthread_self());
        atomic_store(&loop_moved, 1);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        if (!finish_tick(d))
                loop(d);
        exit(stop_daemon(d));
}

int vigil_daemon_run(struct vigil_options *opt)
{
        struct daemon *d = calloc(1, sizeof(*d));
        struct frame *frame = calloc(1, sizeof(*frame));
        struct frame *published = calloc(1, sizeof(*published));
        struct counters *extra = calloc(1, sizeof(*extra));
        struct counters *published_extra = calloc(1, sizeof(*published_extra));
        int status = 1;
        if (!d || !frame || !published || !extra || !published_extra) {
                free(published_extra);
                free(extra);
                free(published);
                free(frame);
                free(d);
                return 1;
        }
        /* calloc's zeroes are clear counters and empty GPU slots: the pages of the
         * slots no GPU uses are never touched (frame_init). */
        read_identity(opt->root, &extra->ident);
        d->ctx.extra = extra;
        d->ctx.published_extra = published_extra;
        frame_init(frame);
        d->lock_fd = -1;
        fdwait_init(&d->kwait, -1);
        fssync_none(&d->log_sync);
        d->meminfo.fd = -1;
        pthread_mutex_init(&d->ctx.pub_lock, NULL);
        d->ctx.opt = opt;
        d->sync_every_ns = opt->sync_interval_ns; /* set again once the logs open */
        d->ctx.frame = frame;
        d->ctx.published = published;
        d->ctx.move_loop = move_loop;
        d->ctx.flush_sinks = flush_sinks;
        d->ctx.host_text = &d->host_text;
        d->ctx.live = !opt->quiet && (opt->live == 1 || (opt->live == -1 && isatty(STDOUT_FILENO)));
        if (opt->verbose)
                log_set_level(LOG_DEBUG);
        (void)mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
        (void)mallopt(M_TOP_PAD, 0);

        if (!opt->no_log) {
                if (open_log_dir(d, opt) < 0)
                        goto out_free;
                vlog(LOG_INFO, "vigil %s writing to %s", VIGIL_VERSION, opt->log_dir);
        } else {
                vlog(LOG_INFO, "vigil %s (--no-log: no files written)", VIGIL_VERSION);
        }
        run_findings_start(&d->ctx, opt);
        health_watch_start(&d->ctx);
        install_signals();
        /* Wake-ups within 1 us of the deadline instead of the default 50 us slack. */
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        frame->self.started_real_ns = now_real_ns();
        frame->self.started_mono_ns = now_mono_ns();
        diskguard_init(&d->guard, opt->min_disk_mb, 30 * NSEC_PER_SEC);
        int r = init_plugins(d);
        if (r < 0) {
                /* The sink said why; a bad file is a configuration error (exit 2). */
                status = r == -EINVAL ? 2 : 1;
                fini_plugins(d);
                goto out_free;
        }
        eventlog_event(d->ctx.events, frame->self.started_real_ns, EV_START, "version=%s pid=%d",
                       VIGIL_VERSION, (int)getpid());
        enable_clocks(d, frame->self.started_mono_ns);
        /* The plug-ins have opened what they load (NVML, libmicrohttpd): from here the
         * code and read-only data pages resident are the ones the loop uses. */
        (void)textmap_drop();
        d->late_drop_ns = frame->self.started_mono_ns + LATE_DROP_NS;
        /* Keep-alives at half the manager's timeout; none when it set no watchdog. */
        d->watchdog_ns = notify_watchdog_ns() / 2;
        notify_send("READY=1");
        loop(d);
        return stop_daemon(d);
out_free:
        free_daemon(d);
        return status;
}
