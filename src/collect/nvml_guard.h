/* The guard on the main loop's NVML calls (nvml.c).
 *
 * The main loop makes the GPUs' calls itself, so a GPU tick costs no thread wake. A call
 * that hangs in the driver, as calls do when a GPU's firmware has crashed, must still
 * stop that GPU only. So:
 *  - Around each GPU's job the loop publishes a tag (the GPU's slot and a sequence
 *    number) in one atomic word, and takes it back after (nvml_guard_enter,
 *    nvml_guard_leave: a store and a compare-and-swap, no system call).
 *  - The first job of a tick arms a one-shot timer (a timerfd, NVML_GUARD_ARM_NS) and
 *    marks the tick in progress; nvml_guard_disarm at the end of the tick's jobs clears
 *    both. The guard thread sleeps on that timer, so while calls return it never wakes:
 *    a tick that ends within NVML_GUARD_ARM_NS (a healthy one takes microseconds to
 *    milliseconds) costs two timerfd_settime calls and no thread wake.
 *  - When the timer fires the tick is still running, and the guard looks at the word
 *    every NVML_GUARD_PERIOD_NS until the tick ends. A tag seen at two looks in a row
 *    belongs to a job that has run for at least one period: the guard takes the tag
 *    (compare-and-swap to 0, so the
 *    loop's nvml_guard_leave fails), gives the job to nvml.c (on_hang: the job's worker
 *    becomes the GPU's reader of its own, nvml_worker_adopt), starts a new guard
 *    thread, and becomes the loop thread itself (ctx->move_loop): the tick in progress
 *    goes on from the NVML source, with the other GPUs and the host.
 *  - The abandoned thread, when its call returns, finds its tag gone, hands the
 *    finished job over (nvml_worker_orphan_done) and exits (nvml_guard_orphan_exit).
 * Cost: per GPU sample one store and one compare-and-swap; per tick two timerfd_settime
 * calls; no guard wake unless a tick outlasts NVML_GUARD_ARM_NS. A hang holds the loop
 * once, when it starts, for the arm time plus one to two periods (0.2-0.3 s). Without
 * ctx->move_loop (outside the daemon) the guard only watches: a hang blocks the caller.
 *
 * The guard outlives the source when a job is still hung at exit (the abandoned thread
 * will touch the word when its call returns): nvml_guard_stop(g, true) leaves it
 * allocated. */
#ifndef VIGIL_COLLECT_NVML_GUARD_H
#define VIGIL_COLLECT_NVML_GUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "collect/nvml_worker.h"
#include "core/vigil.h"
#include "util/clock.h"

#define NVML_GUARD_PERIOD_NS (100 * NSEC_PER_MSEC)
#define NVML_GUARD_ARM_NS    (100 * NSEC_PER_MSEC)

/* Called on the guard thread once it has taken the tag of a hung job (the loop thread
 * is stuck in it and will not touch the source's state again): adopt the job's worker
 * for the tag's slot (nvml_guard_slot), held since since (CLOCK_MONOTONIC ns, when the
 * guard first saw it), and use fresh, a new inline worker, for the next jobs. */
typedef void (*nvml_guard_hang_fn)(void *arg, uint64_t tag, int64_t since,
                                   struct nvml_worker *fresh);

struct nvml_guard {
        _Atomic uint64_t running; /* 0, or the tag of the job the loop is in */
        _Atomic bool in_tick;     /* the loop is between its first job and disarm */
        _Atomic unsigned looks;   /* times the guard read the word (tests) */
        uint64_t seq;             /* the loop thread's: the last tag's sequence number */
        bool armed;               /* the loop thread's: the timer is armed for this tick */
        int64_t arm_ns;           /* the loop thread's: NVML_GUARD_ARM_NS (tests lengthen it) */
        int timer_fd;             /* CLOCK_MONOTONIC timerfd the first job arms */
        int quit_fd;              /* eventfd written on stop */
        /* The rest is the guard threads'; lock covers quit and thread. */
        pthread_mutex_t lock;
        bool quit;
        bool have_thread;
        pthread_t thread; /* the guard thread watching now */
        struct vigil_ctx *ctx;
        const struct nvml_lib *lib; /* for the fresh inline workers */
        nvml_guard_hang_fn on_hang;
        void *arg;
        unsigned moves; /* loop moves so far */
};

/* A guard, and its thread. 0; -ENOMEM (no guard); -EAGAIN: *ret is a guard whose
 * thread could not start (enter and leave work, nothing watches). lib must outlive the
 * guard (nvml_guard_stop). */
int nvml_guard_start(struct nvml_guard **ret, struct vigil_ctx *ctx, const struct nvml_lib *lib,
                     nvml_guard_hang_fn on_hang, void *arg);

/* Arm the guard's timer for the tick now starting (nvml_guard_enter does it for the
 * tick's first job). Loop thread only. */
void nvml_guard_arm(struct nvml_guard *g);

/* The tick's jobs are over: the guard goes back to sleeping on its timer. Loop thread
 * only; accepts NULL. */
void nvml_guard_disarm(struct nvml_guard *g);

/* The tag of GPU slot's job; published until nvml_guard_leave. Loop thread only. */
static inline uint64_t nvml_guard_enter(struct nvml_guard *g, unsigned slot)
{
        if (!g->armed)
                nvml_guard_arm(g);
        uint64_t tag = (++g->seq << 8) | (slot + 1);
        atomic_store_explicit(&g->running, tag, memory_order_release);
        return tag;
}

/* True: the job ended in the loop thread's hands. False: the guard took it (the caller
 * is no longer the loop thread: nvml_worker_orphan_done, then nvml_guard_orphan_exit). */
static inline bool nvml_guard_leave(struct nvml_guard *g, uint64_t tag)
{
        return atomic_compare_exchange_strong_explicit(&g->running, &tag, 0, memory_order_acq_rel,
                                                       memory_order_acquire);
}

/* The slot of a tag. */
static inline unsigned nvml_guard_slot(uint64_t tag)
{
        return (unsigned)(tag & 0xff) - 1;
}

/* End the calling thread, abandoned by the guard (its job returned after the loop
 * moved on). Does not return. */
_Noreturn void nvml_guard_orphan_exit(void);

/* How many times the guard has taken a job and moved the loop. */
unsigned nvml_guard_moves(struct nvml_guard *g);

/* How many times the guard has looked at the loop's word (0 while every tick ends
 * before the timer fires). */
unsigned nvml_guard_looks(struct nvml_guard *g);

/* Stop and join the guard thread; free g unless keep (a job is still hung). Accepts
 * NULL. */
void nvml_guard_stop(struct nvml_guard *g, bool keep);

#endif
