/* SPDX-License-Identifier: Apache-2.0 */
/* The jobs that make the NVML calls about one GPU, and the worker a job is run in
 * (nvml.c drives them). There is one way to run a job: the main loop runs it itself,
 * in an inline worker (no thread of its own), under the stall guard
 * (core/stall_guard.h), one GPU per guarded job. The GPU's first job, at the first GPU
 * tick, acquires it (handle, identity, thresholds, fan count) before its first sample;
 * a GPU that could not be acquired is acquired in its next job the same way.
 *
 * A job the loop thread got stuck in is adopted: when the guard takes it, the worker
 * becomes the GPU's worker of its own, its thread the abandoned loop thread, until the
 * job returns. One worker, as the main loop sees it:
 *
 *              nvml_worker_new_inline
 *     IDLE  (the loop fills and runs job 0 itself, under the guard, and keeps the
 *       |    worker for the next GPU's job)
 *       | the guard takes the job (on_hang): nvml_worker_adopt
 *       v
 *     BUSY  (the abandoned thread is inside the call; the loop makes a new inline
 *       |    worker for the other GPUs)
 *       | the call returns: nvml_worker_orphan_done on the abandoned thread
 *       v
 *     DONE  (the result waits for the loop: nvml_worker_take, then nvml_worker_stop)
 *
 * At each GPU tick, for a GPU whose job was adopted, nvml_worker_plan():
 *       DONE                                  publish the result in this tick's frame;
 *                                             the worker is retired and the GPU read
 *                                             inline again from the next tick on
 *       BUSY for at least the hang threshold  a failure sample, "NVML call hung for
 *       and the GPU due (its back-off over)   N s", on the usual failure back-off
 *       BUSY, shorter                         nothing this tick
 * Every GPU is in at most one job in flight, and a job run is published exactly once,
 * at the first tick after it is done: the simulator's step N is still the CSV's row N.
 * A thread stuck in a call holds one GPU only.
 *
 * Bound (nvml_worker_hang_ns): a call is hung after max(2 s, 2
 * intervals), well past a healthy call (microseconds to a few ms; the first call on a
 * GPU without persistence mode can take 1-3 s, which the 2 s floor mostly covers, and
 * which is then reported as a hang, not lost).
 *
 * Exit: an idle or done worker is freed. An adopted worker still inside a call cannot
 * be stopped: it is abandoned; it owns its struct (and its copy of the function table)
 * from then on, and its thread frees them if the call ever returns. */
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
        bool driver;         /* first read the driver's version (have_driver) */
        bool reacquire;      /* get a fresh handle first (the GPU was failing) */
        bool reidentify;     /* after a good sample, re-read identity and driver version */
        bool reprobe;        /* before the sample, nvml_read_reprobe (every NVML_REPROBE_NS) */
        unsigned what;       /* NVML_READ_*: mid-cadence and slow fields (nvml_read.h) */
        bool procs;          /* after a good sample, list the GPU's processes (nvml_procs.h) */
        /* Out. */
        nvmlReturn_t err; /* NVML_SUCCESS, or the code that made it a failed sample */
        bool identified;  /* gpu's identity was (re)read: publish it */
        bool have_driver; /* driver_version was read */
        char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        bool procs_read;                /* procs_out holds a new list (names not filled) */
        struct gpu_proc_list procs_out; /* valid, counts and pids; time and reason unset */
};

/* Run one job on the calling thread: read the driver's version when job->driver,
 * acquire the GPU if it has no handle yet (or a fresh handle when job->reacquire),
 * then read a sample into job->g (cleared first), re-read the identity when
 * job->reidentify and the sample was good, and list its processes when job->procs and
 * the sample was good.
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

/* What the main loop does at a GPU tick with a GPU whose job was adopted (the table
 * above; an idle worker: nothing). busy_since: when the job in flight started;
 * next_try: the failure back-off (0: none). All CLOCK_MONOTONIC ns. */
enum nvml_action nvml_worker_plan(enum nvml_worker_state st, int64_t busy_since, int64_t now,
                                  int64_t next_try, int64_t hang_ns);
/* How long a call runs before its GPU's sample is a "hung" failure: max(2 s, 2 intervals). */
int64_t nvml_worker_hang_ns(int64_t interval_ns);

struct nvml_worker;

/* The worker's state, and in *ret_since (may be NULL) when its adopted job was first
 * seen hung (nvml_worker_adopt's since). */
enum nvml_worker_state nvml_worker_state(struct nvml_worker *w, int64_t *ret_since);
/* A DONE worker's job into *ret_job and its slot into *ret_slot (may be NULL); the
 * worker is IDLE again. True when there was one; false leaves *ret_job alone. */
bool nvml_worker_take(struct nvml_worker *w, struct nvml_job *ret_job, unsigned *ret_slot);
/* Free the worker. True: it was idle or done. False: its adopted job is still inside a
 * call; the thread frees it if the call returns. w is gone either way. Accepts NULL
 * (true). */
bool nvml_worker_stop(struct nvml_worker *w);

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
