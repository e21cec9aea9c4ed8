/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML jobs and the worker they run in. See nvml_worker.h. A job reads what
 * nvml_read.c reads, one GPU, e.g.
 *   gpu1: handle 0x..., temperature 45 C, power 85000 mW, ... (24 calls) */
#include "collect/nvml_worker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_read.h"
#include "util/clock.h"
#include "util/hot.h"

#define HANG_MIN_NS (2 * NSEC_PER_SEC)
#define HANG_IVS    2

struct nvml_worker {
        pthread_mutex_t lock;
        pthread_cond_t cond; /* broadcast when the job is adopted */
        struct nvml_lib lib; /* its own copy: it may outlive the source (abandoned) */
        enum nvml_worker_state state;
        bool adopted;        /* the guard took the job (nvml_worker_adopt) */
        bool abandoned;      /* stopped while BUSY: the abandoned thread frees it */
        unsigned slot;       /* the adopted job's GPU */
        int64_t since;       /* when the adopted job was first seen hung */
        struct nvml_job job; /* the job the loop runs inline */
};

/* Get the handle and the static facts of the GPU. 0 or the NVML code that failed (the
 * handle stays NULL then, so the next try starts over). */
static nvmlReturn_t acquire(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        nvmlDevice_t h = NULL;
        nvmlReturn_t r = lib->get_handle(gpu->index, &h);
        if (r != NVML_SUCCESS)
                return r;
        gpu->handle = h;
        r = nvml_read_identity(lib, gpu);
        if (r != NVML_SUCCESS) {
                gpu->handle = NULL;
                return r;
        }
        gpu->handle_gen++;
        return NVML_SUCCESS;
}

/* A failing GPU gets a fresh handle before it is asked again. */
static nvmlReturn_t reacquire(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        nvmlDevice_t h = NULL;
        nvmlReturn_t r = lib->get_handle(gpu->index, &h);
        if (r == NVML_SUCCESS)
                gpu->handle = h;
        return r;
}

/* The GPU's compute and graphics processes. A fatal answer is left for the next
 * sample to find: the list is then not taken. */
static void read_procs(const struct nvml_lib *lib, struct nvml_job *job)
{
        struct gpu_proc_list *l = &job->procs_out;
        nvmlDevice_t h = job->gpu.handle;
        memset(l, 0, sizeof(*l));
        nvmlReturn_t rc = nvml_procs_query(lib->compute_procs, h, GPU_PROC_COMPUTE, l);
        if (nvml_fatal(rc))
                return;
        nvmlReturn_t rg = nvml_procs_query(lib->graphics_procs, h, GPU_PROC_GRAPHICS, l);
        if (nvml_fatal(rg))
                return;
        l->valid = l->supported[GPU_PROC_COMPUTE] || l->supported[GPU_PROC_GRAPHICS];
        job->procs_read = l->valid;
}

static void read_driver(const struct nvml_lib *lib, struct nvml_job *job)
{
        char v[sizeof(job->driver_version)] = "";
        if (lib->driver_version && lib->driver_version(v, sizeof(v)) == NVML_SUCCESS) {
                v[sizeof(v) - 1] = '\0';
                memcpy(job->driver_version, v, sizeof(v));
                job->have_driver = true;
        }
}

VIGIL_HOT void nvml_job_run(const struct nvml_lib *lib, struct nvml_job *job)
{
        struct nvml_gpu *gpu = &job->gpu;
        nvmlReturn_t err = NVML_SUCCESS;
        job->identified = job->have_driver = job->procs_read = false;
        if (job->driver)
                read_driver(lib, job);
        if (!gpu->handle) { /* not answering so far: identify it once it does */
                err = acquire(lib, gpu);
                job->identified = err == NVML_SUCCESS;
        } else if (job->reacquire) {
                err = reacquire(lib, gpu);
        }
        if (err == NVML_SUCCESS) {
                struct nvml_read_result res;
                gpu_frame_clear(&job->g);
                if (job->reprobe)
                        nvml_read_reprobe(gpu);
                nvml_read_sample(lib, gpu, &job->g, job->what, &res);
                nvml_read_failed(&res, &err);
                if (err == NVML_SUCCESS && job->reidentify) {
                        /* Answering again: it may have been reset; read what it is now. */
                        gpu->handle_gen++;
                        nvml_read_identity(lib, gpu);
                        read_driver(lib, job);
                        job->identified = true;
                }
                if (err == NVML_SUCCESS && job->procs)
                        read_procs(lib, job);
        }
        job->err = err;
}

