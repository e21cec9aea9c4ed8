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
        s->done = false;
}

int fssync_cover(struct fssync *s, dev_t dev)
{
        if (!s || !s->round || !s->whole || s->dirfd < 0 || dev != s->dev)
                return -1;
        if (!s->done) {
                s->done = true;
                s->calls++;
                s->err = syncfs(s->dirfd) < 0 ? -errno : 0;
        }
        return s->err == 0 ? 0 : -1;
}

void fssync_end(struct fssync *s)
{
        if (s)
                s->round = false;
}
