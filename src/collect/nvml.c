/* Source: NVIDIA GPUs through NVML, on the GPU clock (--gpu-interval). One sample
 * reads every field of each selected GPU (nvml_read.c) into frame->gpus[slot]:
 *   gpu0 45 C (max 90), 85.00/600 W, P8, 1200/9000 MHz, 10/5 %, fans 30/30 %, reasons 0x1
 *
 * The calls about a GPU run on that GPU's worker thread (nvml_worker.h: the handoff, the
 * wait bound and the hang threshold), so a call that hangs in the driver stops only that
 * GPU: its sample is a failure, "NVML call hung for N s", on the back-off below, while
 * the other GPUs and the host keep their cadence; when the call returns its sample is
 * published and the GPU goes on. nvmlInit, the GPU count and the driver version at start
 * stay on the main thread. The state in ctx->nvml stays main-thread state: a job works
 * on a copy of its GPU's, merged back when the result is collected.
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
#include "collect/nvml_read.h"
#include "collect/nvml_worker.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"

#define BACKOFF_AFTER   10                  /* failures before the long back-off */
#define BACKOFF_LONG_NS (30 * NSEC_PER_SEC) /* the reference's 30 s */
#define RETRY_MAX_NS    (5 * NSEC_PER_SEC)  /* min(interval * 5, 5 s) */
#define RETRY_INTERVALS 5

