/* One thread per GPU that makes the GPU's NVML calls, so that a call that hangs in the
 * driver stops that GPU only: the main loop, the host sources and the other GPUs keep
 * their cadence (nvml.c drives the workers).
 *
 * The handoff. A worker is IDLE, BUSY (it owns its job and is making calls) or DONE (the
 * job's results wait for the main loop). Only the main loop submits and collects; a job
 * in flight belongs to the worker, everything else to the main loop. At each GPU tick
 * the main loop asks nvml_worker_plan() what to do with each GPU:
 *   DONE                                  collect the result and publish it in this
 *                                         tick's frame (a sample that finished since the
 *                                         last tick, late or not); submit nothing more
 *                                         this tick (one sample per GPU per tick)
 *   BUSY for at least the hang threshold  a failure sample, "NVML call hung for N s",
 *   and the GPU due (its back-off over)   on the usual failure back-off
 *   BUSY, shorter                         nothing this tick
 *   IDLE and due                          submit a sample job
 * then waits for the jobs it submitted, all against one deadline (the wait bound after
 * the submissions). A job that is not done by then is published at the first tick after
 * it finishes. So every sample taken is published exactly once, in the order taken,
 * whatever the timing: the simulator's step N is still the CSV's row N.
 *
 * Bounds (nvml_worker_wait_ns, nvml_worker_hang_ns): the main loop waits at most
 * min(interval / 2, 50 ms) a tick, so the next GPU tick is never more than half an
 * interval late because of a slow driver; a call is hung after max(2 s, 2 intervals),
 * well past a healthy call (microseconds to a few ms; the first call on a GPU without
 * persistence mode can take 1-3 s, which the 2 s floor mostly covers, and which is then
 * reported as a hang, not lost).
 *
 * Cost, measured with bench/60-gpu.sh on the simulator (2-core VM): the handoff (a
 * condition-variable wake each way and two job copies) is about 14 us of CPU per GPU
 * sample, against 0.7 us for the simulator's 24 calls themselves; the daemon with 8
 * GPUs at 100 ms went from 0.28 % to 0.41 % of a core. The price of one GPU never
 * stopping the others.
 *
 * Exit: an idle or done worker is told to quit and joined. A worker still inside a call
 * cannot be stopped: it is detached and abandoned; it owns its struct (and its copy of
 * the function table) from then on, and frees them if the call ever returns. */
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
        struct gpu_frame g;  /* a copy of the GPU's frame slot (its identity survives) */
        bool sample;         /* read the per-sample values; false: only acquire the GPU */
        bool reacquire;      /* get a fresh handle first (the GPU was failing) */
        bool reidentify;     /* after a good sample, re-read identity and driver version */
        /* Out. */
        nvmlReturn_t err; /* NVML_SUCCESS, or the code that made it a failed sample */
        bool identified;  /* gpu's identity was (re)read: publish it */
        bool have_driver; /* driver_version was read */
        char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
};

/* Run one job on the calling thread: acquire the GPU if it has no handle yet (or a
 * fresh handle when job->reacquire), read a sample into job->g (cleared first) when
 * job->sample, and re-read the identity when job->reidentify and the sample was good.
 * Pure with respect to the process (no logging, no allocation): unit-testable on a
 * fake function table. */
void nvml_job_run(const struct nvml_lib *lib, struct nvml_job *job);

/* Copy what a job learnt about the GPU (handle, identity, thresholds, unsupported
 * fields) from src into dst, keeping dst's failure state (consecutive_failures,
 * failed_samples, crash_seq, next_try_mono_ns), which only the main loop keeps. */
void nvml_gpu_merge(struct nvml_gpu *dst, const struct nvml_gpu *src);

enum nvml_worker_state { NW_IDLE, NW_BUSY, NW_DONE };
enum nvml_action {
        NA_NONE,    /* nothing for this GPU this tick */
        NA_COLLECT, /* a result is ready: publish it */
        NA_HUNG,    /* publish a "call hung" failure sample */
        NA_SUBMIT,  /* hand the worker a sample job */
};

/* What the main loop does with one GPU at a GPU tick (the table above). busy_since:
 * when the job in flight was submitted; next_try: the failure back-off (0: none). All
 * CLOCK_MONOTONIC ns. */
enum nvml_action nvml_worker_plan(enum nvml_worker_state st, int64_t busy_since, int64_t now,
                                  int64_t next_try, int64_t hang_ns);
/* The longest the main loop waits for the jobs of one tick: min(interval / 2, 50 ms). */
int64_t nvml_worker_wait_ns(int64_t interval_ns);
/* How long a call runs before its GPU's sample is a "hung" failure: max(2 s, 2 intervals). */
int64_t nvml_worker_hang_ns(int64_t interval_ns);

struct nvml_worker;

/* Start a worker thread (vigil_thread_create: it takes no signals) with its own copy of
 * the function table. 0 or -errno; *ret is the caller's until nvml_worker_stop. */
int nvml_worker_start(struct nvml_worker **ret, const struct nvml_lib *lib);
/* The worker's state, and in *ret_busy_since (may be NULL) when its job was submitted. */
enum nvml_worker_state nvml_worker_state(struct nvml_worker *w, int64_t *ret_busy_since);
/* Hand an IDLE worker a copy of job, submitted at now (CLOCK_MONOTONIC ns). */
void nvml_worker_submit(struct nvml_worker *w, const struct nvml_job *job, int64_t now);
/* Wait until the worker is DONE or CLOCK_MONOTONIC reaches deadline (ns; a deadline in
 * the past only looks). True when DONE. */
bool nvml_worker_wait(struct nvml_worker *w, int64_t deadline);
/* Copy a DONE worker's job into *ret_job; the worker is IDLE again. */
void nvml_worker_collect(struct nvml_worker *w, struct nvml_job *ret_job);
/* Stop the worker. True: it was idle or done, and is joined and freed. False: it is
 * inside a call; it is detached and frees itself if the call returns. w is gone either
 * way. Accepts NULL (true). */
bool nvml_worker_stop(struct nvml_worker *w);

#endif
