/* SPDX-License-Identifier: Apache-2.0 */
/* Source: NVIDIA GPUs through NVML, on the GPU clock (--gpu-interval). One sample
 * reads every field of each selected GPU (nvml_read.c) into frame->gpus[slot]:
 *   gpu0 45 C (max 90), 85.00/600 W, P8, 1200/9000 MHz, 10/5 %, fans 30/30 %, reasons 0x1
 *
 * The main loop makes the GPUs' calls itself, one GPU after the other, each GPU's job
 * under the stall guard (core/stall_guard.h): a tick costs no thread wake. What a hung
 * call means here (on_hang): only its GPU stops. 0.6-1.1 s into the call the guard
 * takes the job, whose worker is adopted for the GPU (nvml_worker.h), and carries
 * the loop on itself; the GPU's sample is then a failure, "NVML call hung for N s", on
 * the back-off below, while the other GPUs and the host keep their cadence; when the
 * call returns its sample is published and the GPU is read inline again. The GPUs are
 * acquired the same way: a GPU's first job, at the first GPU tick, gets its handle and
 * static facts before its first sample, under the guard, so a GPU that hangs while
 * being acquired stops only itself too; the driver's version is read in the first jobs
 * too. nvmlInit and the GPU count stay at start, on the main thread. The state in ctx->nvml stays the loop's: a job
 * works on a copy of its GPU's, merged back when the result is taken.
 *
 * Cost, on the simulator (2-core shared VM): per GPU, a copy of its state into the job
 * and back (2.5 kB) and the guard's store and compare-and-swap; per tick, arming and
 * disarming the guard's timer (two system calls, no wake). The reader threads this
 * replaced cost two thread wakes per GPU tick (30-75 us of CPU each on this VM, against
 * calls of 15-30 ns); the figures are in bench/RESULTS.md, section 6.
 *
 * Failures follow the reference logger's run() loop, per GPU: a sample the GPU does not
 * answer is a failed sample (ok = false, error = NVML's text), never a row of zeros;
 * after a failure the GPU is asked again only after min(5 intervals, 5 s), and after
 * more than 10 failures in a row only every 30 s, while the other GPUs keep their
 * cadence. A failing GPU's handle is re-acquired before each retry; when it answers
 * again its identity, thresholds and fan count are read anew. Messages about failures
 * and recoveries come from the GPU rules (detect/gpu_rules.c), which see the frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml.h"
#include "collect/nvml_lib.h"
#include "collect/nvml_procs.h"
#include "collect/nvml_read.h"
#include "collect/nvml_worker.h"
#include "core/stall_guard.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/hot.h"

#define BACKOFF_AFTER   10                  /* failures before the long back-off */
#define BACKOFF_LONG_NS (30 * NSEC_PER_SEC) /* the reference's 30 s */
#define RETRY_MAX_NS    (5 * NSEC_PER_SEC)  /* min(interval * 5, 5 s) */
#define RETRY_INTERVALS 5

struct nvml_source {
        struct nvml_shared sh;
        struct vigil_ctx *ctx;
        struct stall_guard *guard;    /* around each GPU's job (core/stall_guard.h) */
        struct nvml_worker *inline_w; /* the worker the loop runs jobs in */
        struct nvml_worker *adopted[VIGIL_MAX_GPUS]; /* the GPU's hung job (on_hang) */
        bool announced[VIGIL_MAX_GPUS];     /* its first job's outcome was logged (log_gpu) */
        bool hung_said[VIGIL_MAX_GPUS];     /* said it hangs in its first job */
        bool reidentify[VIGIL_MAX_GPUS];    /* answered again after a hang: re-read identity */
        int64_t reprobe_at[VIGIL_MAX_GPUS]; /* the re-probe's next job (nvml_read.h) */
        int64_t slow_at[VIGIL_MAX_GPUS];    /* the slow fields' next read (nvml_read.h) */
        int64_t mid_at[VIGIL_MAX_GPUS];     /* the mid-cadence fields' next read (nvml_read.h) */
        /* The tick being sampled: called again for it after the loop moved (stall_guard.h),
         * the source goes on with the GPUs not done. */
        uint64_t tick_seq;
        int64_t tick_mono_ns;
        bool done[VIGIL_MAX_GPUS]; /* published this tick */
        int64_t hang_ns;           /* nvml_worker_hang_ns */
        unsigned hung_at_exit;     /* adopted jobs abandoned inside a call */
        /* Process lists (nvml_procs.h): when the next is due, and why the one asked for
         * in the job in flight was ("start", "interval", "event", "recovered"). */
        int64_t procs_next_mono_ns[VIGIL_MAX_GPUS];
        const char *procs_reason[VIGIL_MAX_GPUS];
};

