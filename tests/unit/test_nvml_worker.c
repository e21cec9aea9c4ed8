/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the NVML jobs and their worker (collect/nvml_worker.c). The decisions are
 * pure functions tested on numbers; the job runs on a fake function table; a stuck job
 * is a fake call that blocks until the test opens a gate, so no test depends on how
 * fast anything runs. The stall guard (core/stall_guard.c) is
 * tested here too, on an inline job stuck at the gate, with on_hang as nvml.c has it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/nvml_worker.h"
#include "core/stall_guard.h"
#include "loop_move.h"
#include "util/clock.h"

#define MS NSEC_PER_MSEC
#define S  NSEC_PER_SEC

static struct {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool gated;  /* the temperature call blocks while the gate is closed */
        bool open;   /* the gate */
        bool inside; /* a call is waiting at the gate */
        nvmlReturn_t temp_ret, handle_ret;
        unsigned handles, temps, names, drivers;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static char devs[4];
static struct nvmlDevice_st *const dev = (struct nvmlDevice_st *)&devs[0];

static nvmlReturn_t f_handle(unsigned i, nvmlDevice_t *d)
{
        pthread_mutex_lock(&fake.lock);
        fake.handles++;
        nvmlReturn_t r = fake.handle_ret;
        pthread_mutex_unlock(&fake.lock);
        if (r == NVML_SUCCESS)
                *d = (struct nvmlDevice_st *)&devs[i % 4];
        return r;
}

static nvmlReturn_t f_temp(nvmlDevice_t d, int s, unsigned *v)
{
        (void)s;
        (void)d;
        pthread_mutex_lock(&fake.lock);
        fake.temps++;
        bool gated = fake.gated;
        if (gated)
                fake.inside = true;
        pthread_cond_broadcast(&fake.cond);
        while (gated && !fake.open)
                pthread_cond_wait(&fake.cond, &fake.lock);
        fake.inside = false;
        nvmlReturn_t r = fake.temp_ret;
        pthread_mutex_unlock(&fake.lock);
        *v = 45;
        return r;
}

static nvmlReturn_t f_name(nvmlDevice_t d, char *buf, unsigned n)
{
        (void)d;
        pthread_mutex_lock(&fake.lock);
        fake.names++;
        pthread_mutex_unlock(&fake.lock);
        snprintf(buf, n, "Fake GPU");
        return NVML_SUCCESS;
}

static nvmlReturn_t f_driver(char *buf, unsigned n)
{
        pthread_mutex_lock(&fake.lock);
        fake.drivers++;
        pthread_mutex_unlock(&fake.lock);
        snprintf(buf, n, "999.1");
        return NVML_SUCCESS;
}

static struct nvml_lib lib;

static int setup(void **state)
{
        (void)state;
        pthread_mutex_lock(&fake.lock);
        fake.gated = fake.open = fake.inside = false;
        fake.temp_ret = fake.handle_ret = NVML_SUCCESS;
        fake.handles = fake.temps = fake.names = fake.drivers = 0;
        pthread_mutex_unlock(&fake.lock);
        memset(&lib, 0, sizeof(lib));
        lib.get_handle = f_handle;
        lib.temperature = f_temp;
        lib.name = f_name;
        lib.driver_version = f_driver;
        return 0;
}

static void gate_open(void)
{
        pthread_mutex_lock(&fake.lock);
        fake.open = true;
        pthread_cond_broadcast(&fake.cond);
        pthread_mutex_unlock(&fake.lock);
}

/* Block until the worker is at the gate (it is then BUSY, inside a call). */
static void wait_inside(void)
{
        pthread_mutex_lock(&fake.lock);
        while (!fake.inside)
                pthread_cond_wait(&fake.cond, &fake.lock);
        pthread_mutex_unlock(&fake.lock);
}

static void new_job(struct nvml_job *job, bool have_handle)
{
        memset(job, 0, sizeof(*job));
        gpu_frame_clear(&job->g);
        job->gpu.index = 0;
        job->gpu.handle = have_handle ? dev : NULL;
}

/* A sample job for GPU i (handle dev + i). */
static void gpu_job(struct nvml_job *job, unsigned i)
{
        new_job(job, true);
        job->gpu.index = i;
        job->gpu.handle = (struct nvmlDevice_st *)&devs[i];
}

static void test_plan(void **state)
{
        (void)state;
        int64_t hang = 2 * S;
        /* A finished job is collected whatever the back-off says. */
        assert_int_equal(nvml_worker_plan(NW_DONE, 0, 10 * S, 99 * S, hang), NA_COLLECT);
        /* Idle: nothing to publish, due or not. */
        assert_int_equal(nvml_worker_plan(NW_IDLE, 0, 10 * S, 0, hang), NA_NONE);
        assert_int_equal(nvml_worker_plan(NW_IDLE, 0, 10 * S, 10 * S + 1, hang), NA_NONE);
        /* Busy: nothing until the hang threshold, then a failure when due. */
        assert_int_equal(nvml_worker_plan(NW_BUSY, 9 * S, 10 * S, 0, hang), NA_NONE);
        assert_int_equal(nvml_worker_plan(NW_BUSY, 8 * S + 1, 10 * S, 0, hang), NA_NONE);
        assert_int_equal(nvml_worker_plan(NW_BUSY, 8 * S, 10 * S, 0, hang), NA_HUNG);
        assert_int_equal(nvml_worker_plan(NW_BUSY, 1 * S, 10 * S, 11 * S, hang), NA_NONE);
        assert_int_equal(nvml_worker_plan(NW_BUSY, 1 * S, 11 * S, 11 * S, hang), NA_HUNG);
}

static void test_bounds(void **state)
{
        (void)state;
        assert_int_equal(nvml_worker_hang_ns(100 * MS), 2 * S);
        assert_int_equal(nvml_worker_hang_ns(1 * S), 2 * S);
        assert_int_equal(nvml_worker_hang_ns(5 * S), 10 * S);
}

static void test_merge_keeps_failure_state(void **state)
{
        (void)state;
        struct nvml_gpu dst, src;
        memset(&dst, 0, sizeof(dst));
        memset(&src, 0, sizeof(src));
        dst.consecutive_failures = 3;
        dst.crash_seq = 2;
        dst.next_try_mono_ns = 12345;
        src.handle = dev;
        src.handle_gen = 4;
        src.unsupported = 0x5;
        snprintf(src.name, sizeof(src.name), "New");
        src.consecutive_failures = 0; /* the copy the job started from */
        nvml_gpu_merge(&dst, &src);
        assert_ptr_equal(dst.handle, dev);
        assert_int_equal(dst.handle_gen, 4);
        assert_int_equal(dst.unsupported, 0x5);
        assert_string_equal(dst.name, "New");
        assert_int_equal(dst.consecutive_failures, 3);
        assert_int_equal(dst.crash_seq, 2);
        assert_int_equal(dst.next_try_mono_ns, 12345);
}

static void test_job_acquires_then_samples(void **state)
{
        (void)state;
        struct nvml_job job;
        new_job(&job, false);
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_SUCCESS);
        assert_true(job.identified);
        assert_ptr_equal(job.gpu.handle, dev);
        assert_int_equal(job.gpu.handle_gen, 1);
        assert_string_equal(job.gpu.name, "Fake GPU");
        assert_true(job.g.temp_c == 45);
        assert_false(job.have_driver);
        /* With a handle: no new handle, no identity. */
        job.g.temp_c = VAL_MISSING;
        nvml_job_run(&lib, &job);
        assert_true(!job.identified);
        assert_int_equal(fake.handles, 1);
        assert_int_equal(fake.names, 1);
        assert_int_equal(fake.temps, 2);
        assert_true(job.g.temp_c == 45);
}

