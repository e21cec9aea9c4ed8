/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: running external programs for snapshots (util/spawn.c). No test
 * asserts a duration; the timeout test only checks that the child was killed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/spawn.h"

#define SEC NSEC_PER_SEC

struct buf {
        struct strbuf sb;
};

static int setup(void **state)
{
        struct buf *b = calloc(1, sizeof(*b));
        if (!b || sb_init_heap(&b->sb, 256, 4 * 1024 * 1024) < 0)
                return -1;
        *state = b;
        return 0;
}

static int teardown(void **state)
{
        struct buf *b = *state;
        sb_free(&b->sb);
        free(b);
        return 0;
}

/* No child of ours is left, running or zombie. */
static void assert_no_children(void)
{
        int status;
        assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

static void test_echo(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        const char *argv[] = {"/bin/echo", "hello", "world", NULL};
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, &res), 0);
        assert_string_equal(out->buf, "hello world\n");
        assert_int_equal(res.exit_status, 0);
        assert_int_equal(res.term_signal, 0);
        assert_false(res.timed_out);
        assert_false(res.truncated);
        assert_false(res.not_found);
        assert_int_equal(res.unreaped, 0);
        assert_no_children();
}

static void test_stderr_and_status(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        /* No shell is involved: the script is an argument of sh, nothing is expanded by us. */
        const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, &res), 0);
        assert_string_equal(out->buf, "out\nerr\n");
        assert_int_equal(res.exit_status, 3);
        sb_reset(out);
        /* Arguments with shell characters reach the program unchanged. */
        const char *lit[] = {"/bin/echo", "$HOME", "a;b", "`x`", NULL};
        assert_int_equal(spawn_capture(lit, 5 * SEC, 0, out, NULL), 0);
        assert_string_equal(out->buf, "$HOME a;b `x`\n");
        assert_no_children();
}

static void test_stdin_is_null(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        const char *argv[] = {"cat", NULL};
        /* cat reads stdin: /dev/null, so it ends at once with nothing. */
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, NULL), 0);
        assert_string_equal(out->buf, "");
        assert_no_children();
}

/* True when text has a line that is exactly line. */
static bool has_line(const char *text, const char *line)
{
        size_t n = strlen(line);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static void test_fds_not_inherited(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 50);
        assert_int_equal(high, 50);
        /* The child lists its open fds: 0, 1, 2 are there, vigil's fd 50 is not. */
        const char *argv[] = {"ls", "/proc/self/fd", NULL};
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, NULL), 0);
        assert_true(has_line(out->buf, "0") && has_line(out->buf, "1") && has_line(out->buf, "2"));
        assert_false(has_line(out->buf, "50"));
        close(high);
        close(fd);
        assert_no_children();
}

static void test_timeout(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        const char *argv[] = {"/bin/sleep", "30", NULL};
        assert_int_equal(spawn_capture(argv, SEC / 5, 0, out, &res), -ETIMEDOUT);
        assert_string_equal(out->buf, "(timed out after 0.2s: /bin/sleep 30)\n");
        assert_true(res.timed_out);
        assert_int_equal(res.term_signal, SIGKILL);
        assert_int_equal(res.exit_status, -1);
        assert_int_equal(res.unreaped, 0);
        assert_no_children();
}

static void test_timeout_kills_group(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        /* The shell prints, then waits on a child of its own: both are killed. */
        const char *argv[] = {"sh", "-c", "echo started; sleep 30; echo never", NULL};
        assert_int_equal(spawn_capture(argv, 1 * SEC, 0, out, &res), -ETIMEDOUT);
        assert_string_equal(out->buf,
                            "started\n(timed out after 1s: sh -c echo started; sleep 30; echo "
                            "never)\n");
        assert_no_children();
}

