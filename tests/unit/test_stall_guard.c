/* Unit tests: the stall guard (core/stall_guard.c) on its own, with a unit of work that
 * blocks at a gate the test opens, so no test depends on how fast anything runs. How
 * the NVML source uses it (a hung GPU job adopted) is tested in test_nvml_worker.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stall_guard.h"
#include "loop_move.h"
#include "util/clock.h"

/* The unit of work, the loop thread, and what on_hang saw. */
static struct {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool open;      /* the gate */
        bool inside;    /* the unit waits at the gate */
        bool handed;    /* the orphaned thread handed its result over */
        unsigned hangs; /* on_hang calls */
        uint64_t tag;   /* on_hang's */
        int64_t since;  /* on_hang's */
        void *arg;      /* on_hang's */
} st = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static int setup(void **state)
{
        (void)state;
        pthread_mutex_lock(&st.lock);
        st.open = st.inside = st.handed = false;
        st.hangs = 0;
        st.tag = 0;
        st.since = 0;
        st.arg = NULL;
        pthread_mutex_unlock(&st.lock);
        loop_move_reset();
        return 0;
}

static void on_hang(void *arg, uint64_t tag, int64_t since)
{
        pthread_mutex_lock(&st.lock);
        st.hangs++;
        st.tag = tag;
        st.since = since;
        st.arg = arg;
        pthread_mutex_unlock(&st.lock);
}

/* The "loop": the unit about key 7, stuck at the gate. Ends with (void *)1 when the
 * unit stayed the loop's; an orphaned thread hands over and exits through the guard. */
static void *loop_unit(void *arg)
{
        struct stall_guard *g = arg;
        uint64_t tag = stall_guard_enter(g, 7);
        pthread_mutex_lock(&st.lock);
        st.inside = true;
        pthread_cond_broadcast(&st.cond);
        while (!st.open)
                pthread_cond_wait(&st.cond, &st.lock);
        pthread_mutex_unlock(&st.lock);
        if (!stall_guard_leave(g, tag)) {
                pthread_mutex_lock(&st.lock);
                st.handed = true;
                pthread_mutex_unlock(&st.lock);
                stall_guard_orphan_exit();
        }
        stall_guard_tick_end(g);
        return (void *)1;
}

static void wait_for(bool *flag)
{
        pthread_mutex_lock(&st.lock);
        while (!*flag)
                pthread_cond_wait(&st.cond, &st.lock);
        pthread_mutex_unlock(&st.lock);
}

static void gate_open(void)
{
        pthread_mutex_lock(&st.lock);
        st.open = true;
        pthread_cond_broadcast(&st.cond);
        pthread_mutex_unlock(&st.lock);
}

/* A guard on ctx (cleared; move: its move_loop, NULL for none), started. */
static struct stall_guard *guard_start(struct vigil_ctx *ctx, void (*move)(struct vigil_ctx *),
                                       void *arg)
{
        struct stall_guard *g = NULL;
        memset(ctx, 0, sizeof(*ctx));
        ctx->move_loop = move;
        assert_int_equal(stall_guard_start(&g, ctx, on_hang, arg), 0);
        return g;
}

/* Every key from 0 to 254 comes back from its tag; a unit that ends is the loop's. */
static void test_tags(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = guard_start(&ctx, NULL, NULL);
        uint64_t last = 0;
        for (unsigned key = 0; key < 255; key++) {
                uint64_t tag = stall_guard_enter(g, key);
                assert_int_equal(stall_guard_key(tag), key);
                assert_true(tag != last); /* a new sequence number each time */
                assert_true(stall_guard_leave(g, tag));
                assert_false(stall_guard_leave(g, tag)); /* taken back already */
                last = tag;
        }
        stall_guard_tick_end(g);
        stall_guard_tick_end(NULL);
        assert_int_equal(stall_guard_moves(g), 0);
        stall_guard_stop(g, false);
        stall_guard_stop(NULL, false);
}