/* A GPU that cannot be acquired is not sampled; its next job tries again. */
static void test_job_acquire_fails(void **state)
{
        (void)state;
        struct nvml_job job;
        fake.handle_ret = NVML_ERROR_GPU_IS_LOST;
        new_job(&job, false);
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_ERROR_GPU_IS_LOST);
        assert_false(job.identified);
        assert_null(job.gpu.handle);
        assert_int_equal(fake.temps, 0);
        fake.handle_ret = NVML_SUCCESS;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_SUCCESS);
        assert_true(job.identified);
        assert_int_equal(fake.handles, 2);
        assert_int_equal(fake.temps, 1);
}

/* A GPU's first job may read the driver's version, before the GPU's calls, whether or
 * not the GPU answers. */
static void test_job_reads_driver(void **state)
{
        (void)state;
        struct nvml_job job;
        fake.handle_ret = NVML_ERROR_GPU_IS_LOST;
        new_job(&job, false);
        job.driver = true;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_ERROR_GPU_IS_LOST);
        assert_true(job.have_driver);
        assert_string_equal(job.driver_version, "999.1");
        job.driver = false;
        nvml_job_run(&lib, &job);
        assert_false(job.have_driver);
        assert_int_equal(fake.drivers, 1);
}

static unsigned proc_calls;