static void test_missing_program(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        const char *argv[] = {"vigil-no-such-program", "-x", NULL};
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, &res), -ENOENT);
        assert_string_equal(out->buf, "(not available: vigil-no-such-program)\n");
        assert_true(res.not_found);
        sb_reset(out);
        const char *abs[] = {"/nonexistent/lspci", NULL};
        assert_int_equal(spawn_capture(abs, 5 * SEC, 0, out, NULL), -ENOENT);
        assert_string_equal(out->buf, "(not available: /nonexistent/lspci)\n");
        /* A failed exec reported the other way POSIX allows, a silent exit 127 (qemu-user
         * cannot return the error from the child), is not found too. */
        sb_reset(out);
        const char *silent[] = {"sh", "-c", "exit 127", NULL};
        assert_int_equal(spawn_capture(silent, 5 * SEC, 0, out, &res), -ENOENT);
        assert_true(res.not_found);
        assert_string_equal(out->buf, "(not available: sh)\n");
        /* A program that says something and exits 127 ran: its words are the evidence. */
        sb_reset(out);
        const char *says[] = {"sh", "-c", "echo missing; exit 127", NULL};
        assert_int_equal(spawn_capture(says, 5 * SEC, 0, out, &res), 0);
        assert_false(res.not_found);
        assert_int_equal(res.exit_status, 127);
        assert_string_equal(out->buf, "missing\n");
        assert_no_children();
}

static void test_big_output(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        const char *argv[] = {"head", "-c", "1000000", "/dev/zero", NULL};
        assert_int_equal(spawn_capture(argv, 10 * SEC, 0, out, &res), 0);
        assert_true(res.truncated);
        assert_int_equal(res.exit_status, 0);
        const char *tail = "\n(output truncated)\n";
        assert_int_equal(out->len, SPAWN_DEFAULT_MAX_OUTPUT + strlen(tail));
        /* NUL bytes are kept readable. */
        assert_int_equal(out->buf[0], '?');
        assert_int_equal(out->buf[SPAWN_DEFAULT_MAX_OUTPUT - 1], '?');
        assert_string_equal(out->buf + SPAWN_DEFAULT_MAX_OUTPUT, tail);
        sb_reset(out);
        /* A smaller bound, and output that ends with a newline. */
        const char *seq[] = {"seq", "1", "100000", NULL};
        assert_int_equal(spawn_capture(seq, 10 * SEC, 10, out, &res), 0);
        assert_string_equal(out->buf, "1\n2\n3\n4\n5\n(output truncated)\n");
        assert_no_children();
}

static void test_killed_by_signal(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        const char *argv[] = {"sh", "-c", "echo bye; kill -TERM $$", NULL};
        assert_int_equal(spawn_capture(argv, 5 * SEC, 0, out, &res), 0);
        assert_string_equal(out->buf, "bye\n(killed by signal 15)\n");
        assert_int_equal(res.term_signal, SIGTERM);
        assert_false(res.timed_out);
        assert_no_children();
}

static void test_closed_output_still_running(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        struct spawn_result res;
        /* Closes its output, then runs on: the limit still applies. */
        const char *argv[] = {"sh", "-c", "echo x; exec >&- 2>&-; sleep 30", NULL};
        assert_int_equal(spawn_capture(argv, SEC / 2, 0, out, &res), -ETIMEDOUT);
        assert_string_equal(out->buf, "x\n(timed out after 0.5s: sh -c echo x; exec >&- 2>&-; "
                                      "sleep 30)\n");
        assert_no_children();
}

static void test_bad_args(void **state)
{
        struct strbuf *out = &((struct buf *)*state)->sb;
        const char *none[] = {NULL};
        assert_int_equal(spawn_capture(none, SEC, 0, out, NULL), -EINVAL);
        assert_int_equal(spawn_capture(NULL, SEC, 0, out, NULL), -EINVAL);
        assert_string_equal(out->buf, "");
        assert_true(spawn_reap(0));
        assert_true(spawn_reap(999999999)); /* not our child */
}

static int reset(void **state)
{
        sb_reset(&((struct buf *)*state)->sb);
        return 0;
}

int main(void)
{
        /* The daemon ignores SIGPIPE and blocks signals in threads; the child must
         * still get default dispositions. */
        signal(SIGPIPE, SIG_IGN);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup(test_echo, reset),
            cmocka_unit_test_setup(test_stderr_and_status, reset),
            cmocka_unit_test_setup(test_stdin_is_null, reset),
            cmocka_unit_test_setup(test_fds_not_inherited, reset),
            cmocka_unit_test_setup(test_timeout, reset),
            cmocka_unit_test_setup(test_timeout_kills_group, reset),
            cmocka_unit_test_setup(test_missing_program, reset),
            cmocka_unit_test_setup(test_big_output, reset),
            cmocka_unit_test_setup(test_killed_by_signal, reset),
            cmocka_unit_test_setup(test_closed_output_still_running, reset),
            cmocka_unit_test_setup(test_bad_args, reset),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