/* The GPUs --gpu selects, in NVML index order as listed. */
static void select_gpus(struct nvml_shared *sh, const char *list, unsigned count)
{
        sh->ngpus = 0;
        if (!strcmp(list, "all")) {
                for (unsigned i = 0; i < count && sh->ngpus < VIGIL_MAX_GPUS; i++)
                        sh->gpu[sh->ngpus++].index = i;
                if (count > VIGIL_MAX_GPUS)
                        vlog(LOG_WARN, "NVML sees %u GPUs; sampling the first %d", count,
                             VIGIL_MAX_GPUS);
                return;
        }
        struct cursor c = cur_str(list);
        uint64_t idx;
        while (cur_u64(&c, &idx) == 0) {
                bool dup = false;
                for (unsigned k = 0; k < sh->ngpus; k++)
                        dup |= sh->gpu[k].index == idx;
                if (idx >= count)
                        vlog(LOG_WARN, "GPU %llu not present (NVML sees %u): skipped",
                             (unsigned long long)idx, count);
                else if (!dup && sh->ngpus < VIGIL_MAX_GPUS)
                        sh->gpu[sh->ngpus++].index = (unsigned)idx;
                if (!cur_lit(&c, ","))
                        break;
        }
}

static void set_driver_version(struct nvml_shared *sh, const char *v)
{
        if (strcmp(v, sh->driver_version) != 0) {
                copy_bounded(sh->driver_version, sizeof(sh->driver_version), v, strlen(v));
                sh->driver_gen++;
        }
}

static void publish_identity(const struct nvml_gpu *gpu, struct gpu_frame *g)
{
        g->present = true;
        g->index = gpu->index;
        g->nfans = gpu->nfans;
        memcpy(g->name, gpu->name, sizeof(g->name));
        memcpy(g->uuid, gpu->uuid, sizeof(g->uuid));
        memcpy(g->pci_bus_id, gpu->pci_bus_id, sizeof(g->pci_bus_id));
}

static void log_gpu(const struct nvml_shared *sh, const struct nvml_gpu *gpu, nvmlReturn_t r)
{
        unsigned i = gpu->index;
        if (r != NVML_SUCCESS) {
                vlog(LOG_WARN, "gpu%u: not answering at start: %s", i,
                     nvml_lib_strerror(&sh->lib, r));
                return;
        }
        vlog(LOG_INFO, "gpu%u: %s | PCI: %s | UUID: %s", i, gpu->name, gpu->pci_bus_id, gpu->uuid);
        vlog(LOG_INFO, "gpu%u: Driver: %s | Fans: %u | Power limit: %.0fW", i,
             sh->driver_version[0] ? sh->driver_version : "Unknown", gpu->nfans,
             VAL_OK(gpu->power_limit_w) ? gpu->power_limit_w : 0.0);
        vlog(LOG_INFO, "gpu%u: Thresholds: shutdown=%.0fC slowdown=%.0fC gpu_max=%.0fC", i,
             gpu->shutdown_c, gpu->slowdown_c, gpu->gpu_max_c);
}

