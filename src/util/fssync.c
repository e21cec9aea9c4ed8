/* SPDX-License-Identifier: Apache-2.0 */
/* One syncfs per sync round for the logs on one file system. See fssync.h. */
#include "util/fssync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/fs_commit.h"
#include "util/hot.h"

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
        *s = (struct fssync){.dirfd = -1, .unwritten_kb = -1};
}

VIGIL_HOT void fssync_unwritten(struct fssync *s, long long kb)
{
        if (s)
                s->unwritten_kb = kb;
}

VIGIL_HOT bool fssync_wants_unwritten(const struct fssync *s)
{
        return s && s->dirfd >= 0 && s->whole && s->when == FSSYNC_WHOLE_QUIET;
}

int fssync_open(struct fssync *s, const char *dir, enum fssync_whole when)
{
        fssync_none(s);
        s->when = when;
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
        if (sf.f_type == EXT4_SUPER_MAGIC)
                s->commit_ns = fs_commit_of_dev(st.st_dev);
        return 0;
}

void fssync_close(struct fssync *s)
{
        if (s->dirfd >= 0)
                close(s->dirfd);
        fssync_none(s);
}

int64_t fssync_cadence(struct fssync *s, int64_t sync_ns)
{
        if (!s)
                return sync_ns;
        int64_t every = sync_ns - s->commit_ns - FSSYNC_LIGHT_MARGIN_NS;
        s->light = s->commit_ns > 0 && every >= s->commit_ns;
        return s->light ? every : sync_ns;
}

void fssync_begin(struct fssync *s)
{
        if (!s)
                return;
        s->round = true;
        s->periodic = false;
        s->n = 0;
}

VIGIL_HOT void fssync_begin_periodic(struct fssync *s)
{
        fssync_begin(s);
        if (s)
                s->periodic = true;
}

/* A light round: each file's data written out and waited for, no journal commit forced
 * (fs_commit.h); *unsynced stays set for the next full round. A file whose write-back
 * fails is fdatasync'ed, which says the error. */
static int end_light(struct fssync *s)
{
        for (unsigned i = 0; i < s->n; i++) {
                s->light_calls++;
                if (sync_file_range(s->fd[i], 0, 0,
                                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                        SYNC_FILE_RANGE_WAIT_AFTER) == 0)
                        continue;
                if (fdatasync(s->fd[i]) == 0)
                        *s->unsynced[i] = false;
                else
                        s->err = -errno;
        }
        return s->err;
}

VIGIL_HOT int fssync_cover(struct fssync *s, dev_t dev, int fd, bool *unsynced)
{
        if (!s || !s->round || s->dirfd < 0 || dev != s->dev || s->n == FSSYNC_MAX_FILES)
                return -1;
        s->fd[s->n] = fd;
        s->unsynced[s->n] = unsynced;
        s->n++;
        return 0;
}

VIGIL_HOT int fssync_end(struct fssync *s)
{
        if (!s || !s->round)
                return 0;
        s->round = false;
        s->err = 0;
        if (s->periodic && s->light)
                return end_light(s);
        bool whole = s->when != FSSYNC_WHOLE_NEVER && s->whole && s->n >= FSSYNC_MIN_FILES;
        if (whole && s->when == FSSYNC_WHOLE_QUIET &&
            !(s->unwritten_kb >= 0 && s->unwritten_kb <= FSSYNC_QUIET_MAX_KB)) {
                whole = false;
                s->busy++;
        }
        if (whole) {
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
