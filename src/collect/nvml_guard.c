/* The guard on the main loop's NVML calls. See nvml_guard.h. */
#include "collect/nvml_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "util/log.h"

/* The guard's wakes may come this late, so the kernel can fold them into others. */
#define GUARD_SLACK_NS (NVML_GUARD_PERIOD_NS / 2)

static void *guard_main(void *arg);

/* A guard thread; false when none could start. Called with g->lock held. */
static bool start_thread(struct nvml_guard *g)
{
        int r = vigil_thread_create(&g->thread, guard_main, g);
        g->have_thread = r == 0;
        return g->have_thread;
}

/* Sleep one period; true when told to quit. */
static bool guard_sleep(struct nvml_guard *g)
{
        int64_t deadline = now_mono_ns() + NVML_GUARD_PERIOD_NS;
        struct timespec ts = {.tv_sec = deadline / NSEC_PER_SEC,
                              .tv_nsec = deadline % NSEC_PER_SEC};
        pthread_mutex_lock(&g->lock);
        while (!g->quit)
                if (pthread_cond_timedwait(&g->cond, &g->lock, &ts) == ETIMEDOUT)
                        break;
        bool quit = g->quit;
        pthread_mutex_unlock(&g->lock);
        return quit;
}

/* Take the hung job tagged tag from the loop thread, and become the loop thread.
 * Returns only when the tag was not taken (the job ended meanwhile) or no worker could
 * be made for the next jobs (then the next look tries again). */
static void take_over(struct nvml_guard *g, uint64_t tag, int64_t since)
{
        struct nvml_worker *fresh = nvml_worker_new_inline(g->lib);
        if (!fresh)
                return;
        uint64_t expect = tag;
        if (!atomic_compare_exchange_strong_explicit(&g->running, &expect, 0, memory_order_acq_rel,
                                                     memory_order_acquire)) {
                nvml_worker_stop(fresh);
                return;
        }
        g->on_hang(g->arg, tag, since, fresh);
        pthread_mutex_lock(&g->lock);
        g->moves++;
        bool quit = g->quit;
        if (!quit && !start_thread(g))
                vlog(LOG_WARN, "NVML: cannot start a new guard thread: a hung call from now on "
                               "holds up sampling");
        pthread_mutex_unlock(&g->lock);
        /* Nobody joins a loop thread: if a hang abandons this one too, it ends alone. */
        pthread_detach(pthread_self());
        /* The loop's state is this thread's from here on; it never comes back. */
        g->ctx->move_loop(g->ctx);
}

static void *guard_main(void *arg)
{
        struct nvml_guard *g = arg;
        uint64_t seen = 0;
        int64_t seen_at = 0;
        prctl(PR_SET_TIMERSLACK, (unsigned long)GUARD_SLACK_NS, 0, 0, 0);
        while (!guard_sleep(g)) {
                uint64_t tag = atomic_load_explicit(&g->running, memory_order_acquire);
                int64_t now = now_mono_ns();
                if (tag == 0 || tag != seen) {
                        seen = tag;
                        seen_at = now;
                        continue;
                }
                /* The same job at two looks in a row: it has run for a period at least. */
                if (g->ctx->move_loop)
                        take_over(g, tag, seen_at);
        }
        return NULL;
}

int nvml_guard_start(struct nvml_guard **ret, struct vigil_ctx *ctx, const struct nvml_lib *lib,
                     nvml_guard_hang_fn on_hang, void *arg)
{
        struct nvml_guard *g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        atomic_init(&g->running, 0);
        g->ctx = ctx;
        g->lib = lib;
        g->on_hang = on_hang;
        g->arg = arg;
        cond_init_mono(&g->cond);
        pthread_mutex_init(&g->lock, NULL);
        pthread_mutex_lock(&g->lock);
        bool ok = start_thread(g);
        pthread_mutex_unlock(&g->lock);
        *ret = g;
        return ok ? 0 : -EAGAIN;
}

_Noreturn void nvml_guard_orphan_exit(void)
{
        pthread_exit(NULL);
}

unsigned nvml_guard_moves(struct nvml_guard *g)
{
        pthread_mutex_lock(&g->lock);
        unsigned n = g->moves;
        pthread_mutex_unlock(&g->lock);
        return n;
}

void nvml_guard_stop(struct nvml_guard *g, bool keep)
{
        if (!g)
                return;
        pthread_mutex_lock(&g->lock);
        g->quit = true;
        pthread_cond_broadcast(&g->cond);
        bool have = g->have_thread;
        pthread_t t = g->thread;
        g->have_thread = false;
        pthread_mutex_unlock(&g->lock);
        if (have)
                pthread_join(t, NULL);
        if (keep)
                return;
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->lock);
        free(g);
}