/* nvmlInit and the GPU list; one line and -ENODEV when there is nothing to sample. */
static int start_nvml(struct nvml_source *s, const struct vigil_options *o, enum log_level lvl)
{
        struct nvml_shared *sh = &s->sh;
        nvmlReturn_t r = sh->lib.init();
        if (r != NVML_SUCCESS) {
                vlog(lvl, "NVML: %s: GPU sampling off", nvml_lib_strerror(&sh->lib, r));
                return -ENODEV;
        }
        unsigned count = 0;
        r = sh->lib.get_count(&count);
        if (r != NVML_SUCCESS || count == 0) {
                vlog(lvl, "NVML: %s: GPU sampling off",
                     r ? nvml_lib_strerror(&sh->lib, r) : "no GPUs found");
                sh->lib.shutdown();
                return -ENODEV;
        }
        sh->device_count = count;
        select_gpus(sh, o->gpu_list, count);
        if (sh->ngpus == 0) {
                vlog(LOG_WARN, "NVML: no GPU of --gpu %s among %u: GPU sampling off", o->gpu_list,
                     count);
                sh->lib.shutdown();
                return -ENODEV;
        }
        return 0;
}

/* Free the adopted workers; one still inside a call is abandoned (counted). */
static void stop_adopted(struct nvml_source *s)
{
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                if (!nvml_worker_stop(s->adopted[i]))
                        s->hung_at_exit++;
                s->adopted[i] = NULL;
        }
}

/* Stop the guard and, unless a call is still hung (an adopted job inside it,
 * nvml_worker.h, or the event listener's wait), the driver: it is not shut down under a
 * call. */
static void stop_source(struct nvml_source *s)
{
        stop_adopted(s);
        nvml_worker_stop(s->inline_w);
        s->inline_w = NULL;
        /* A guard outlives a call still hung: its thread touches the guard on return. */
        stall_guard_stop(s->guard, s->hung_at_exit > 0);
        s->guard = NULL;
        if (!s->hung_at_exit && !s->sh.listener_left)
                s->sh.lib.shutdown();
}

/* Whether the GPU in slot's sample this tick reads the slow fields: the first sample,
 * every --gpu-slow-interval, and a sample after failures (the GPU may have been reset). */
static bool slow_due(const struct nvml_source *s, unsigned slot)
{
        const struct nvml_gpu *gpu = &s->sh.gpu[slot];
        return !gpu->slow_read || gpu->consecutive_failures > 0 || s->reidentify[slot] ||
               s->tick_mono_ns >= s->slow_at[slot];
}

/* The job for the GPU in slot this tick (its first acquires it: nvml_job_run). The
 * outputs are set by nvml_job_run. */
static void fill_job(struct nvml_source *s, unsigned slot, struct nvml_job *job)
{
        const struct nvml_gpu *gpu = &s->sh.gpu[slot];
        job->gpu = *gpu;
        /* The job clears its frame before a sample; only the identity survives that. */
        gpu_frame_copy_identity(&job->g, &s->ctx->frame->gpus[slot]);
        /* The driver's version, for the lines a GPU's first job logs (log_gpu). */
        job->driver = !s->announced[slot] && !s->sh.driver_version[0];
        job->reacquire = gpu->consecutive_failures > 0;
        job->reidentify = gpu->consecutive_failures > 0 || s->reidentify[slot];
        if (!s->reprobe_at[slot])
                s->reprobe_at[slot] = s->tick_mono_ns + NVML_REPROBE_NS;
        job->reprobe = s->tick_mono_ns >= s->reprobe_at[slot];
        if (job->reprobe)
                s->reprobe_at[slot] = s->tick_mono_ns + NVML_REPROBE_NS;
        /* The next reads half an interval early, so that a tick a little less late than
         * this one counts. */
        const int64_t half = s->ctx->opt->gpu_interval_ns / 2;
        job->what = 0;
        if (slow_due(s, slot)) {
                job->what = NVML_READ_SLOW;
                s->slow_at[slot] = s->tick_mono_ns + s->ctx->opt->gpu_slow_interval_ns - half;
        }
        if ((job->what & NVML_READ_MID) || s->tick_mono_ns >= s->mid_at[slot]) {
                job->what |= NVML_READ_MID;
                s->mid_at[slot] = s->tick_mono_ns + s->ctx->opt->gpu_mid_interval_ns - half;
        }
}

static void on_hang(void *arg, uint64_t tag, int64_t since);

