/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the service-manager notification (util/notify.c) against datagram
 * sockets bound here, by path and by abstract name; the watchdog variables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/notify.h"

/* A datagram socket bound at addr (len bytes), with a receive timeout so a missing
 * datagram fails the test instead of hanging it. */
static int bind_dgram(const struct sockaddr_un *addr, socklen_t len)
{
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        struct timeval tv = {.tv_sec = 5};
        assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
        assert_int_equal(bind(fd, (const struct sockaddr *)addr, len), 0);
        return fd;
}

/* Receive one datagram into buf (NUL-terminated); its length. */
static ssize_t recv_one(int fd, char *buf, size_t cap)
{
        ssize_t n = recv(fd, buf, cap - 1, 0);
        assert_true(n >= 0);
        buf[n] = '\0';
        return n;
}

static void test_path_socket(void **state)
{
        (void)state;
        char dir[] = "/tmp/vigil-notify-XXXXXX";
        assert_non_null(mkdtemp(dir));
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/notify", dir);
        int fd = bind_dgram(&addr, sizeof(addr));
        assert_int_equal(setenv("NOTIFY_SOCKET", addr.sun_path, 1), 0);

        char buf[128];
        assert_int_equal(notify_send("READY=1"), 1);
        assert_int_equal(recv_one(fd, buf, sizeof(buf)), 7);
        assert_string_equal(buf, "READY=1");
        /* Several assignments in one datagram, as sent. */
        assert_int_equal(notify_send("STOPPING=1\nSTATUS=bye"), 1);
        assert_int_equal(recv_one(fd, buf, sizeof(buf)), 21);
        assert_string_equal(buf, "STOPPING=1\nSTATUS=bye");
        /* The variable stays for the next call. */
        assert_string_equal(getenv("NOTIFY_SOCKET"), addr.sun_path);

        close(fd);
        unlink(addr.sun_path);
        rmdir(dir);
        /* Nobody listening any more: the error, not a crash. */
        assert_int_equal(notify_send("WATCHDOG=1"), -ENOENT);
        unsetenv("NOTIFY_SOCKET");
}

static void test_abstract_socket(void **state)
{
        (void)state;
        char name[64];
        int n = snprintf(name, sizeof(name), "@vigil-notify-test-%d", (int)getpid());
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        memcpy(addr.sun_path + 1, name + 1, (size_t)n - 1); /* sun_path[0] stays NUL */
        int fd = bind_dgram(&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n));
        assert_int_equal(setenv("NOTIFY_SOCKET", name, 1), 0);

        char buf[128];
        assert_int_equal(notify_send("WATCHDOG=1"), 1);
        assert_int_equal(recv_one(fd, buf, sizeof(buf)), 10);
        assert_string_equal(buf, "WATCHDOG=1");
        close(fd);
        unsetenv("NOTIFY_SOCKET");
}

static void test_unset_and_bad(void **state)
{
        (void)state;
        unsetenv("NOTIFY_SOCKET");
        assert_int_equal(notify_send("READY=1"), 0);
        assert_int_equal(setenv("NOTIFY_SOCKET", "", 1), 0);
        assert_int_equal(notify_send("READY=1"), 0);
        assert_int_equal(setenv("NOTIFY_SOCKET", "vsock:2:1234", 1), 0);
        assert_int_equal(notify_send("READY=1"), -EAFNOSUPPORT);
        char longname[200];
        memset(longname, 'x', sizeof(longname) - 1);
        longname[0] = '/';
        longname[sizeof(longname) - 1] = '\0';
        assert_int_equal(setenv("NOTIFY_SOCKET", longname, 1), 0);
        assert_int_equal(notify_send("READY=1"), -ENAMETOOLONG);
        unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog(void **state)
{
        (void)state;
        char pid[32];
        snprintf(pid, sizeof(pid), "%d", (int)getpid());
        unsetenv("WATCHDOG_USEC");
        unsetenv("WATCHDOG_PID");
        assert_int_equal(notify_watchdog_ns(), 0);
        setenv("WATCHDOG_USEC", "30000000", 1);
        assert_int_equal(notify_watchdog_ns(), 30000000000LL);
        setenv("WATCHDOG_PID", pid, 1);
        assert_int_equal(notify_watchdog_ns(), 30000000000LL);
        /* Meant for another process (the variables were inherited). */
        setenv("WATCHDOG_PID", "1", 1);
        assert_int_equal(notify_watchdog_ns(), 0);
        setenv("WATCHDOG_PID", "12x", 1);
        assert_int_equal(notify_watchdog_ns(), 0);
        setenv("WATCHDOG_PID", pid, 1);
        setenv("WATCHDOG_USEC", "0", 1);
        assert_int_equal(notify_watchdog_ns(), 0);
        setenv("WATCHDOG_USEC", "-5", 1);
        assert_int_equal(notify_watchdog_ns(), 0);
        setenv("WATCHDOG_USEC", "99999999999999999999", 1);
        assert_int_equal(notify_watchdog_ns(), 0);
        unsetenv("WATCHDOG_USEC");
        unsetenv("WATCHDOG_PID");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_path_socket),
            cmocka_unit_test(test_abstract_socket),
            cmocka_unit_test(test_unset_and_bad),
            cmocka_unit_test(test_watchdog),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
