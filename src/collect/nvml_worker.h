/* The jobs that make the NVML calls about one GPU, and the threads that run them when
 * the main loop does not (nvml.c drives them):
 *  - Each tick the main loop runs each GPU's job itself, in an inline worker (no thread,
 *    see the end of this file), under the stall guard (core/stall_guard.h).
 *  - A job the loop thread got stuck in is adopted: the worker becomes the GPU's reader
 *    of its own, its thread the abandoned loop thread, until the job returns.
 *  - At start one reader thread acquires every GPU, as one batch; a GPU not answering
 *    within the hang threshold is split off onto a reader of its own the same way, and
 *    the others are acquired on a new reader.
 *
 * The handoff. A reader is IDLE, BUSY (it owns the batch's jobs that are not done and
 * is making calls) or DONE (the batch is done; results wait for the main loop). Only
 * the main loop submits and takes; a job not done belongs to the reader, a done job to
 * the main loop, which may take it while the reader goes on with the next (the reader
 * takes the lock between jobs only). The reader records which job it is in and when it
 * started it (for the first job: the submission), under the lock, which the main loop
 * takes to look. At each GPU tick, for a GPU on a reader of its own,
 * nvml_worker_plan():
 *       DONE                                  publish the result in this tick's frame;
 *                                             the reader is retired and the GPU read
 *                                             inline from the next tick on
 *       BUSY for at least the hang threshold  a failure sample, "NVML call hung for
 *       and the GPU due (its back-off over)   N s", on the usual failure back-off
 *       BUSY, shorter                         nothing this tick
 * Every GPU is in at most one job in flight, a job taken back is never run, and a job
 * run is published exactly once, at the first tick after it is done: the simulator's
 * step N is still the CSV's row N. A thread stuck in a call holds one GPU only.
 *
 * Bound (nvml_worker_hang_ns): a call is hung after max(2 s, 2
 * intervals), well past a healthy call (microseconds to a few ms; the first call on a
 * GPU without persistence mode can take 1-3 s, which the 2 s floor mostly covers, and
 * which is then reported as a hang, not lost).
 *
 * Exit: an idle or done reader is told to quit and joined. A reader still inside a
 * call cannot be stopped: it is detached and abandoned; it owns its struct (and its copy
 * of the function table) from then on, and frees them if the call ever returns, without
 * running the rest of its batch. */
#ifndef VIGIL_COLLECT_NVML_WORKER_H
#define VIGIL_COLLECT_NVML_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/nvml_lib.h"
#include "core/frame.h"

/* One job for a worker: what to do (in) and what came of it (out). */
struct nvml_job {
        /* In, set by the main loop. */
        struct nvml_gpu gpu; /* a copy of the GPU's state; the job updates it */
        struct gpu_frame g;  /* the GPU's identity in; the sample out */
        bool sample;         /* read the per-sample values; false: only acquire the GPU */
        bool reacquire;      /* get a fresh handle first (the GPU was failing) */
        bool reidentify;     /* after a good sample, re-read identity and driver version */
        bool reprobe;        /* before the sample, nvml_read_reprobe (every NVML_REPROBE_NS) */
        bool slow;           /* also read the slow fields (--gpu-slow-interval, nvml_read.h) */
        bool procs;          /* after a good sample, list the GPU's processes (nvml_procs.h) */
        /* Out. */
        nvmlReturn_t err; /* NVML_SUCCESS, or the code that made it a failed sample */
        bool identified;  /* gpu's identity was (re)read: publish it */
        bool have_driver; /* driver_version was read */
        char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        bool procs_read;                /* procs_out holds a new list (names not filled) */
        struct gpu_proc_list procs_out; /* valid, counts and pids; time and reason unset */
};

/* Run one job on the calling thread: acquire the GPU if it has no handle yet (or a
 * fresh handle when job->reacquire), read a sample into job->g (cleared first) when
 * job->sample, and re-read the identity when job->reidentify and the sample was good,
 * and list its processes when job->procs and the sample was good.
 * Pure with respect to the process (no logging, no allocation): unit-testable on a
 * fake function table. */
void nvml_job_run(const struct nvml_lib *lib, struct nvml_job *job);

/* Copy what a job learnt about the GPU (handle, identity, thresholds, unsupported
 * fields) from src into dst, keeping dst's failure state (consecutive_failures,
 * crash_seq, next_try_mono_ns), which only the main loop keeps. */
void nvml_gpu_merge(struct nvml_gpu *dst, const struct nvml_gpu *src);

enum nvml_worker_state { NW_IDLE, NW_BUSY, NW_DONE };
enum nvml_action {
        NA_NONE,    /* nothing for this GPU this tick */
        NA_COLLECT, /* a result is ready: publish it */
        NA_HUNG,    /* publish a "call hung" failure sample */
};