static int nvml_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *o = ctx->opt;
        char err[400];
        if (!strcmp(o->gpu_list, "none"))
                return -ENODEV;
        /* Silence is normal on a machine without NVIDIA; not when GPUs were asked for. */
        enum log_level lvl = strcmp(o->gpu_list, "all") || o->nvml_path[0] ? LOG_WARN : LOG_INFO;
        struct nvml_source *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        int r = nvml_lib_open(&s->sh.lib, o->nvml_path, err, sizeof(err));
        if (r < 0) {
                vlog(lvl, "%s: GPU sampling off", err);
                free(s);
                return -ENODEV;
        }
        if (start_nvml(s, o, lvl) < 0) {
                /* Not dlclose'd once nvmlInit ran: see nvml_fini. */
                free(s);
                return -ENODEV;
        }
        s->ctx = ctx;
        s->hang_ns = nvml_worker_hang_ns(o->gpu_interval_ns);
        ctx->frame->ngpus = s->sh.ngpus;
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                gpu_frame_clear(&ctx->frame->gpus[i]);
                publish_identity(&s->sh.gpu[i], &ctx->frame->gpus[i]);
        }
        s->inline_w = nvml_worker_new_inline(&s->sh.lib);
        r = s->inline_w ? stall_guard_start(&s->guard, ctx, STALL_GUARD_LEASE_NS, on_hang, s)
                        : -ENOMEM;
        if (r == -EAGAIN) { /* a guard without its thread: sampling goes on unwatched */
                vlog(LOG_WARN, "NVML: cannot start the guard thread: a hung call would hold up "
                               "sampling");
                r = 0;
        }
        if (r < 0) {
                stop_source(s);
                free(s);
                return r;
        }
        ctx->nvml = &s->sh;
        *ret_state = s;
        return 0;
}

static void on_failure(struct nvml_source *s, struct nvml_gpu *gpu, struct gpu_frame *g,
                       const char *error, const struct tick *t)
{
        int64_t iv = s->ctx->opt->gpu_interval_ns;
        int64_t wait = iv * RETRY_INTERVALS < RETRY_MAX_NS ? iv * RETRY_INTERVALS : RETRY_MAX_NS;
        gpu->consecutive_failures++;
        if (gpu->consecutive_failures == 1)
                gpu->crash_seq++;
        if (gpu->consecutive_failures > BACKOFF_AFTER)
                wait = BACKOFF_LONG_NS;
        /* Half an interval early, so a tick that is a little less late still counts. */
        gpu->next_try_mono_ns = t->mono_ns + wait - iv / 2;
        g->ok = false;
        copy_bounded(g->error, sizeof(g->error), error, strlen(error));
}

static void on_success(struct nvml_source *s, unsigned slot, const struct nvml_job *job,
                       struct gpu_frame *g)
{
        struct nvml_gpu *gpu = &s->sh.gpu[slot];
        g->ok = true;
        /* Answering again without its identity read anew (the job was in flight when the
         * failures were counted: a hang): the next job reads it. */
        s->reidentify[slot] = gpu->consecutive_failures > 0 && !job->identified;
        gpu->consecutive_failures = 0;
        gpu->next_try_mono_ns = 0;
}

static void finish_sample(struct nvml_source *s, unsigned slot, struct gpu_frame *g,
                          const struct tick *t)
{
        g->sampled = true;
        g->sampled_real_ns = t->real_ns;
        g->consecutive_failures = s->sh.gpu[slot].consecutive_failures;
        g->crash_seq = s->sh.gpu[slot].crash_seq;
}

/* Whether this sample of slot also lists its processes, and why: at the first sample, on
 * the --gpu-proc-interval cadence, when asked for (a critical event) and when the GPU
 * answers again after failures. */
static bool procs_due(struct nvml_source *s, unsigned slot, const struct tick *t)
{
        const char *why = NULL;
        if (s->sh.gpu[slot].consecutive_failures > 0)
                why = "recovered";
        else if (s->sh.procs_wanted[slot])
                why = "event";
        else if (!s->ctx->frame->gpu_procs[slot].valid && s->procs_next_mono_ns[slot] == 0)
                why = "start";
        else if (t->mono_ns >= s->procs_next_mono_ns[slot])
                why = "interval";
        s->procs_reason[slot] = why;
        return why != NULL;
}