struct nvml_source {
        struct nvml_shared sh;
        struct vigil_ctx *ctx;
        struct nvml_worker *worker[VIGIL_MAX_GPUS];
        bool reidentify[VIGIL_MAX_GPUS]; /* answered again after a hang: re-read identity */
        int64_t wait_ns, hang_ns;        /* nvml_worker_wait_ns, nvml_worker_hang_ns */
        unsigned hung_at_exit;           /* workers abandoned inside a call */
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

static void read_driver_version(struct nvml_shared *sh)
{
        char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
        if (sh->lib.driver_version && sh->lib.driver_version(v, sizeof(v)) == NVML_SUCCESS) {
                v[sizeof(v) - 1] = '\0';
                set_driver_version(sh, v);
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

static void stop_workers(struct nvml_source *s)
{
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                if (!nvml_worker_stop(s->worker[i]))
                        s->hung_at_exit++;
                s->worker[i] = NULL;
        }
}

static void apply_job(struct nvml_source *s, unsigned slot, struct nvml_job *job,
                      const struct tick *t);

/* Start the workers and let each acquire its GPU, all at once, waiting at most the hang
 * threshold: a GPU still busy then is named and collected at a later tick. */
static int start_workers(struct nvml_source *s, struct vigil_ctx *ctx)
{
        struct nvml_job job;
        int64_t now = now_mono_ns();
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                int r = nvml_worker_start(&s->worker[i], &s->sh.lib);
                if (r < 0) {
                        vlog(LOG_ERR, "NVML: cannot start a worker thread: %s", strerror(-r));
                        stop_workers(s);
                        return r;
                }
                memset(&job, 0, sizeof(job));
                job.gpu = s->sh.gpu[i];
                job.g = ctx->frame->gpus[i];
                nvml_worker_submit(s->worker[i], &job, now);
        }
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                if (!nvml_worker_wait(s->worker[i], now + s->hang_ns)) {
                        vlog(LOG_WARN,
                             "gpu%u: not answering at start: NVML call still running after %lld s",
                             s->sh.gpu[i].index, (long long)(s->hang_ns / NSEC_PER_SEC));
                        continue;
                }
                nvml_worker_collect(s->worker[i], &job);
                apply_job(s, i, &job, NULL);
        }
        return 0;
}

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
        s->wait_ns = nvml_worker_wait_ns(o->gpu_interval_ns);
        s->hang_ns = nvml_worker_hang_ns(o->gpu_interval_ns);
        read_driver_version(&s->sh);
        ctx->frame->ngpus = s->sh.ngpus;
        for (unsigned i = 0; i < s->sh.ngpus; i++)
                publish_identity(&s->sh.gpu[i], &ctx->frame->gpus[i]);
        r = start_workers(s, ctx);
        if (r < 0) {
                if (!s->hung_at_exit)
                        s->sh.lib.shutdown();
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
        gpu->failed_samples++;
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

/* A finished job: what it learnt goes back into the GPU's state; a sample job's
 * result is this tick's sample (t is NULL for the acquiring job at start). */
static void apply_job(struct nvml_source *s, unsigned slot, struct nvml_job *job,
                      const struct tick *t)
{
        struct nvml_gpu *gpu = &s->sh.gpu[slot];
        struct gpu_frame *g = &s->ctx->frame->gpus[slot];
        nvml_gpu_merge(gpu, &job->gpu);
        if (job->have_driver)
                set_driver_version(&s->sh, job->driver_version);
        if (!job->sample) { /* the first acquisition */
                log_gpu(&s->sh, gpu, job->err);
                if (job->identified)
                        publish_identity(gpu, g);
                return;
        }
        *g = job->g;
        if (job->identified)
                publish_identity(gpu, g);
        if (job->err != NVML_SUCCESS)
                on_failure(s, gpu, g, nvml_lib_strerror(&s->sh.lib, job->err), t);
        else
                on_success(s, slot, job, g);
        finish_sample(s, slot, g, t);
}

/* The GPU's worker has been inside one call for longer than the hang threshold. */
static void publish_hung(struct nvml_source *s, unsigned slot, int64_t busy_since,
                         const struct tick *t)
{
        struct gpu_frame *g = &s->ctx->frame->gpus[slot];
        char msg[64];
        gpu_frame_clear(g);
        snprintf(msg, sizeof(msg), "NVML call hung for %lld s",
                 (long long)((t->mono_ns - busy_since) / NSEC_PER_SEC));
        on_failure(s, &s->sh.gpu[slot], g, msg, t);
        finish_sample(s, slot, g, t);
}

static void submit(struct nvml_source *s, unsigned slot, struct nvml_job *job, const struct tick *t)
{
        const struct nvml_gpu *gpu = &s->sh.gpu[slot];
        memset(job, 0, sizeof(*job));
        job->gpu = *gpu;
        job->g = s->ctx->frame->gpus[slot];
        job->sample = true;
        job->reacquire = gpu->consecutive_failures > 0;
        job->reidentify = gpu->consecutive_failures > 0 || s->reidentify[slot];
        nvml_worker_submit(s->worker[slot], job, t->mono_ns);
}

static int nvml_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct nvml_source *s = state;
        struct nvml_job job;
        bool submitted[VIGIL_MAX_GPUS] = {false}, any = false;
        int64_t busy_since = 0;
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++) {
                ctx->frame->gpus[slot].sampled = false;
                enum nvml_worker_state st = nvml_worker_state(s->worker[slot], &busy_since);
                switch (nvml_worker_plan(st, busy_since, t->mono_ns,
                                         s->sh.gpu[slot].next_try_mono_ns, s->hang_ns)) {
                case NA_COLLECT:
                        nvml_worker_collect(s->worker[slot], &job);
                        apply_job(s, slot, &job, t);
                        break;
                case NA_HUNG:
                        publish_hung(s, slot, busy_since, t);
                        break;
                case NA_SUBMIT:
                        submit(s, slot, &job, t);
                        submitted[slot] = any = true;
                        break;
                case NA_NONE:
                        break;
                }
        }
        /* One deadline for all: the GPUs answer in parallel. */
        int64_t deadline = any ? now_mono_ns() + s->wait_ns : 0;
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++) {
                if (!submitted[slot] || !nvml_worker_wait(s->worker[slot], deadline))
                        continue;
                nvml_worker_collect(s->worker[slot], &job);
                apply_job(s, slot, &job, t);
        }
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
        stop_workers(s);
        /* A worker still inside a call is left running (nvml_worker.h); the driver is not
         * shut down under it. */
        if (s->hung_at_exit)
                vlog(LOG_WARN,
                     "NVML: %u GPU call(s) still hung at exit: left running, nvmlShutdown skipped",
                     s->hung_at_exit);
        else
                s->sh.lib.shutdown();
        /* The library stays mapped until exit: a driver keeps state (and threads) past
         * nvmlShutdown, which unloading would cut off. */
        free(s);
}

const struct vigil_source source_nvml = {
    .name = "nvml",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = nvml_init,
    .sample = nvml_sample,
    .fini = nvml_fini,
};
