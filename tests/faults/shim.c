/* SPDX-License-Identifier: Apache-2.0 */
/* LD_PRELOAD shim for the fault tests: write(2) to a file whose path contains
 * $FAULT_MATCH fails with EIO on every $FAULT_EIO_EVERY-th such call while the file
 * $FAULT_SWITCH exists; fdatasync/fsync calls on matching files and injected failures
 * are appended to $FAULT_LOG as "fdatasync PATH" / "eio PATH" lines. With
 * $FAULT_SYNC_EIO set, fdatasync/fsync on matching files fail with EIO instead while
 * $FAULT_SWITCH exists ("synceio PATH" lines): a disk whose write-back fails. With
 * $FAULT_NO_CACHESTAT set, syscall(SYS_cachestat) fails with ENOSYS: a kernel before
 * Linux 6.5. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long calls;

static int fd_path(int fd, char *out, size_t cap)
{
        char link[64];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, out, cap - 1);
        if (n < 0)
                return -1;
        out[n] = '\0';
        return 0;
}

static int matches(int fd, char *path, size_t cap)
{
        const char *m = getenv("FAULT_MATCH");
        return m && *m && fd_path(fd, path, cap) == 0 && strstr(path, m);
}

static void note(const char *what, const char *path)
{
        const char *logp = getenv("FAULT_LOG");
        if (!logp)
                return;
        char line[4200];
        int n = snprintf(line, sizeof(line), "%s %s\n", what, path);
        int fd = (int)syscall(SYS_openat, AT_FDCWD, logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                              0644);
        if (fd < 0)
                return;
        syscall(SYS_write, fd, line, (size_t)n);
        syscall(SYS_close, fd);
}

ssize_t write(int fd, const void *buf, size_t len)
{
        char path[4096];
        const char *every = getenv("FAULT_EIO_EVERY");
        const char *sw = getenv("FAULT_SWITCH");
        if (every && sw && access(sw, F_OK) == 0 && matches(fd, path, sizeof(path)) &&
            ++calls % strtoul(every, NULL, 10) == 0) {
                note("eio", path);
                errno = EIO;
                return -1;
        }
        return syscall(SYS_write, fd, buf, len);
}

static int count_sync(int fd, long nr)
{
        char path[4096];
        if (!matches(fd, path, sizeof(path)))
                return (int)syscall(nr, fd);
        const char *sw = getenv("FAULT_SWITCH");
        if (getenv("FAULT_SYNC_EIO") && sw && access(sw, F_OK) == 0) {
                note("synceio", path);
                errno = EIO;
                return -1;
        }
        note(nr == SYS_fsync ? "fsync" : "fdatasync", path);
        return (int)syscall(nr, fd);
}

int fdatasync(int fd)
{
        return count_sync(fd, SYS_fdatasync);
}

int fsync(int fd)
{
        return count_sync(fd, SYS_fsync);
}

/* cachestat(2) is 451 on every architecture (util/cachestat.h); the rest are passed on
 * with six arguments, as many as any system call takes. */
long syscall(long nr, ...)
{
        va_list ap;
        va_start(ap, nr);
        long a[6];
        for (int i = 0; i < 6; i++)
                a[i] = va_arg(ap, long);
        va_end(ap);
        if (nr == 451 && getenv("FAULT_NO_CACHESTAT")) {
                errno = ENOSYS;
                return -1;
        }
        static long (*real)(long, ...);
        if (!real)
                real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
        return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