/* A list the job took: the frame's, with the names /proc gives its pids. */
static void publish_procs(struct nvml_source *s, unsigned slot, const struct nvml_job *job,
                          const struct tick *t)
{
        struct gpu_proc_list *l = &s->ctx->frame->gpu_procs[slot];
        const char *why = s->procs_reason[slot] ? s->procs_reason[slot] : "interval";
        *l = job->procs_out;
        l->taken_real_ns = t->real_ns;
        copy_bounded(l->reason, sizeof(l->reason), why, strlen(why));
        gpu_procs_fill_names(s->ctx->opt->root, l);
        s->ctx->frame->gpu_procs_gen++;
        s->sh.procs_wanted[slot] = false;
        s->procs_next_mono_ns[slot] = t->mono_ns + s->ctx->opt->gpu_proc_interval_ns;
}

/* A finished job: what it learnt goes back into the GPU's state, its result is this
 * tick's sample; the GPU's first job also says what it is (or that it does not answer). */
VIGIL_HOT static void apply_job(struct nvml_source *s, unsigned slot, struct nvml_job *job,
                                const struct tick *t)
{
        struct nvml_gpu *gpu = &s->sh.gpu[slot];
        struct gpu_frame *g = &s->ctx->frame->gpus[slot];
        nvml_gpu_merge(gpu, &job->gpu);
        if (job->have_driver)
                set_driver_version(&s->sh, job->driver_version);
        if (!s->announced[slot]) { /* its first job acquired it, or tried to */
                log_gpu(&s->sh, gpu, job->identified ? NVML_SUCCESS : job->err);
                s->announced[slot] = true;
        }
        *g = job->g;
        if (job->identified)
                publish_identity(gpu, g);
        if (job->err != NVML_SUCCESS)
                on_failure(s, gpu, g, nvml_lib_strerror(&s->sh.lib, job->err), t);
        else
                on_success(s, slot, job, g);
        if (job->procs_read)
                publish_procs(s, slot, job, t);
        else if (job->err == NVML_SUCCESS && job->procs) { /* no process calls: not soon */
                s->sh.procs_wanted[slot] = false;
                s->procs_next_mono_ns[slot] = t->mono_ns + s->ctx->opt->gpu_proc_interval_ns;
        }
        finish_sample(s, slot, g, t);
}

/* The GPU's worker has been inside one call for longer than the hang threshold. */
static void publish_hung(struct nvml_source *s, unsigned slot, int64_t busy_since,
                         const struct tick *t)
{
        struct gpu_frame *g = &s->ctx->frame->gpus[slot];
        char msg[64];
        if (!s->announced[slot] && !s->hung_said[slot]) {
                vlog(LOG_WARN,
                     "gpu%u: not answering at start: NVML call still running after %lld s",
                     s->sh.gpu[slot].index, (long long)(s->hang_ns / NSEC_PER_SEC));
                s->hung_said[slot] = true;
        }
        gpu_frame_clear(g);
        snprintf(msg, sizeof(msg), "NVML call hung for %lld s",
                 (long long)((t->mono_ns - busy_since) / NSEC_PER_SEC));
        on_failure(s, &s->sh.gpu[slot], g, msg, t);
        finish_sample(s, slot, g, t);
}

/* A GPU whose job was adopted (on_hang): its result, or a "hung" failure. */
static void tend_adopted(struct nvml_source *s, unsigned slot, const struct tick *t, bool *taken)
{
        int64_t since = 0;
        struct nvml_job job;
        enum nvml_worker_state st = nvml_worker_state(s->adopted[slot], &since);
        switch (
            nvml_worker_plan(st, since, t->mono_ns, s->sh.gpu[slot].next_try_mono_ns, s->hang_ns)) {
        case NA_COLLECT:
                if (nvml_worker_take(s->adopted[slot], &job, NULL)) {
                        apply_job(s, slot, &job, t);
                        taken[slot] = true;
                }
                /* Retired: the loop reads the GPU again from the next tick on. */
                nvml_worker_stop(s->adopted[slot]);
                s->adopted[slot] = NULL;
                break;
        case NA_HUNG:
                publish_hung(s, slot, since, t);
                taken[slot] = true;
                break;
        case NA_NONE:
                break;
        }
}

