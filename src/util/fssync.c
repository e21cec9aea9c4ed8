/* SPDX-License-Identifier: Apache-2.0 */
/* One syncfs per sync round for the logs on one file system. See fssync.h. */
#include "util/fssync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

bool fssync_whole_fs(unsigned long f_type)
{
        switch (f_type) {
        case EXT4_SUPER_MAGIC: /* ext2, ext3 and ext4 share it */
        case XFS_SUPER_MAGIC:
        case BTRFS_SUPER_MAGIC:
        case F2FS_SUPER_MAGIC:
                return true;
        default:
                return false;
        }
}

void fssync_none(struct fssync *s)
{
        *s = (struct fssync){.dirfd = -1};
}

int fssync_open(struct fssync *s, const char *dir)
{
        fssync_none(s);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        struct statfs sf;
        if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        s->dirfd = fd;
        s->dev = st.st_dev;
        s->whole = fssync_whole_fs((unsigned long)sf.f_type);
        return 0;
}

void fssync_close(struct fssync *s)
{
        if (s->dirfd >= 0)
                close(s->dirfd);
        fssync_none(s);
}

void fssync_begin(struct fssync *s)
{
        if (!s)
                return;
        s->round = true;
        s->n = 0;
}

int fssync_cover(struct fssync *s, dev_t dev, int fd, bool *unsynced)
{
        if (!s || !s->round || s->dirfd < 0 || dev != s->dev || s->n == FSSYNC_MAX_FILES)
                return -1;
        s->fd[s->n] = fd;
        s->unsynced[s->n] = unsynced;
        s->n++;
        return 0;
}

int fssync_end(struct fssync *s)
{
        if (!s || !s->round)
                return 0;
        s->round = false;
        s->err = 0;
        if (s->whole && s->n >= FSSYNC_MIN_FILES) {
                s->calls++;
                if (syncfs(s->dirfd) == 0) {
                        for (unsigned i = 0; i < s->n; i++)
                                *s->unsynced[i] = false;
                        return 0;
                }
                s->err = -errno; /* then each file on its own, which says which */
        }
        for (unsigned i = 0; i < s->n; i++) {
                if (fdatasync(s->fd[i]) == 0)
                        *s->unsynced[i] = false;
                else
                        s->err = -errno;
        }
        return s->err;
}
