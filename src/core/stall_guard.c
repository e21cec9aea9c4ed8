/* SPDX-License-Identifier: Apache-2.0 */
/* The stall guard. See stall_guard.h. */
#include "core/stall_guard.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "util/thread.h"
#include "util/log.h"
#include "util/hot.h"

enum guard_wake { GW_QUIT, GW_TIMER, GW_TIMEOUT };

static void *guard_main(void *arg);

/* A guard thread; false when none could start. Called with g->lock held. */
static bool start_thread(struct stall_guard *g)
{
        int r = vigil_thread_create(&g->thread, guard_main, g);
        g->have_thread = r == 0;
        return g->have_thread;
}

static void set_timer(struct stall_guard *g, int64_t ns)
{
        struct itimerspec its = {
            .it_value = {.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC}};
        (void)timerfd_settime(g->timer_fd, 0, &its, NULL);
}

VIGIL_HOT void stall_guard_tick_start(struct stall_guard *g)
{
        atomic_store_explicit(&g->in_tick, true, memory_order_release);
        g->ticking = true;
        int64_t now = now_mono_ns();
        if (now >= g->renew_at) {
                set_timer(g, 2 * g->lease_ns);
                g->renew_at = now + g->lease_ns;
        }
}

VIGIL_HOT void stall_guard_tick_end(struct stall_guard *g)
{
        if (!g || !g->ticking)
                return;
        g->ticking = false;
        atomic_store_explicit(&g->in_tick, false, memory_order_release);
}

/* Wait for the quit eventfd, and the timer when with_timer, at most timeout_ms (-1:
 * no limit). The timer's expiry count is read, so it wakes once per arm. */
VIGIL_HOT static enum guard_wake guard_wait(struct stall_guard *g, bool with_timer, int timeout_ms)
{
        struct pollfd p[2] = {{.fd = g->quit_fd, .events = POLLIN},
                              {.fd = g->timer_fd, .events = POLLIN}};
        int n;
        do
                n = poll(p, with_timer ? 2 : 1, timeout_ms);
        while (n < 0 && errno == EINTR);
        if (n > 0 && (p[0].revents & POLLIN))
                return GW_QUIT;
        if (n > 0 && with_timer && (p[1].revents & POLLIN)) {
                uint64_t expirations;
                (void)!read(g->timer_fd, &expirations, sizeof(expirations));
                return GW_TIMER;
        }
        return GW_TIMEOUT;
}

/* Take the hung unit tagged tag from the loop thread, and become the loop thread.
 * Returns only when the tag was not taken (the unit ended meanwhile). */
static void take_over(struct stall_guard *g, uint64_t tag, int64_t since)
{
        uint64_t expect = tag;
        if (!atomic_compare_exchange_strong_explicit(&g->running, &expect, 0, memory_order_acq_rel,
                                                     memory_order_acquire))
                return;
        g->on_hang(g->arg, tag, since);
        /* The loop's name, before the new guard thread (which takes this one's name,
         * then its own) starts: one thread named the guard's at a time. */
        (void)pthread_setname_np(pthread_self(), g->loop_name);
        pthread_mutex_lock(&g->lock);
        g->moves++;
        bool quit = g->quit;
        if (!quit && !start_thread(g))
                vlog(LOG_WARN, "cannot start a new stall guard thread: a hung driver call from "
                               "now on holds up sampling");
        pthread_mutex_unlock(&g->lock);
        /* Nobody joins a loop thread: if a hang abandons this one too, it ends alone. */
        pthread_detach(pthread_self());
        /* The loop's state is this thread's from here on; it never comes back. */
        g->ctx->move_loop(g->ctx);
}

/* Look at the loop's word every period while the tick lasts; take a unit seen at two
 * looks in a row. False when told to quit. */
static bool watch_tick(struct stall_guard *g)
{
        uint64_t seen = 0;
        int64_t seen_at = 0;
        const int period_ms = (int)(STALL_GUARD_PERIOD_NS / NSEC_PER_MSEC);
        while (atomic_load_explicit(&g->in_tick, memory_order_acquire)) {
                uint64_t tag = atomic_load_explicit(&g->running, memory_order_acquire);
                int64_t now = now_mono_ns();
                if (tag != 0 && tag == seen) {
                        /* The same unit at two looks in a row: it has run for a period at
                         * least. */
                        if (g->ctx->move_loop)
                                take_over(g, tag, seen_at);
                } else {
                        seen = tag;
                        seen_at = now;
                }
                if (guard_wait(g, false, period_ms) == GW_QUIT)
                        return false;
        }
        return true;
}

static void *guard_main(void *arg)
{
        struct stall_guard *g = arg;
        (void)pthread_setname_np(pthread_self(), STALL_GUARD_THREAD_NAME);
        /* A guard started by a move comes in the middle of a tick whose timer fired
         * already: it watches that tick at once. The first guard waits for the timer
         * like every later round, however late its thread starts. */
        pthread_mutex_lock(&g->lock);
        bool watch_now = g->moves > 0;
        pthread_mutex_unlock(&g->lock);
        for (;;) {
                if (!(watch_now && atomic_load_explicit(&g->in_tick, memory_order_acquire)) &&
                    guard_wait(g, true, -1) == GW_QUIT)
                        break;
                watch_now = false;
                if (!watch_tick(g))
                        break;
        }
        return NULL;
}

static void close_fds(struct stall_guard *g)
{
        if (g->timer_fd >= 0)
                close(g->timer_fd);
        if (g->quit_fd >= 0)
                close(g->quit_fd);
}

int stall_guard_start(struct stall_guard **ret, struct vigil_ctx *ctx, int64_t lease_ns,
                      stall_hang_fn on_hang, void *arg)
{
        struct stall_guard *g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        atomic_init(&g->running, 0);
        atomic_init(&g->in_tick, false);
        g->ctx = ctx;
        g->on_hang = on_hang;
        g->arg = arg;
        g->lease_ns = lease_ns;
        /* The caller is the loop thread: the name a guard thread takes when it becomes
         * the loop. */
        if (pthread_getname_np(pthread_self(), g->loop_name, sizeof(g->loop_name)) != 0)
                snprintf(g->loop_name, sizeof(g->loop_name), "vigil");
        g->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        g->quit_fd = eventfd(0, EFD_CLOEXEC);
        if (g->timer_fd < 0 || g->quit_fd < 0) {
                int r = -errno;
                close_fds(g);
                free(g);
                return r;
        }
        pthread_mutex_init(&g->lock, NULL);
        pthread_mutex_lock(&g->lock);
        bool ok = start_thread(g);
        pthread_mutex_unlock(&g->lock);
        *ret = g;
        return ok ? 0 : -EAGAIN;
}

_Noreturn void stall_guard_orphan_exit(void)
{
        pthread_exit(NULL);
}

unsigned stall_guard_moves(struct stall_guard *g)
{
        pthread_mutex_lock(&g->lock);
        unsigned n = g->moves;
        pthread_mutex_unlock(&g->lock);
        return n;
}

void stall_guard_stop(struct stall_guard *g, bool keep)
{
        if (!g)
                return;
        pthread_mutex_lock(&g->lock);
        g->quit = true;
        uint64_t one = 1;
        (void)!write(g->quit_fd, &one, sizeof(one));
        bool have = g->have_thread;
        pthread_t t = g->thread;
        g->have_thread = false;
        pthread_mutex_unlock(&g->lock);
        if (have)
                pthread_join(t, NULL);
        if (keep)
                return;
        close_fds(g);
        pthread_mutex_destroy(&g->lock);
        free(g);
}