/* One compute process, pid 77, after NVML's count-first handshake. */
static nvmlReturn_t f_compute(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *infos)
{
        (void)d;
        proc_calls++;
        if (*count < 1) {
                *count = 1;
                return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        infos[0] = (nvmlProcessInfo_t){.pid = 77, .usedGpuMemory = 1 << 20};
        *count = 1;
        return NVML_SUCCESS;
}

static nvmlReturn_t f_graphics(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *infos)
{
        (void)d, (void)count, (void)infos;
        proc_calls++;
        return NVML_ERROR_NOT_SUPPORTED;
}

static void test_job_lists_processes(void **state)
{
        (void)state;
        struct nvml_job job;
        lib.compute_procs = f_compute;
        lib.graphics_procs = f_graphics;
        proc_calls = 0;
        new_job(&job, true);
        nvml_job_run(&lib, &job); /* not asked for: no process call */
        assert_false(job.procs_read);
        assert_int_equal(proc_calls, 0);
        job.procs = true;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_SUCCESS);
        assert_true(job.procs_read);
        assert_int_equal(proc_calls, 3); /* compute: count, then fill; graphics: refused */
        assert_true(job.procs_out.valid);
        assert_true(job.procs_out.supported[GPU_PROC_COMPUTE]);
        assert_false(job.procs_out.supported[GPU_PROC_GRAPHICS]);
        assert_int_equal(job.procs_out.n, 1);
        assert_int_equal(job.procs_out.p[0].pid, 77);
        /* A sample the GPU does not answer lists nothing: the last list stays. */
        fake.temp_ret = NVML_ERROR_GPU_IS_LOST;
        proc_calls = 0;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_ERROR_GPU_IS_LOST);
        assert_false(job.procs_read);
        assert_int_equal(proc_calls, 0);
        /* A driver without the calls: no list, the sample still good. */
        fake.temp_ret = NVML_SUCCESS;
        lib.compute_procs = NULL;
        lib.graphics_procs = NULL;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_SUCCESS);
        assert_false(job.procs_read);
}

static void test_job_failure_and_recovery(void **state)
{
        (void)state;
        struct nvml_job job;
        new_job(&job, true);
        fake.temp_ret = NVML_ERROR_GPU_IS_LOST;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_ERROR_GPU_IS_LOST);
        assert_false(job.identified);
        /* The retry: a fresh handle first; answering, so the identity is read anew. */
        fake.temp_ret = NVML_SUCCESS;
        job.reacquire = job.reidentify = true;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_SUCCESS);
        assert_int_equal(fake.handles, 1);
        assert_true(job.identified);
        assert_int_equal(job.gpu.handle_gen, 1);
        assert_true(job.have_driver);
        assert_string_equal(job.driver_version, "999.1");
        /* A failed retry does not re-identify. */
        fake.handle_ret = NVML_ERROR_GPU_IS_LOST;
        nvml_job_run(&lib, &job);
        assert_int_equal(job.err, NVML_ERROR_GPU_IS_LOST);
        assert_false(job.identified);
        assert_false(job.have_driver);
}

/* The guard's side of a test: what on_hang saw. */
static struct {
        pthread_mutex_t lock;
        struct nvml_worker *inline_w; /* the worker the "loop" runs its job in */
        unsigned hangs;
        uint64_t tag;
        int64_t since;
} mv = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void t_on_hang(void *arg, uint64_t tag, int64_t since)
{
        (void)arg;
        nvml_worker_adopt(mv.inline_w, stall_guard_key(tag), since);
        pthread_mutex_lock(&mv.lock);
        mv.hangs++;
        mv.tag = tag;
        mv.since = since;
        pthread_mutex_unlock(&mv.lock);
}

static void mv_reset(void)
{
        loop_move_reset();
        pthread_mutex_lock(&mv.lock);
        mv.hangs = 0;
        mv.tag = 0;
        pthread_mutex_unlock(&mv.lock);
}

