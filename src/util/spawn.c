/* SPDX-License-Identifier: Apache-2.0 */
/* External programs for snapshots. See spawn.h. */
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

extern char **environ;

#define SLICE_MS 50 /* how often a child with closed output is checked for exit */

/* "lspci -vvs 0000:01:00.0", cut at cap. */
static void join_argv(const char *const argv[], char *out, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        for (size_t i = 0; argv[i] && i < 16; i++) {
                if (i)
                        sb_putc(&sb, ' ');
                sb_puts(&sb, argv[i]);
        }
}

/* A note on a line of its own after the output. */
static void note(struct strbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct strbuf *out, const char *fmt, ...)
{
        char line[512];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if (out->len > 0 && out->buf[out->len - 1] != '\n')
                sb_putc(out, '\n');
        sb_puts(out, line);
}

/* "5s", "0.5s": the limit as a person reads it. */
static void fmt_seconds(char *out, size_t cap, int64_t ns)
{
        if (ns % NSEC_PER_SEC == 0)
                snprintf(out, cap, "%llds", (long long)(ns / NSEC_PER_SEC));
        else
                snprintf(out, cap, "%gs", (double)ns / 1e9);
}

static int start(const char *const argv[], int wfd, pid_t *ret_pid)
{
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        int r = posix_spawn_file_actions_init(&fa);
        if (r)
                return -r;
        r = posix_spawnattr_init(&attr);
        if (r) {
                posix_spawn_file_actions_destroy(&fa);
                return -r;
        }
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, wfd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, wfd, STDERR_FILENO);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                            POSIX_SPAWN_SETPGROUP);
        r = posix_spawnp(ret_pid, argv[0], &fa, &attr, (char *const *)argv, environ);
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

/* Append a chunk of output, within the bound. */
static void keep(struct strbuf *out, const char *buf, size_t n, size_t *kept, size_t max,
                 struct spawn_result *res)
{
        size_t take = n;
        if (*kept + take > max) {
                take = max - *kept;
                res->truncated = true;
        }
        for (size_t i = 0; i < take; i++)
                sb_putc(out, buf[i] ? buf[i] : '?');
        *kept += take;
}

/* Read until EOF, the child's exit, or the deadline. True when the deadline hit. */
static bool collect(int rfd, pid_t pid, int64_t deadline, struct strbuf *out, size_t max,
                    struct spawn_result *res, int *status, bool *reaped)
{
        char buf[4096];
        size_t kept = 0;
        for (;;) {
                int64_t left = deadline - now_mono_ns();
                if (left <= 0)
                        return true;
                int ms = (int)(left / NSEC_PER_MSEC) + 1;
                struct pollfd p = {.fd = rfd, .events = POLLIN};
                int pr = poll(&p, 1, ms < SLICE_MS ? ms : SLICE_MS);
                if (pr < 0 && errno != EINTR)
                        return false;
                if (pr > 0) {
                        ssize_t n = read(rfd, buf, sizeof(buf));
                        if (n > 0) {
                                keep(out, buf, (size_t)n, &kept, max, res);
                                continue;
                        }
                        if (n == 0 || (errno != EINTR && errno != EAGAIN))
                                return false; /* EOF: every writer has closed the pipe */
                        continue;
                }
                /* Nothing to read: the child may have exited while a grandchild holds
                 * the pipe. Then what is buffered is all we wait for. */
                if (!*reaped && waitpid(pid, status, WNOHANG) == pid) {
                        *reaped = true;
                        return false;
                }
        }
}

/* Wait for the child to exit by the deadline; SIGKILL it (and its group) past it. */
static void finish(pid_t pid, int64_t deadline, bool kill_now, int *status, bool *reaped,
                   struct spawn_result *res)
{
        while (!*reaped && !kill_now) {
                pid_t w = waitpid(pid, status, WNOHANG);
                if (w == pid || (w < 0 && errno != EINTR)) {
                        *reaped = w == pid;
                        return;
                }
                if (now_mono_ns() >= deadline) {
                        kill_now = true;
                        break;
                }
                struct timespec ts = {0, 2 * NSEC_PER_MSEC};
                nanosleep(&ts, NULL);
        }
        if (*reaped)
                return;
        res->timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        int64_t grace = now_mono_ns() + SPAWN_KILL_GRACE_NS;
        while (now_mono_ns() < grace) {
                pid_t w = waitpid(pid, status, WNOHANG);
                if (w == pid || (w < 0 && errno != EINTR)) {
                        *reaped = w == pid;
                        return;
                }
                struct timespec ts = {0, 1 * NSEC_PER_MSEC};
                nanosleep(&ts, NULL);
        }
        res->unreaped = pid;
}

static void describe_end(struct spawn_result *res, int status, bool reaped)
{
        if (!reaped)
                return;
        if (WIFEXITED(status))
                res->exit_status = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
                res->term_signal = WTERMSIG(status);
}

int spawn_capture(const char *const argv[], int64_t timeout_ns, size_t max_output,
                  struct strbuf *out, struct spawn_result *ret)
{
        struct spawn_result res = {.exit_status = -1};
        char cmd[256], limit[32];
        int fds[2], status = 0;
        bool reaped = false;
        pid_t pid;
        if (!argv || !argv[0])
                return -EINVAL;
        join_argv(argv, cmd, sizeof(cmd));
        if (pipe2(fds, O_CLOEXEC) < 0) {
                int e = errno;
                note(out, "(failed: %s: %s)\n", argv[0], strerror(e));
                return -e;
        }
        int64_t deadline = now_mono_ns() + timeout_ns;
        int r = start(argv, fds[1], &pid);
        close(fds[1]);
        if (r < 0) {
                close(fds[0]);
                res.not_found = r == -ENOENT;
                if (res.not_found)
                        note(out, "(not available: %s)\n", argv[0]);
                else
                        note(out, "(failed: %s: %s)\n", argv[0], strerror(-r));
                if (ret)
                        *ret = res;
                return r;
        }
        size_t len_before = out->len;
        bool late =
            collect(fds[0], pid, deadline, out, max_output ? max_output : SPAWN_DEFAULT_MAX_OUTPUT,
                    &res, &status, &reaped);
        close(fds[0]);
        finish(pid, deadline, late, &status, &reaped, &res);
        describe_end(&res, status, reaped);
        /* POSIX lets posix_spawn report a failed exec either by its return value or by the
         * child exiting 127; glibc returns the error, but only where the child shares the
         * parent's memory until exec (not under qemu-user, which emulates vfork by fork). */
        if (res.exit_status == 127 && out->len == len_before) {
                res.not_found = true;
                note(out, "(not available: %s)\n", argv[0]);
                if (ret)
                        *ret = res;
                return -ENOENT;
        }
        if (res.truncated)
                note(out, "(output truncated)\n");
        fmt_seconds(limit, sizeof(limit), timeout_ns);
        if (res.timed_out)
                note(out, "(timed out after %s: %s)\n", limit, cmd);
        else if (res.term_signal)
                note(out, "(killed by signal %d)\n", res.term_signal);
        if (ret)
                *ret = res;
        return res.timed_out ? -ETIMEDOUT : 0;
}

bool spawn_reap(pid_t pid)
{
        int status;
        if (pid <= 0)
                return true;
        pid_t w = waitpid(pid, &status, WNOHANG);
        return w == pid || (w < 0 && errno == ECHILD);
}
