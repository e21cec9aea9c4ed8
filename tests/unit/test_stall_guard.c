/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the stall guard (core/stall_guard.c) on its own, with a unit of work that
 * blocks at a gate the test opens, so no test depends on how fast anything runs. How
 * the NVML source uses it (a hung GPU job adopted) is tested in test_nvml_worker.c.
 * The guard thread's wake-ups are seen as the kernel counts them: the thread found by
 * its name, the times it was put on a CPU from its schedstat. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
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

static void sleep_ms(long ms)
{
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
        nanosleep(&ts, NULL);
}

/* The threads of this process named STALL_GUARD_THREAD_NAME: how many, and the tid of
 * the last one found. */
static unsigned guard_threads(pid_t *tid)
{
        DIR *dir = opendir("/proc/self/task");
        assert_non_null(dir);
        unsigned n = 0;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
                if (e->d_name[0] == '.')
                        continue;
                char path[300], comm[32] = "";
                snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
                FILE *f = fopen(path, "r");
                if (!f)
                        continue; /* the thread ended meanwhile */
                if (fgets(comm, sizeof(comm), f))
                        comm[strcspn(comm, "\n")] = '\0';
                fclose(f);
                if (strcmp(comm, STALL_GUARD_THREAD_NAME) == 0) {
                        n++;
                        if (tid)
                                *tid = (pid_t)atoi(e->d_name);
                }
        }
        closedir(dir);
        return n;
}

/* The times the thread tid has been put on a CPU: the third field (pcount) of its
 * schedstat (the first two are its time on a CPU and its time waiting for one, ns). */
static unsigned long long thread_runs(pid_t tid)
{
        char path[64];
        unsigned long long runs = 0;
        snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_int_equal(fscanf(f, "%*s %*s %llu", &runs), 1);
        fclose(f);
        return runs;
}

/* 'S' while the thread sleeps (the state field of its stat, after the comm's ')'). */
static char thread_state(pid_t tid)
{
        char path[64], line[256] = "";
        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(line, sizeof(line), f));
        fclose(f);
        char *p = strrchr(line, ')');
        assert_non_null(p);
        return p[2];
}

/* The guard thread, once it has named itself and gone to sleep (30 s at most): its
 * tid. The only thread so named, the test's guards being alive one at a time. */
static pid_t guard_thread(void)
{
        pid_t tid = 0;
        int i = 0;
        for (; i < 1500 && guard_threads(&tid) != 1; i++)
                sleep_ms(20);
        assert_int_equal(guard_threads(&tid), 1);
        /* Asleep: not running, and not put on a CPU again for 20 ms. */
        for (; i < 1500; i++) {
                unsigned long long runs = thread_runs(tid);
                sleep_ms(20);
                if (thread_state(tid) == 'S' && thread_runs(tid) == runs)
                        break;
        }
        assert_true(i < 1500);
        return tid;
}

/* Wait until no guard thread is left (a stopped one is joined, but its task may still
 * show for a moment), 30 s at most, so the next guard's thread is the only one named. */
static void guard_threads_gone(void)
{
        for (int i = 0; i < 1500 && guard_threads(NULL) != 0; i++)
                sleep_ms(20);
        assert_int_equal(guard_threads(NULL), 0);
}

/* Wait until thread tid has been put on a CPU at least n times more than base (30 s
 * at most). */
static void wait_runs(pid_t tid, unsigned long long base, unsigned long long n)
{
        for (int i = 0; i < 300 && thread_runs(tid) - base < n; i++)
                sleep_ms((long)(STALL_GUARD_PERIOD_NS / NSEC_PER_MSEC));
        assert_true(thread_runs(tid) - base >= n);
}

/* A guard on ctx (cleared; move: its move_loop, NULL for none) with a lease of
 * lease_ns, started, its thread asleep; *tid: the thread's (NULL: not wanted). */
static struct stall_guard *guard_start_lease(struct vigil_ctx *ctx,
                                             void (*move)(struct vigil_ctx *), void *arg,
                                             int64_t lease_ns, pid_t *tid)
{
        struct stall_guard *g = NULL;
        memset(ctx, 0, sizeof(*ctx));
        ctx->move_loop = move;
        guard_threads_gone();
        assert_int_equal(stall_guard_start(&g, ctx, lease_ns, on_hang, arg), 0);
        pid_t t = guard_thread();
        if (tid)
                *tid = t;
        return g;
}

/* The same with the daemon's lease. */
static struct stall_guard *guard_start(struct vigil_ctx *ctx, void (*move)(struct vigil_ctx *),
                                       void *arg, pid_t *tid)
{
        return guard_start_lease(ctx, move, arg, STALL_GUARD_LEASE_NS, tid);
}

/* Every key from 0 to 254 comes back from its tag; a unit that ends is the loop's. */
static void test_tags(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        struct stall_guard *g = guard_start(&ctx, NULL, NULL, NULL);
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
 * returns, finds the tag gone and exits as an orphan. The guard thread started by the
 * move is named as the first was. */
static void test_takes_stuck_unit(void **state)
{
        (void)state;
        struct vigil_ctx ctx;
        int marker = 0;
        pid_t first = 0;
        struct stall_guard *g = guard_start(&ctx, loop_move_fn, &marker, &first);
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
        /* The moved thread took back the loop's name before the new guard started. */
        assert_true(guard_thread() != first);
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
        pid_t tid = 0;
        struct stall_guard *g = guard_start(&ctx, NULL, NULL, &tid);
        pthread_t t;
        void *kept = NULL;
        assert_int_equal(pthread_create(&t, NULL, loop_unit, g), 0);
        wait_for(&st.inside);
        /* Until the guard has woken three times since the unit got stuck (its timer, then
         * a look a period), 30 s at most. */
        wait_runs(tid, thread_runs(tid), 3);
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
        pid_t tid = 0;
        /* A lease no run of ticks here outlasts, however slow the machine (qemu, load):
         * a guard on a period would still wake about ten times meanwhile. */
        struct stall_guard *g = guard_start_lease(&ctx, NULL, NULL, 30 * NSEC_PER_SEC, &tid);
        unsigned long long base = thread_runs(tid);
        for (int tick = 0; tick < 40; tick++) {
                for (unsigned key = 0; key < 4; key++)
                        assert_true(stall_guard_leave(g, stall_guard_enter(g, key)));
                stall_guard_tick_end(g);
                sleep_ms(20);
        }
        sleep_ms(3 * (long)(STALL_GUARD_PERIOD_NS / NSEC_PER_MSEC));
        assert_int_equal(thread_runs(tid) - base, 0);
        stall_guard_stop(g, false);
        /* A short lease, and a tick still running when it runs out: the guard wakes to
         * watch it. */
        g = guard_start_lease(&ctx, NULL, NULL, STALL_GUARD_PERIOD_NS, &tid);
        base = thread_runs(tid);
        assert_true(stall_guard_leave(g, stall_guard_enter(g, 0)));
        wait_runs(tid, base, 1);
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