/* Run the job of the GPU in slot on this thread, under the guard. If the guard takes
 * it (the call hung), this thread is no longer the loop's: it hands the job over when
 * the call returns, and ends. -ENOMEM: no worker to run it in (after a hang); the GPU is
 * asked again at the next tick. */
static int run_inline(struct nvml_source *s, unsigned slot, const struct tick *t)
{
        if (!s->inline_w)
                s->inline_w = nvml_worker_new_inline(&s->sh.lib);
        if (!s->inline_w)
                return -ENOMEM;
        /* All an abandoned thread touches once its call returns. */
        struct nvml_worker *w = s->inline_w;
        struct stall_guard *g = s->guard;
        struct nvml_job *job = nvml_worker_inline_job(w);
        fill_job(s, slot, job);
        job->procs = procs_due(s, slot, t);
        uint64_t tag = stall_guard_enter(g, slot);
        nvml_job_run(nvml_worker_lib(w), job);
        if (!stall_guard_leave(g, tag)) {
                nvml_worker_orphan_done(w);
                stall_guard_orphan_exit();
        }
        s->done[slot] = true;
        apply_job(s, slot, job, t);
        return 0;
}

/* What a hung call means for a GPU: the guard took the job the loop was stuck in (on
 * the guard thread, which carries the loop on next). Its worker is adopted for the GPU
 * (tend_adopted publishes "hung" failures, then the late result); the next job gets a
 * new worker (run_inline). */
static void on_hang(void *arg, uint64_t tag, int64_t since)
{
        struct nvml_source *s = arg;
        unsigned slot = stall_guard_key(tag);
        nvml_worker_adopt(s->inline_w, slot, since);
        s->adopted[slot] = s->inline_w;
        s->inline_w = NULL;
        vlog(LOG_DEBUG, "gpu%u: NVML call still running after %lld ms: sampling goes on without it",
             s->sh.gpu[slot].index, (long long)((now_mono_ns() - since) / NSEC_PER_MSEC));
}

VIGIL_HOT static int nvml_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct nvml_source *s = state;
        if (t->seq[VCLOCK_GPU] != s->tick_seq || t->mono_ns != s->tick_mono_ns) {
                s->tick_seq = t->seq[VCLOCK_GPU];
                s->tick_mono_ns = t->mono_ns;
                for (unsigned slot = 0; slot < s->sh.ngpus; slot++) {
                        ctx->frame->gpus[slot].sampled = false;
                        s->done[slot] = false;
                }
        }
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++)
                if (s->adopted[slot] && !s->done[slot])
                        tend_adopted(s, slot, t, s->done);
        int r = 0;
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++)
                if (!s->done[slot] && !s->adopted[slot] &&
                    t->mono_ns >= s->sh.gpu[slot].next_try_mono_ns && r == 0)
                        r = run_inline(s, slot, t);
        stall_guard_tick_end(s->guard);
        if (r < 0)
                return r;
        bool all_ok = true;
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++) {
                const struct gpu_frame *g = &ctx->frame->gpus[slot];
                all_ok &= !g->sampled || g->ok;
        }
        return all_ok ? 0 : -EIO;
}

static void nvml_fini(void *state)
{
        struct nvml_source *s = state;
        if (!s)
                return;
        if (s->ctx && s->ctx->nvml == &s->sh)
                s->ctx->nvml = NULL;
        unsigned moves = s->guard ? stall_guard_moves(s->guard) : 0;
        if (moves)
                vlog(LOG_INFO,
                     "NVML: %u call(s) ran past the guard's look (0.6-1.1 s): sampling "
                     "went on without them",
                     moves);
        stop_source(s);
        if (s->hung_at_exit)
                vlog(LOG_WARN,
                     "NVML: %u GPU call(s) still hung at exit: left running, nvmlShutdown skipped",
                     s->hung_at_exit);
        /* The library stays mapped until exit: a driver keeps state (and threads) past
         * nvmlShutdown, which unloading would cut off. */
        free(s);
}

const struct vigil_source vigil_source_nvml = {
    .name = "nvml",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = nvml_init,
    .sample = nvml_sample,
    .fini = nvml_fini,
};
