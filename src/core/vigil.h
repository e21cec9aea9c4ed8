/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon context and the three plug-in kinds: sources fill the frame, detectors
 * read it and raise flags and events, sinks write it out. Each plug-in is a const
 * struct of function pointers listed in one registry array (src/daemon/registry.c).
 *
 * Threads: every callback runs on the main loop's thread. The one exception is code a
 * plug-in runs in a thread of its own (NVML events, HTTP): that code never touches
 * the frame or counters; it talks to the main loop through a queue or reads the
 * published copy (vigil_published_*). Create threads with vigil_thread_create()
 * (util/thread.h) so they never take the daemon's signals.
 *
 * This is the model's side of the daemon: what a plug-in sees. The loop that drives
 * the plug-ins, their registry and the control path are src/daemon/'s. */
#ifndef VIGIL_CORE_VIGIL_H
#define VIGIL_CORE_VIGIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/frame.h"
#include "core/options.h"
#include "core/proc_ends.h"

struct eventlog;
struct fssync;
struct counters;
struct kmsg;
struct nvml_shared;
struct history;
struct findings;
struct health;
struct postmortem_info;

/* The clocks the scheduler runs; each source names the ones it wants. */
enum vigil_clock {
        VCLOCK_HOST, /* --interval: host sources, host CSV, live view */
        VCLOCK_GPU,  /* --gpu-interval: NVML sampling, GPU CSV, GPU rules */
        VCLOCK_PSS,  /* --pss-interval: smaps_rollup of watched processes */
        VCLOCK_COUNT
};
#define VCLOCK_BIT(c) (1u << (c))

/* One wake-up of the scheduler: which clocks are due, and when. */
struct tick {
        unsigned due;               /* VCLOCK_BIT()s due now */
        int64_t mono_ns;            /* CLOCK_MONOTONIC at wake-up */
        int64_t real_ns;            /* CLOCK_REALTIME at wake-up (labels and file names only) */
        uint64_t seq[VCLOCK_COUNT]; /* samples taken so far on each clock (0 = first) */
        bool final;                 /* the last tick before exit */
};

struct vigil_ctx {
        const struct vigil_options *opt;
        struct frame *frame;     /* owned by the main loop */
        struct eventlog *events; /* events.log; NULL with --no-log */
        struct kmsg *kmsg;       /* kernel log ring (collect/kmsg.h); NULL when not collected */
        const char *log_dir;     /* NULL with --no-log */
        /* The log directory's file system, synced once a round for every log on it
         * (util/fssync.h) by vigil_flush_all; NULL with --no-log. */
        struct fssync *log_sync;
        bool disk_paused; /* the disk guard has paused file writes */
        bool live;        /* the live view is on */
        /* The loaded NVML and the GPUs sampled (collect/nvml_lib.h), published by the
         * NVML source while it runs; NULL without GPUs. */
        struct nvml_shared *nvml;
        /* Carry the loop on on the calling thread, in place of the loop thread, which is
         * stuck in a call and will not touch the daemon's state again (the stall guard,
         * core/stall_guard.c, its only caller): the tick in progress goes on from the source that was
         * running (its sample() is called again for the same tick), then the loop, then
         * the shutdown, and the process exits. Does not return. NULL outside the daemon. */
        void (*move_loop)(struct vigil_ctx *ctx);
        /* Flush every running sink (the daemon's, which holds them); NULL outside the
         * daemon. Called through vigil_flush_all(). */
        void (*flush_sinks)(struct vigil_ctx *ctx);
        /* Counters that live outside the frame (core/counters.h: Xids, NVML events, rules),
         * owned by the main loop like the frame; detectors add to them. */
        struct counters *extra;
        /* The host row's text of the current host tick (encode/host_row_text.h), shared by
         * its writers so it is formatted once; NULL outside the daemon, where each
         * writer formats its own. Main loop only. */
        struct host_row_text *host_text;
        /* The last complete frame and counters, for readers in other threads (HTTP),
         * copied after each tick once a reader asked for them (publish_wanted, set
         * at its init: with no reader the copies cost every tick for nothing). */
        bool publish_wanted;
        pthread_mutex_t pub_lock;
        struct frame *published;
        struct counters *published_extra;
        uint64_t published_seq;
        /* Recent values and event markers for the dashboard (core/history.h): written
         * by the main loop after each tick, copied by the HTTP thread. NULL without
         * --listen. */
        struct history *history;
        /* What happened so far (core/findings.h), fed with every events.log line by the
         * main loop; the exit summary, `vigil status` and the dashboard build on it
         * (core/run_findings.h). NULL when it could not be allocated. */
        struct findings *findings;
        /* Its copy for readers in other threads (under pub_lock, refreshed by the main
         * loop when it changed); NULL when it could not be allocated. */
        struct findings *published_findings;
        /* The health verdict (core/health.h), fed with every events.log line by the tap
         * like the findings and advanced by the health detector; its copy for readers
         * in other threads (under pub_lock). NULL when not kept. */
        struct health *health;
        struct health *published_health;
        /* The post-mortem of the previous run that this start wrote (core/runstate.h),
         * for the findings of every output; set before the HTTP server starts, then
         * read-only; owned by the context (freed with it). NULL when the previous run
         * ended cleanly. */
        struct postmortem_info *postmortem;
        /* Crash snapshots the kernel-log scan (detect/kernel_gpu.c) asks of the GPU event
         * detector for GPU slots, with their reason ("" = none): a GPU fallen off the
         * bus, an Xid the NVML events missed. Main loop only; gpu-events clears them. */
        char gpu_crash_wanted[VIGIL_MAX_GPUS][160];
        /* GPU slots the kernel log says are lost (an Xid 79, fallen off the bus), set by
         * detect/kernel_gpu.c; detect/gpu_missing.c counts them as not answering until
         * a sample of the slot fails and a later one succeeds again (the GPU answers by
         * its bus id again), then clears them. Main loop only. */
        bool gpu_lost_klog[VIGIL_MAX_GPUS];
        /* The watches' processes at the last host tick, by watch (collect/procs.c), and
         * the processes the kernel's log says it ended (detect/kernel_host.c): how the
         * kernel-log scan names a victim and the liveness detector a cause
         * (core/proc_ends.h). Main loop only. */
        struct watch_procs watch_procs[VIGIL_MAX_WATCHES];
        struct proc_ends proc_ends;
        /* Requests set by signal handlers or the control path; the loop clears them. */
        volatile int stop_requested;
        volatile int reopen_requested;
        volatile int status_requested;
        volatile int snapshot_requested;
        char snapshot_reason[128];
};