VIGIL_HOT void nvml_gpu_merge(struct nvml_gpu *dst, const struct nvml_gpu *src)
{
        unsigned failures = dst->consecutive_failures;
        uint64_t crash_seq = dst->crash_seq;
        int64_t next_try = dst->next_try_mono_ns;
        *dst = *src;
        dst->consecutive_failures = failures;
        dst->crash_seq = crash_seq;
        dst->next_try_mono_ns = next_try;
}

enum nvml_action nvml_worker_plan(enum nvml_worker_state st, int64_t busy_since, int64_t now,
                                  int64_t next_try, int64_t hang_ns)
{
        switch (st) {
        case NW_DONE:
                return NA_COLLECT;
        case NW_BUSY:
                return now - busy_since >= hang_ns && now >= next_try ? NA_HUNG : NA_NONE;
        case NW_IDLE:
                break;
        }
        return NA_NONE;
}

int64_t nvml_worker_hang_ns(int64_t interval_ns)
{
        return interval_ns * HANG_IVS > HANG_MIN_NS ? interval_ns * HANG_IVS : HANG_MIN_NS;
}

static void worker_free(struct nvml_worker *w)
{
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
}

struct nvml_worker *nvml_worker_new_inline(const struct nvml_lib *lib)
{
        struct nvml_worker *w = calloc(1, sizeof(*w));
        if (!w)
                return NULL;
        w->lib = *lib;
        pthread_cond_init(&w->cond, NULL);
        pthread_mutex_init(&w->lock, NULL);
        return w;
}

VIGIL_HOT struct nvml_job *nvml_worker_inline_job(struct nvml_worker *w)
{
        return &w->job;
}

VIGIL_HOT const struct nvml_lib *nvml_worker_lib(const struct nvml_worker *w)
{
        return &w->lib;
}

void nvml_worker_adopt(struct nvml_worker *w, unsigned slot, int64_t since)
{
        pthread_mutex_lock(&w->lock);
        w->slot = slot;
        w->since = since;
        w->state = NW_BUSY;
        w->adopted = true;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
}

void nvml_worker_orphan_done(struct nvml_worker *w)
{
        pthread_mutex_lock(&w->lock);
        while (!w->adopted)
                pthread_cond_wait(&w->cond, &w->lock);
        if (w->abandoned) {
                pthread_mutex_unlock(&w->lock);
                worker_free(w);
                return;
        }
        w->state = NW_DONE;
        pthread_mutex_unlock(&w->lock);
}

enum nvml_worker_state nvml_worker_state(struct nvml_worker *w, int64_t *ret_since)
{
        pthread_mutex_lock(&w->lock);
        enum nvml_worker_state st = w->state;
        if (ret_since)
                *ret_since = w->since;
        pthread_mutex_unlock(&w->lock);
        return st;
}

bool nvml_worker_take(struct nvml_worker *w, struct nvml_job *ret_job, unsigned *ret_slot)
{
        pthread_mutex_lock(&w->lock);
        bool done = w->state == NW_DONE;
        if (done) {
                *ret_job = w->job;
                if (ret_slot)
                        *ret_slot = w->slot;
                w->state = NW_IDLE;
        }
        pthread_mutex_unlock(&w->lock);
        return done;
}

bool nvml_worker_stop(struct nvml_worker *w)
{
        if (!w)
                return true;
        pthread_mutex_lock(&w->lock);
        if (w->state == NW_BUSY) { /* the abandoned thread frees it (orphan_done) */
                w->abandoned = true;
                pthread_mutex_unlock(&w->lock);
                return false;
        }
        pthread_mutex_unlock(&w->lock);
        worker_free(w);
        return true;
}
