/* SPDX-License-Identifier: Apache-2.0 */
/* vcgencmd answers and a bounded runner for it. See rpi_vcgencmd.h.
 *
 *   temp=47.2'C  frequency(48)=1500000000  volt=0.8563V  throttled=0x50000 */
#include "collect/rpi_vcgencmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/parse.h"
#include "util/hot.h"

extern char **environ;

/* True when only blanks and line ends remain. */
static bool at_end(struct cursor *c)
{
        cur_skip_space(c);
        return cur_eof(c);
}

VIGIL_HOT int vcgencmd_parse_temp(const char *s, size_t n, double *ret_c)
{
        struct cursor c = cur_make(s, n);
        double v;
        cur_skip_space(&c);
        if (!cur_lit(&c, "temp=") || cur_double(&c, &v) < 0 || !cur_lit(&c, "'C") || !at_end(&c))
                return -EINVAL;
        *ret_c = v;
        return 0;
}

VIGIL_HOT int vcgencmd_parse_freq(const char *s, size_t n, double *ret_hz)
{
        struct cursor c = cur_make(s, n);
        uint64_t id, hz;
        cur_skip_space(&c);
        if (!cur_lit(&c, "frequency(") || cur_u64(&c, &id) < 0 || !cur_lit(&c, ")=") ||
            cur_u64(&c, &hz) < 0 || !at_end(&c))
                return -EINVAL;
        *ret_hz = (double)hz;
        return 0;
}

VIGIL_HOT int vcgencmd_parse_volt(const char *s, size_t n, double *ret_v)
{
        struct cursor c = cur_make(s, n);
        double v;
        cur_skip_space(&c);
        if (!cur_lit(&c, "volt=") || cur_double(&c, &v) < 0 || !cur_lit(&c, "V") || !at_end(&c))
                return -EINVAL;
        *ret_v = v;
        return 0;
}

VIGIL_HOT int vcgencmd_parse_throttled(const char *s, size_t n, uint32_t *ret)
{
        struct cursor c = cur_make(s, n);
        uint64_t v;
        cur_skip_space(&c);
        if (!cur_lit(&c, "throttled=") || !cur_lit(&c, "0x") || cur_hex(&c, &v) < 0 ||
            v > UINT32_MAX || !at_end(&c))
                return -EINVAL;
        *ret = (uint32_t)v;
        return 0;
}

/* The child: stdout to the pipe, stdin/stderr to /dev/null, default signal
 * dispositions and an empty mask (the daemon blocks some signals in its threads). */
static int spawn_child(const char *prog, const char *const *argv, int out_fd, pid_t *ret_pid)
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
        r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (!r)
                r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
        if (!r)
                r = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        if (!r)
                r = posix_spawnattr_setsigmask(&attr, &none);
        if (!r)
                r = posix_spawnattr_setsigdefault(&attr, &all);
        if (!r)
                r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        if (!r)
                r = posix_spawnp(ret_pid, prog, &fa, &attr, (char *const *)argv, environ);
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

/* Read the child's stdout until EOF, the deadline or the bound. 0 at EOF,
 * -ETIMEDOUT, -EMSGSIZE or -errno. *len is what was kept. */
static int drain(int fd, char *out, size_t cap, size_t *len, int64_t deadline_ns)
{
        for (;;) {
                int64_t left_ms = (deadline_ns - now_mono_ns()) / NSEC_PER_MSEC;
                if (left_ms <= 0)
                        return -ETIMEDOUT;
                struct pollfd p = {.fd = fd, .events = POLLIN};
                int pr = poll(&p, 1, (int)left_ms);
                if (pr < 0 && errno != EINTR)
                        return -errno;
                if (pr <= 0)
                        continue;
                char scratch[1];
                bool full = *len >= cap - 1;
                ssize_t n = full ? read(fd, scratch, 1) : read(fd, out + *len, cap - 1 - *len);
                if (full && n > 0)
                        return -EMSGSIZE;
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (n == 0)
                        return 0;
                if (n > 0)
                        *len += (size_t)n;
        }
}

/* 0 for exit status 0; -ENOENT for 127, which is how a spawn whose exec failed ends
 * where posix_spawnp cannot report it directly (e.g. under qemu-user); else -EPROTO. */
static int exit_code(int status)
{
        if (!WIFEXITED(status))
                return -EPROTO;
        if (WEXITSTATUS(status) == 127)
                return -ENOENT;
        return WEXITSTATUS(status) == 0 ? 0 : -EPROTO;
}

/* Reap the child, waiting at most until the deadline; kill it past that. */
static int reap(pid_t pid, int64_t deadline_ns, bool kill_now)
{
        int status = 0;
        while (!kill_now) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        return exit_code(status);
                if (w < 0 && errno != EINTR)
                        return -errno;
                if (now_mono_ns() >= deadline_ns)
                        break;
                struct timespec ts = {0, 2 * NSEC_PER_MSEC};
                nanosleep(&ts, NULL);
        }
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return -ETIMEDOUT;
}

int vcgencmd_run(const char *prog, const char *const *argv, char *out, size_t cap, int timeout_ms)
{
        if (cap < 2)
                return -EINVAL;
        out[0] = '\0';
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        int64_t deadline = now_mono_ns() + (int64_t)timeout_ms * NSEC_PER_MSEC;
        pid_t pid;
        int r = spawn_child(prog, argv, fds[1], &pid);
        close(fds[1]);
        if (r < 0) {
                close(fds[0]);
                return r;
        }
        size_t len = 0;
        int dr = drain(fds[0], out, cap, &len, deadline);
        close(fds[0]);
        out[len] = '\0';
        int wr = reap(pid, deadline, dr < 0);
        if (dr < 0)
                return dr;
        if (wr < 0)
                return wr;
        return (int)len;
}
