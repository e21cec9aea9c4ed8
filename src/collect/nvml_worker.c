/* The NVML reader threads and the jobs they run. See nvml_worker.h. A job reads what
 * nvml_read.c reads, one GPU, e.g.
 *   gpu1: handle 0x..., temperature 45 C, power 85000 mW, ... (24 calls) */
#include "collect/nvml_worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/nvml_read.h"
#include "core/vigil.h"
#include "util/clock.h"

#define HANG_MIN_NS (2 * NSEC_PER_SEC)
#define HANG_IVS    2

struct nvml_worker {
        pthread_mutex_t lock;
        pthread_cond_t cond; /* CLOCK_MONOTONIC; broadcast when the batch is done, on quit */
        pthread_t thread;
        struct nvml_lib lib; /* its own copy: it may outlive the source (abandoned) */
        enum nvml_worker_state state;
        bool quit;       /* main loop: end the thread (only while not BUSY) */
        bool abandoned;  /* main loop gave up on a BUSY worker: it frees itself */
        bool own_thread; /* thread is ours (joined); false: an inline worker */
        bool adopted;    /* an inline worker whose job the guard took (nvml_worker_adopt) */
        /* The batch. job[next] is the reader's while BUSY (it is inside it), jobs
         * [next + 1, end) wait for it, [taken, next) are done and wait for the main loop;
         * [end, n) were taken back by nvml_worker_split and are never run. */
        unsigned n, taken, next, end;
        int64_t since; /* when job[next] started: the submission for job 0 */
        unsigned slot[VIGIL_MAX_GPUS];
        struct nvml_job job[VIGIL_MAX_GPUS];
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

void nvml_job_run(const struct nvml_lib *lib, struct nvml_job *job)
{
        struct nvml_gpu *gpu = &job->gpu;
        nvmlReturn_t err = NVML_SUCCESS;
        job->identified = job->have_driver = job->procs_read = false;
        if (!gpu->handle) { /* not answering so far: identify it once it does */
                err = acquire(lib, gpu);
                job->identified = err == NVML_SUCCESS;
        } else if (job->reacquire) {
                err = reacquire(lib, gpu);
        }
        if (err == NVML_SUCCESS && job->sample) {
                struct nvml_read_result res;
                gpu_frame_clear(&job->g);
                if (job->reprobe)
                        nvml_read_reprobe(gpu);
                nvml_read_sample(lib, gpu, &job->g, job->slow, &res);
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

void nvml_gpu_merge(struct nvml_gpu *dst, const struct nvml_gpu *src)
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

static void *worker_main(void *arg)
{
        struct nvml_worker *w = arg;
        pthread_mutex_lock(&w->lock);
        for (;;) {
                while (w->state != NW_BUSY && !w->quit)
                        pthread_cond_wait(&w->cond, &w->lock);
                if (w->quit)
                        break;
                while (w->next < w->end) {
                        struct nvml_job *job = &w->job[w->next];
                        pthread_mutex_unlock(&w->lock);
                        nvml_job_run(&w->lib, job);
                        pthread_mutex_lock(&w->lock);
                        if (w->abandoned) {
                                pthread_mutex_unlock(&w->lock);
                                worker_free(w);
                                return NULL;
                        }
                        /* end may have come down to here meanwhile (a split). */
                        if (++w->next < w->end)
                                w->since = now_mono_ns();
                }
                w->state = NW_DONE;
                pthread_cond_broadcast(&w->cond);
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

static struct nvml_worker *worker_new(const struct nvml_lib *lib)
{
        struct nvml_worker *w = calloc(1, sizeof(*w));
        if (!w)
                return NULL;
        w->lib = *lib;
        cond_init_mono(&w->cond);
        pthread_mutex_init(&w->lock, NULL);
        return w;
}

int nvml_worker_start(struct nvml_worker **ret, const struct nvml_lib *lib)
{
        struct nvml_worker *w = worker_new(lib);
        if (!w)
                return -ENOMEM;
        w->own_thread = true;
        int r = vigil_thread_create(&w->thread, worker_main, w);
        if (r < 0) {
                worker_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

struct nvml_worker *nvml_worker_new_inline(const struct nvml_lib *lib)
{
        return worker_new(lib);
}

struct nvml_job *nvml_worker_inline_job(struct nvml_worker *w)
{
        return &w->job[0];
}

const struct nvml_lib *nvml_worker_lib(const struct nvml_worker *w)
{
        return &w->lib;
}

void nvml_worker_adopt(struct nvml_worker *w, unsigned slot, int64_t since)
{
        pthread_mutex_lock(&w->lock);
        w->slot[0] = slot;
        w->n = w->end = 1;
        w->taken = w->next = 0;
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
        w->next = 1;
        w->state = NW_DONE;
        pthread_cond_broadcast(&w->cond);
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

void nvml_worker_submit_batch(struct nvml_worker *w, const struct nvml_job *jobs,
                              const unsigned *slots, unsigned n, int64_t now)
{
        if (n > VIGIL_MAX_GPUS)
                n = VIGIL_MAX_GPUS;
        pthread_mutex_lock(&w->lock);
        if (w->state == NW_IDLE && n > 0) {
                memcpy(w->job, jobs, n * sizeof(*jobs));
                memcpy(w->slot, slots, n * sizeof(*slots));
                w->n = w->end = n;
                w->taken = w->next = 0;
                w->since = now;
                w->state = NW_BUSY;
                pthread_cond_broadcast(&w->cond);
        }
        pthread_mutex_unlock(&w->lock);
}

bool nvml_worker_wait(struct nvml_worker *w, int64_t deadline)
{
        struct timespec ts = {.tv_sec = deadline / NSEC_PER_SEC,
                              .tv_nsec = deadline % NSEC_PER_SEC};
        pthread_mutex_lock(&w->lock);
        while (w->state == NW_BUSY)
                if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
                        break;
        bool done = w->state == NW_DONE;
        pthread_mutex_unlock(&w->lock);
        return done;
}

unsigned nvml_worker_take(struct nvml_worker *w, struct nvml_job *ret_jobs, unsigned *ret_slots,
                          unsigned max)
{
        unsigned k = 0;
        pthread_mutex_lock(&w->lock);
        for (; k < max && w->taken < w->next; k++, w->taken++) {
                ret_jobs[k] = w->job[w->taken];
                if (ret_slots)
                        ret_slots[k] = w->slot[w->taken];
        }
        if (w->state == NW_DONE && w->taken == w->next)
                w->state = NW_IDLE;
        pthread_mutex_unlock(&w->lock);
        return k;
}

bool nvml_worker_split(struct nvml_worker *w, int64_t now, int64_t min_ns, unsigned *ret_slot)
{
        pthread_mutex_lock(&w->lock);
        bool split = w->state == NW_BUSY && now - w->since >= min_ns;
        if (split) {
                w->end = w->next + 1;
                *ret_slot = w->slot[w->next];
        }
        pthread_mutex_unlock(&w->lock);
        return split;
}

bool nvml_worker_stop(struct nvml_worker *w)
{
        if (!w)
                return true;
        pthread_mutex_lock(&w->lock);
        if (w->state == NW_BUSY) {
                pthread_t t = w->thread; /* w may be freed as soon as the lock is released */
                bool own = w->own_thread;
                w->abandoned = true;
                pthread_mutex_unlock(&w->lock);
                if (own)
                        pthread_detach(t);
                return false;
        }
        if (!w->own_thread) { /* inline: no thread; an orphan's is gone after DONE */
                pthread_mutex_unlock(&w->lock);
                worker_free(w);
                return true;
        }
        w->quit = true;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        worker_free(w);
        return true;
}