/* A unit stuck until the lease runs out and two looks: on_hang gets its tag and the source's
 * argument, the guard thread moves the loop, and the stuck thread, when its unit
 * returns, finds the tag gone and exits as an orphan. */
static void test_takes_stuck_unit(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        int marker = 0;
        struct stall_guard *g = guard_start(&ctx, loop_move_fn, &marker);
        pthread_t t;
        void *kept = (void *)1;
        int64_t before = now_mono_ns();
        assert_int_equal(pthread_create(&t, NULL, loop_unit, g), 0);
        loop_move_wait();
        assert_int_equal(st.hangs, 1);
        assert_int_equal(stall_guard_key(st.tag), 7);
        assert_ptr_equal(st.arg, &marker);
        assert_true(st.since >= before);
        assert_int_equal(stall_guard_moves(g), 1);
        assert_true(stall_guard_looks(g) >= 2);
        gate_open();
        pthread_join(t, &kept);
        assert_null(kept);
        assert_true(st.handed);
        stall_guard_stop(g, false);
}

/* Outside the daemon (no move_loop) a stuck unit is only watched: it stays the
 * caller's, however long the guard looks. */
static void test_watches_without_move(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = guard_start(&ctx, NULL, NULL);
        pthread_t t;
        void *kept = NULL;
        assert_int_equal(pthread_create(&t, NULL, loop_unit, g), 0);
        wait_for(&st.inside);
        /* Until the guard has looked at the stuck unit twice (30 s at most). */
        struct timespec ts = {0, (long)STALL_GUARD_PERIOD_NS};
        for (int i = 0; i < 300 && stall_guard_looks(g) < 3; i++)
                nanosleep(&ts, NULL);
        assert_true(stall_guard_looks(g) >= 3);
        gate_open();
        pthread_join(t, &kept);
        assert_non_null(kept);
        assert_int_equal(st.hangs, 0);
        assert_false(st.handed);
        assert_int_equal(stall_guard_moves(g), 0);
        stall_guard_stop(g, false);
}

/* Ticks that keep renewing the lease never wake the guard: it sleeps on its timer, not
 * on a period. A tick left running when the timer fires is watched. */
static void test_sleeps_while_ticks_end(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = guard_start(&ctx, NULL, NULL);
        /* A lease no run of ticks here outlasts, however slow the machine (qemu, load):
         * a guard on a period would still look about ten times meanwhile. */
        g->lease_ns = 30LL * 1000 * 1000 * 1000;
        struct timespec gap = {0, 20 * 1000 * 1000};
        for (int tick = 0; tick < 40; tick++) {
                for (unsigned key = 0; key < 4; key++)
                        assert_true(stall_guard_leave(g, stall_guard_enter(g, key)));
                stall_guard_tick_end(g);
                nanosleep(&gap, NULL);
        }
        struct timespec ts = {0, 3 * STALL_GUARD_PERIOD_NS};
        nanosleep(&ts, NULL);
        assert_int_equal(stall_guard_looks(g), 0);
        /* A short lease, due now, and a tick still running when it runs out: the guard
         * looks. */
        g->lease_ns = STALL_GUARD_PERIOD_NS;
        g->renew_at = 0;
        assert_true(stall_guard_leave(g, stall_guard_enter(g, 0)));
        ts.tv_nsec = (long)STALL_GUARD_PERIOD_NS;
        for (int i = 0; i < 300 && stall_guard_looks(g) == 0; i++) /* 30 s at most */
                nanosleep(&ts, NULL);
        assert_true(stall_guard_looks(g) >= 1);
        stall_guard_tick_end(g);
        assert_int_equal(st.hangs, 0);
        stall_guard_stop(g, false);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup(test_tags, setup),
            cmocka_unit_test_setup(test_sleeps_while_ticks_end, setup),
            cmocka_unit_test_setup(test_takes_stuck_unit, setup),
            cmocka_unit_test_setup(test_watches_without_move, setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
