/* SPDX-License-Identifier: Apache-2.0 */
/* The stall guard: a source's calls into a driver that may hang, made inline on the
 * main loop, and the loop's move to another thread when one does.
 *
 * A source makes its calls on the loop thread, so a tick costs no thread wake. A call
 * that hangs in the driver (as NVML's do when a GPU's firmware has crashed) must still
 * stop only what it was about, not the loop. The source wraps each unit of work (one
 * GPU's job) in stall_guard_enter / stall_guard_leave, ends the tick's work with
 * stall_guard_tick_end, and says in on_hang what a hung unit means for it.
 *
 * One unit of work, as the loop thread and the guard thread see it:
 *
 *              stall_guard_enter(key)
 *     IDLE ---------------------------> RUNNING  (the tag, key and a sequence number,
 *      ^                                   |      is published in one atomic word)
 *      | stall_guard_leave: true           |
 *      +-----------------------------------+ the same tag at two of the guard's looks
 *                                          | in a row (it has run a period at least)
 *                                          v
 *                                       TAKEN    the guard swapped the word to 0:
 *                                          |     on_hang(arg, tag, since) on the guard
 *                                          |     thread, a new guard thread starts, and
 *                                          |     the guard thread becomes the loop
 *                                          |     (ctx->move_loop: the tick goes on from
 *                                          |     the source that was running)
 *                                          v
 *                                      ORPHANED  the old loop thread, when its call
 *                                                returns: stall_guard_leave is false; it
 *                                                hands its result over (the source's
 *                                                business) and calls
 *                                                stall_guard_orphan_exit
 *
 * The guard thread sleeps on a one-shot timer that the loop keeps pushing ahead, a lease
 * (lease_ns, given to stall_guard_start; the daemon's is STALL_GUARD_LEASE_NS):
 *
 *     SLEEPING -- a tick's first enter, when the lease is half spent
 *        ^  |     (lease_ns since the last renewal), sets the timer
 *        |  |     2 * lease_ns ahead: a loop that keeps ticking renews
 *        |  |     it before it fires
 *        |  |
 *        |  +-- the timer fires --> WATCHING: a look at the word every
 *        |                          STALL_GUARD_PERIOD_NS while a tick is running
 *        |                          (none running: back to sleep at once)
 *        |                            |
 *        +------ stall_guard_tick_end <+
 *
 * A guard thread started by a move begins WATCHING: the tick the loop moved in is
 * still running, and its timer has fired already. Every guard thread names itself
 * STALL_GUARD_THREAD_NAME (as top -H and /proc/PID/task/TID/comm show it); one that
 * becomes the loop takes back the name of the thread that called stall_guard_start.
 *
 * Cost: per unit one store and one compare-and-swap; per tick two stores and a read of
 * the monotonic clock (vDSO: no system call); one timerfd_settime per lease (two a
 * second with STALL_GUARD_LEASE_NS), whatever the sampling interval; no guard wake while
 * the loop ticks at least every lease_ns (a loop ticking less often has its guard wake
 * about once a tick, and look only when a tick is running). With STALL_GUARD_LEASE_NS,
 * a hang holds the loop once, when it starts: the timer fires 0.5-1 s into it and the
 * guard takes it at its second look, 0.6-1.1 s in; a hang is always found within 2 s.
 * Without ctx->move_loop (outside the daemon) the guard only watches: a hang blocks the
 * caller.
 *
 * The guard outlives its source when a unit is still hung at exit (the orphaned thread
 * touches the word when its call returns): stall_guard_stop(g, true) leaves it
 * allocated. */
#ifndef VIGIL_CORE_STALL_GUARD_H
#define VIGIL_CORE_STALL_GUARD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/vigil.h"
#include "util/clock.h"

#define STALL_GUARD_PERIOD_NS (100 * NSEC_PER_MSEC)
#define STALL_GUARD_LEASE_NS  (500 * NSEC_PER_MSEC)
/* The guard thread's name (15 characters at most). */
#define STALL_GUARD_THREAD_NAME "vigil-guard"