struct vigil_source {
        const char *name;
        unsigned clocks; /* VCLOCK_BIT()s on which sample() runs */
        /* Set up; *ret_state is the source's own state. -ENODEV: not present on this
         * machine (silently absent). Another -errno: logged once, source disabled. */
        int (*init)(struct vigil_ctx *ctx, void **ret_state);
        /* Fill the source's part of ctx->frame. Missing values stay NAN. A failure
         * returns -errno; the loop counts it and carries on. */
        int (*sample)(void *state, struct vigil_ctx *ctx, const struct tick *t);
        void (*fini)(void *state);
};

struct vigil_detector {
        const char *name;
        unsigned clocks;
        int (*init)(struct vigil_ctx *ctx, void **ret_state);
        /* Read the frame after the sources; may set flags in it and write events. */
        void (*feed)(void *state, struct vigil_ctx *ctx, const struct tick *t);
        void (*fini)(void *state);
};

struct vigil_sink {
        const char *name;
        unsigned clocks;
        /* A failed init (other than -ENODEV) stops the daemon: the user asked for this
         * sink explicitly (--listen) and must not believe it is running. */
        bool required;
        int (*init)(struct vigil_ctx *ctx, void **ret_state);
        /* Write what is due this tick. */
        int (*write)(void *state, struct vigil_ctx *ctx, const struct tick *t);
        /* SIGHUP: close and reopen files (log rotation). May be NULL. */
        void (*reopen)(void *state, struct vigil_ctx *ctx);
        /* Flush buffers and make data durable (before a crash snapshot). May be NULL. */
        void (*flush)(void *state, struct vigil_ctx *ctx);
        void (*fini)(void *state, struct vigil_ctx *ctx);
};

/* Copy the last published frame into *out and, when extra is not NULL, the counters
 * into *extra (any thread, one consistent pair). Returns the sequence number
 * (0: nothing published yet, nothing copied). */
uint64_t vigil_published_copy(struct vigil_ctx *ctx, struct frame *out, struct counters *extra);

/* Copy the counters kept outside the frame into *extra and the findings of the
 * events so far into *findings (each may be NULL), from the last publication (any
 * thread). Returns the sequence number (0: nothing published yet, nothing copied). */
uint64_t vigil_published_extras(struct vigil_ctx *ctx, struct counters *extra,
                                struct findings *findings);

/* Copy the last published health verdict into *out (any thread). Returns the
 * sequence number (0: nothing published, or no verdict kept; nothing copied). */
uint64_t vigil_published_health(struct vigil_ctx *ctx, struct health *out);

/* Publish the frame, counters and findings of the tick just ended for the readers
 * in other threads, when one asked (publish_wanted). Main loop only. */
void vigil_publish(struct vigil_ctx *ctx);

/* Ask every sink to flush and sync, then events.log (main thread; before snapshots),
 * in one sync round (ctx->log_sync): the logs on the log directory's file system that
 * got lines share one syncfs where that is durable. Outside the daemon (no
 * flush_sinks) only events.log. Every line written before it is durable at its end. */
void vigil_flush_all(struct vigil_ctx *ctx);
/* The same round on the sync cadence: light where util/fssync.h says so (the data
 * written, the file system's own commit making it durable within the sync interval),
 * else the same as vigil_flush_all. Main loop only. */
void vigil_flush_due(struct vigil_ctx *ctx);
/* A watch round at now_ns (CLOCK_MONOTONIC), each tick before its lines while
 * fssync_watching(ctx->log_sync): the logs the kernel wrote out since their last lines
 * owe nothing, the ones pending too long get their data written (util/fssync.h).
 * Main loop only. */
void vigil_watch_logs(struct vigil_ctx *ctx, int64_t now_ns);

#endif