/* What the main loop does with a GPU on a reader of its own at a GPU tick (the table
 * above; an idle reader: nothing). busy_since: when the job in flight started;
 * next_try: the failure back-off (0: none). All CLOCK_MONOTONIC ns. */
enum nvml_action nvml_worker_plan(enum nvml_worker_state st, int64_t busy_since, int64_t now,
                                  int64_t next_try, int64_t hang_ns);
/* How long a call runs before its GPU's sample is a "hung" failure: max(2 s, 2 intervals). */
int64_t nvml_worker_hang_ns(int64_t interval_ns);

struct nvml_worker;

/* A reader is a struct nvml_worker. */

/* Start a reader thread (vigil_thread_create: it takes no signals) with its own copy of
 * the function table. 0 or -errno; *ret is the caller's until nvml_worker_stop. */
int nvml_worker_start(struct nvml_worker **ret, const struct nvml_lib *lib);
/* The reader's state, and in *ret_since (may be NULL) when it started the job it is in
 * (or was last in): for the batch's first job, the submission time. */
enum nvml_worker_state nvml_worker_state(struct nvml_worker *w, int64_t *ret_since);
/* Hand an IDLE reader copies of n jobs (at most VIGIL_MAX_GPUS) for the GPU slots
 * slots[], run in that order, submitted at now (CLOCK_MONOTONIC ns). Ignored unless
 * IDLE, or when n is 0. */
void nvml_worker_submit_batch(struct nvml_worker *w, const struct nvml_job *jobs,
                              const unsigned *slots, unsigned n, int64_t now);
/* Wait until the reader is DONE or CLOCK_MONOTONIC reaches deadline (ns; a deadline in
 * the past only looks). True when DONE. */
bool nvml_worker_wait(struct nvml_worker *w, int64_t deadline);
/* Copy up to max done jobs not taken yet, in batch order, into ret_jobs (and their
 * slots into ret_slots, unless NULL); a DONE reader with nothing left to take is IDLE
 * again. Returns how many; 0 leaves ret_jobs alone. Works while BUSY too. */
unsigned nvml_worker_take(struct nvml_worker *w, struct nvml_job *ret_jobs, unsigned *ret_slots,
                          unsigned max);
/* When the reader is BUSY and has been in its current job since at least min_ns before
 * now: take back the jobs it has not started (they are never run), leaving it the one
 * it is in, whose slot goes into *ret_slot; true. Otherwise false. Jobs done before
 * still wait to be taken. */
bool nvml_worker_split(struct nvml_worker *w, int64_t now, int64_t min_ns, unsigned *ret_slot);
/* Stop the reader. True: it was idle or done, and is joined and freed. False: it is
 * inside a call; it is detached and frees itself if the call returns. w is gone either
 * way. Accepts NULL (true). */
bool nvml_worker_stop(struct nvml_worker *w);

/* Inline jobs, and the adoption of one that hangs (the per-tick path: nvml.c and
 * core/stall_guard.h). The main loop runs each GPU's job itself, in a worker that has no
 * thread of its own: nvml_worker_new_inline(), nvml_worker_inline_job(). When the guard
 * takes a job from the loop thread, stuck inside it, the worker becomes a reader of its
 * own for that GPU whose thread is the abandoned loop thread: nvml.c's on_hang calls
 * nvml_worker_adopt(), and the abandoned thread, when the job returns, calls
 * nvml_worker_orphan_done() and exits. From then on it is tended like a reader split off
 * (nvml_worker_state, nvml_worker_take, nvml_worker_stop, which joins nothing). */

/* A worker without a thread, IDLE, with its own copy of the function table (an
 * abandoned job goes on calling through it). NULL when out of memory. */
struct nvml_worker *nvml_worker_new_inline(const struct nvml_lib *lib);
/* The job the main loop fills and runs inline (job 0), and its function table. */
struct nvml_job *nvml_worker_inline_job(struct nvml_worker *w);
const struct nvml_lib *nvml_worker_lib(const struct nvml_worker *w);
/* The guard took the inline job of w from the loop thread: w is BUSY with that one job,
 * for slot, since since (CLOCK_MONOTONIC ns). */
void nvml_worker_adopt(struct nvml_worker *w, unsigned slot, int64_t since);
/* On the abandoned thread, its job returned: waits for the adoption if the guard has
 * not finished it yet, then w is DONE (or freed, when stopped meanwhile). The caller
 * touches nothing shared after this. */
void nvml_worker_orphan_done(struct nvml_worker *w);

#endif
