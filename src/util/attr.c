/* SPDX-License-Identifier: Apache-2.0 */
/* Kept-open small files read with one pread. See attr.h. */
#include "util/attr.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/hot.h"

int attr_open(const char *root, const char *path)
{
        char full[4096];
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;
        int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        return fd < 0 ? -errno : fd;
}

VIGIL_HOT int attr_read(int fd, char *buf, size_t cap)
{
        if (cap < 2)
                return -EINVAL;
        buf[0] = '\0';
        if (fd < 0)
                return -EBADF;
        ssize_t n;
        do {
                n = pread(fd, buf, cap - 1, 0);
        } while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return (int)n;
}

VIGIL_HOT int pfile_read_once(struct pfile *f)
{
        f->len = 0;
        f->truncated = false;
        if (f->fd < 0 || !f->buf)
                return -EBADF;
        int n = attr_read(f->fd, f->buf, f->cap);
        if (n < 0)
                return n;
        f->len = (size_t)n;
        f->truncated = (size_t)n == f->cap - 1;
        return n;
}

VIGIL_HOT size_t attr_trim_len(const char *s, size_t n)
{
        while (n > 0 &&
               (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
                n--;
        return n;
}
