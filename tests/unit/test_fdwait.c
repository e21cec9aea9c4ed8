/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the wait for a deadline or a readable descriptor (util/fdwait.c) on pipes
 * and a regular file: the deadline, readiness (level-triggered), a hang-up dropping the
 * descriptor, a deadline already past, a signal, the deadline alone. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fdwait.h"

#define MS NSEC_PER_MSEC

static void test_deadline_and_ready(void **state)
{
        (void)state;
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        struct fdwait w;
        fdwait_init(&w, p[0]);
        assert_true(w.ep >= 0); /* a pipe is epoll's */
        assert_true(fdwait_watching(&w));
        /* Quiet: the deadline, not before it. */
        int64_t t0 = now_mono_ns();
        assert_int_equal(fdwait_until(&w, t0 + 30 * MS), FDWAIT_DEADLINE);
        assert_true(now_mono_ns() >= t0 + 30 * MS);
        /* Readable: at once, and again while it stays readable. */
        assert_int_equal(write(p[1], "x", 1), 1);
        t0 = now_mono_ns();
        assert_int_equal(fdwait_until(&w, t0 + 5000 * MS), FDWAIT_READY);
        assert_int_equal(fdwait_until(&w, t0 + 5000 * MS), FDWAIT_READY);
        assert_true(now_mono_ns() - t0 < 2000 * MS);
        char c;
        assert_int_equal(read(p[0], &c, 1), 1);
        assert_int_equal(fdwait_until(&w, now_mono_ns() + 10 * MS), FDWAIT_DEADLINE);
        /* A deadline already past: nothing is looked at, even a readable descriptor. */
        assert_int_equal(write(p[1], "y", 1), 1);
        assert_int_equal(fdwait_until(&w, now_mono_ns() - MS), FDWAIT_PASSED);
        assert_int_equal(read(p[0], &c, 1), 1);
        /* The writer gone: a hang-up drops the descriptor; the deadline alone after. */
        close(p[1]);
        assert_int_equal(fdwait_until(&w, now_mono_ns() + 5000 * MS), FDWAIT_PASSED);
        assert_false(fdwait_watching(&w));
        t0 = now_mono_ns();
        assert_int_equal(fdwait_until(&w, t0 + 20 * MS), FDWAIT_PASSED);
        assert_true(now_mono_ns() >= t0 + 20 * MS);
        fdwait_close(&w);
        close(p[0]);
}

/* A regular file cannot be in an epoll set: ppoll(2) takes it, and finds it readable. */
static void test_regular_file(void **state)
{
        (void)state;
        char path[] = "/tmp/test_fdwait.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        unlink(path);
        struct fdwait w;
        fdwait_init(&w, fd);
        assert_int_equal(w.ep, -1);
        assert_int_equal(fdwait_until(&w, now_mono_ns() + 5000 * MS), FDWAIT_READY);
        fdwait_close(&w);
        close(fd);
}

static void on_alarm(int sig)
{
        (void)sig;
}

/* A signal ends the wait, with or without a descriptor. */
static void test_signal(void **state)
{
        (void)state;
        struct sigaction sa = {.sa_handler = on_alarm};
        assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        struct fdwait w[2];
        fdwait_init(&w[0], p[0]);
        fdwait_init(&w[1], -1);
        assert_false(fdwait_watching(&w[1]));
        for (int i = 0; i < 2; i++) {
                struct itimerval it = {.it_value = {.tv_usec = 20000}};
                assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
                assert_int_equal(fdwait_until(&w[i], now_mono_ns() + 5000 * MS), FDWAIT_SIGNAL);
                fdwait_close(&w[i]);
        }
        /* fdwait_drop: the descriptor is not looked at any more. */
        struct fdwait d;
        fdwait_init(&d, p[0]);
        assert_int_equal(write(p[1], "x", 1), 1);
        fdwait_drop(&d);
        assert_int_equal(fdwait_until(&d, now_mono_ns() + 10 * MS), FDWAIT_PASSED);
        fdwait_close(&d);
        close(p[0]);
        close(p[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_deadline_and_ready),
            cmocka_unit_test(test_regular_file),
            cmocka_unit_test(test_signal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
