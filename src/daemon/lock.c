/* SPDX-License-Identifier: Apache-2.0 */
/* Instance lock file. See lock.h. */
#include "daemon/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/parse.h"

static int read_pid(int fd, pid_t *ret)
{
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        uint64_t v;
        if (n <= 0 || parse_u64(buf, (size_t)n, &v) < 0 || v == 0 || v > 4194304)
                return -ENOENT;
        *ret = (pid_t)v;
        return 0;
}

int lock_acquire(const char *dir, pid_t *ret_owner)
{
        char path[1100];
        snprintf(path, sizeof(path), "%s/vigil.pid", dir);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;
                pid_t owner = 0;
                read_pid(fd, &owner);
                close(fd);
                if (ret_owner)
                        *ret_owner = owner;
                return e == EWOULDBLOCK ? -EWOULDBLOCK : -e;
        }
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
        if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
                int e = errno ? errno : EIO;
                close(fd);
                return -e;
        }
        return fd;
}

int lock_owner(const char *dir, pid_t *ret_pid)
{
        char path[1100];
        snprintf(path, sizeof(path), "%s/vigil.pid", dir);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        /* A lock we can take is a lock nobody holds. */
        if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
                close(fd);
                return -ESRCH;
        }
        int r = read_pid(fd, ret_pid);
        close(fd);
        return r < 0 ? -ESRCH : 0;
}