/* The "loop": GPU slot 3's job inline under the guard, as nvml.c runs it. Returns
 * whether the job stayed the loop's (1) or the guard took it (0). */
static void *loop_job(void *arg)
{
        struct stall_guard *g = arg;
        struct nvml_worker *w = mv.inline_w;
        struct nvml_job *job = nvml_worker_inline_job(w);
        gpu_job(job, 1);
        uint64_t tag = stall_guard_enter(g, 3);
        nvml_job_run(nvml_worker_lib(w), job);
        bool kept = stall_guard_leave(g, tag);
        if (!kept)
                nvml_worker_orphan_done(w);
        return (void *)(intptr_t)kept;
}

/* A job stuck in a call: the guard takes it (the loop's leave fails), the worker is
 * adopted for its slot, the guard thread moves on with the loop; when the call returns
 * the result is there to take, in the adopted worker. */
static void test_guard_takes_stuck_job(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = NULL;
        struct nvml_job out;
        unsigned slot = 99;
        pthread_t t;
        void *kept = NULL;
        memset(&ctx, 0, sizeof(ctx));
        ctx.move_loop = loop_move_fn;
        mv_reset();
        mv.inline_w = nvml_worker_new_inline(&lib);
        assert_non_null(mv.inline_w);
        assert_int_equal(stall_guard_start(&g, &ctx, STALL_GUARD_LEASE_NS, t_on_hang, NULL), 0);
        fake.gated = true;
        int64_t before = now_mono_ns();
        assert_int_equal(pthread_create(&t, NULL, loop_job, g), 0);
        wait_inside();
        loop_move_wait();
        assert_int_equal(mv.hangs, 1);
        assert_int_equal(stall_guard_key(mv.tag), 3);
        assert_true(mv.since >= before);
        int64_t since = 0;
        assert_int_equal(nvml_worker_state(mv.inline_w, &since), NW_BUSY);
        assert_int_equal(since, mv.since);
        /* The call returns: the abandoned thread hands the job over. */
        gate_open();
        pthread_join(t, &kept);
        assert_null(kept);
        assert_int_equal(nvml_worker_state(mv.inline_w, NULL), NW_DONE);
        assert_true(nvml_worker_take(mv.inline_w, &out, &slot));
        assert_int_equal(nvml_worker_state(mv.inline_w, NULL), NW_IDLE);
        assert_false(nvml_worker_take(mv.inline_w, &out, &slot));
        assert_int_equal(slot, 3);
        assert_int_equal(out.err, NVML_SUCCESS);
        assert_true(out.g.temp_c == 45);
        assert_true(nvml_worker_stop(mv.inline_w));
        stall_guard_stop(g, false);
}

/* Stopped while the adopted job is still stuck: not freed under the thread; the
 * thread frees it when the call returns (ASan would see a leak or a use after free). */
static void test_guard_adopted_abandoned(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = NULL;
        pthread_t t;
        void *kept = (void *)1;
        memset(&ctx, 0, sizeof(ctx));
        ctx.move_loop = loop_move_fn;
        mv_reset();
        mv.inline_w = nvml_worker_new_inline(&lib);
        assert_int_equal(stall_guard_start(&g, &ctx, STALL_GUARD_LEASE_NS, t_on_hang, NULL), 0);
        fake.gated = true;
        assert_int_equal(pthread_create(&t, NULL, loop_job, g), 0);
        loop_move_wait();
        assert_false(nvml_worker_stop(mv.inline_w));
        stall_guard_stop(g, true); /* the thread still touches the guard */
        gate_open();
        pthread_join(t, &kept);
        assert_null(kept);
        free(g); /* kept for the thread; now it is done with it */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_plan),
            cmocka_unit_test(test_bounds),
            cmocka_unit_test(test_merge_keeps_failure_state),
            cmocka_unit_test_setup(test_job_acquires_then_samples, setup),
            cmocka_unit_test_setup(test_job_lists_processes, setup),
            cmocka_unit_test_setup(test_job_acquire_fails, setup),
            cmocka_unit_test_setup(test_job_reads_driver, setup),
            cmocka_unit_test_setup(test_job_failure_and_recovery, setup),
            cmocka_unit_test_setup(test_guard_takes_stuck_job, setup),
            cmocka_unit_test_setup(test_guard_adopted_abandoned, setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
