/* SPDX-License-Identifier: Apache-2.0 */
/* Kept-open files re-read with pread. See pfile.h. */
#include "util/pfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hot.h"

VIGIL_HOT int path_join(char *out, size_t cap, const char *root, const char *path)
{
        size_t rl = root ? strlen(root) : 0;
        while (rl > 0 && root[rl - 1] == '/')
                rl--;
        size_t pl = strlen(path);
        if (rl + pl + 1 > cap)
                return -ENAMETOOLONG;
        if (rl)
                memcpy(out, root, rl);
        memcpy(out + rl, path, pl + 1);
        return 0;
}

VIGIL_HOT bool pfile_is_open(const struct pfile *f)
{
        return f->fd >= 0;
}

int pfile_open(struct pfile *f, const char *root, const char *path, size_t cap)
{
        f->fd = -1;
        f->buf = NULL;
        f->len = 0;
        f->cap = 0;
        f->truncated = false;
        if (cap < 2)
                return -EINVAL;
        int r = path_join(f->path, sizeof(f->path), root, path);
        if (r < 0)
                return r;
        /* O_NONBLOCK: a FIFO planted in a hostile tree must not block the open. */
        int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        f->buf = malloc(cap);
        if (!f->buf) {
                close(fd);
                return -ENOMEM;
        }
        f->fd = fd;
        f->cap = cap;
        f->buf[0] = '\0';
        return 0;
}

VIGIL_HOT int pfile_read(struct pfile *f)
{
        if (f->fd < 0)
                return -EBADF;
        size_t got = 0;
        f->truncated = false;
        /* procfs may return a file in several chunks; read until EOF or the bound. */
        while (got < f->cap - 1) {
                ssize_t n = pread(f->fd, f->buf + got, f->cap - 1 - got, (off_t)got);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        f->buf[0] = '\0';
                        f->len = 0;
                        return -errno;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        if (got == f->cap - 1)
                f->truncated = true;
        f->buf[got] = '\0';
        f->len = got;
        return (int)got;
}

void pfile_close(struct pfile *f)
{
        if (!f)
                return;
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -1;
        free(f->buf);
        f->buf = NULL;
        f->len = 0;
}

VIGIL_HOT int read_file_at(const char *root, const char *path, char *buf, size_t cap)
{
        char full[4096];
        if (cap < 2)
                return -EINVAL;
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;
        int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        size_t got = 0;
        while (got < cap - 1) {
                ssize_t n = read(fd, buf + got, cap - 1 - got);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        close(fd);
                        buf[0] = '\0';
                        return r;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        close(fd);
        buf[got] = '\0';
        return (int)got;
}

VIGIL_HOT int read_line_at(const char *root, const char *path, char *buf, size_t cap)
{
        int n = read_file_at(root, path, buf, cap);
        if (n < 0)
                return n;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r' ||
                         buf[n - 1] == '\t'))
                buf[--n] = '\0';
        return n;
}

int write_file_atomic(const char *dir, const char *name, const void *buf, size_t len)
{
        char tmp[4200], path[4200];
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= sizeof(tmp) ||
            (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                return -ENAMETOOLONG;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        ssize_t w = write(fd, buf, len);
        int r = w == (ssize_t)len ? 0 : (w < 0 ? -errno : -EIO);
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return r;
        }
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
        }
        return 0;
}