/* Called on the guard thread once it has taken the tag of a hung unit (the loop thread
 * is stuck in it and will not touch the source's state again), before that thread
 * becomes the loop: the unit's key is stall_guard_key(tag); since is when the guard
 * first saw it (CLOCK_MONOTONIC ns). */
typedef void (*stall_hang_fn)(void *arg, uint64_t tag, int64_t since);

struct stall_guard {
        _Atomic uint64_t running; /* 0, or the tag of the unit the loop is in */
        _Atomic bool in_tick;     /* the loop is between its first enter and tick_end */
        uint64_t seq;             /* the loop thread's: the last tag's sequence number */
        bool ticking;             /* the loop thread's: between a tick's first enter and end */
        int64_t renew_at;         /* the loop thread's: when the lease is due for renewal */
        int64_t lease_ns;         /* the loop thread's: the lease, from stall_guard_start */
        int timer_fd;             /* CLOCK_MONOTONIC timerfd: the lease */
        int quit_fd;              /* eventfd written on stop */
        /* The rest is the guard threads'; lock covers quit and thread. */
        pthread_mutex_t lock;
        bool quit;
        bool have_thread;
        pthread_t thread; /* the guard thread watching now */
        struct vigil_ctx *ctx;
        stall_hang_fn on_hang;
        void *arg;
        unsigned moves;     /* loop moves so far */
        char loop_name[16]; /* the loop thread's name, for a guard thread that becomes it */
};

/* A guard, and its thread; called on the loop thread. lease_ns: the lease (the daemon's
 * STALL_GUARD_LEASE_NS): the timer is set 2 * lease_ns ahead every lease_ns, so the
 * guard wakes once the loop has started no tick for lease_ns to 2 * lease_ns. 0;
 * -ENOMEM or another -errno (no guard); -EAGAIN: *ret is a guard whose thread could not
 * start (enter and leave work, nothing watches). ctx (its move_loop) must outlive the guard. */
int stall_guard_start(struct stall_guard **ret, struct vigil_ctx *ctx, int64_t lease_ns,
                      stall_hang_fn on_hang, void *arg);

/* A tick starts: the guard may watch it, and the lease is renewed when due
 * (stall_guard_enter does it for the tick's first unit). Loop thread only. */
void stall_guard_tick_start(struct stall_guard *g);

/* The tick's units are over: a guard whose timer fires finds nothing to watch. Loop
 * thread only; accepts NULL. */
void stall_guard_tick_end(struct stall_guard *g);

/* The tag of the unit about key (0-254, e.g. a GPU slot), published until
 * stall_guard_leave. Loop thread only. */
static inline uint64_t stall_guard_enter(struct stall_guard *g, unsigned key)
{
        if (!g->ticking)
                stall_guard_tick_start(g);
        uint64_t tag = (++g->seq << 8) | (key + 1);
        atomic_store_explicit(&g->running, tag, memory_order_release);
        return tag;
}

/* True: the unit ended in the loop thread's hands. False: the guard took it (the caller
 * is no longer the loop thread: it hands its result over, then stall_guard_orphan_exit). */
static inline bool stall_guard_leave(struct stall_guard *g, uint64_t tag)
{
        return atomic_compare_exchange_strong_explicit(&g->running, &tag, 0, memory_order_acq_rel,
                                                       memory_order_acquire);
}

/* The key of a tag. */
static inline unsigned stall_guard_key(uint64_t tag)
{
        return (unsigned)(tag & 0xff) - 1;
}

/* End the calling thread, orphaned by the guard (its unit returned after the loop moved
 * on). Does not return. */
_Noreturn void stall_guard_orphan_exit(void);

/* How many times the guard has taken a unit and moved the loop. */
unsigned stall_guard_moves(struct stall_guard *g);

/* Stop and join the guard thread; free g unless keep (a unit is still hung). Accepts
 * NULL. */
void stall_guard_stop(struct stall_guard *g, bool keep);

#endif
