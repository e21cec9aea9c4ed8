/* SPDX-License-Identifier: Apache-2.0 */
/* One syncfs per sync round for the logs on one file system. See fssync.h. */
#include "util/fssync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/cachestat.h"
#include "util/clock.h"
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

/* A watch round looks at one file at most this often. */
#define LOOK_EVERY_NS (1000LL * 1000 * 1000)
/* How much longer than the longest gap between watch rounds the light cadence must be
 * for watch rounds to replace it: time for a look before a file is due. */
#define WATCH_MIN_SLACK_NS (2000LL * 1000 * 1000)

VIGIL_HOT void fssync_file_wrote(struct fssync_file *f)
{
        f->unsynced = true;
        if (f->pending_ns == 0) {
                f->pending_ns = now_mono_ns();
                if (f->pending_ns == 0)
                        f->pending_ns = 1;
        }
}

/* The file's data and size made durable by a sync: nothing owed. */
static void synced(struct fssync_file *f)
{
        f->unsynced = false;
        f->pending_ns = 0;
}

void fssync_none(struct fssync *s)
{
        *s = (struct fssync){
            .dirfd = -1, .unwritten_kb = -1, .said = {.interval_ns = 60 * NSEC_PER_SEC}};
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
        s->every_ns = s->light ? every : sync_ns;
        if (!s->light)
                s->watch = false;
        return s->every_ns;
}

bool fssync_watch_setup(struct fssync *s, int64_t gap_ns)
{
        if (!s)
                return false;
        s->due_ns = s->every_ns - gap_ns;
        s->watch = s->light && s->dirfd >= 0 && gap_ns > 0 && s->due_ns >= WATCH_MIN_SLACK_NS;
        return s->watch;
}

VIGIL_HOT bool fssync_watching(const struct fssync *s)
{
        return s && s->watch;
}

VIGIL_HOT void fssync_begin_watch(struct fssync *s, int64_t now_ns)
{
        fssync_begin(s);
        if (s) {
                s->watching = true;
                s->now_ns = now_ns;
        }
}

void fssync_begin(struct fssync *s)
{
        if (!s)
                return;
        s->round = true;
        s->periodic = false;
        s->watching = false;
        s->n = 0;
}

VIGIL_HOT void fssync_begin_periodic(struct fssync *s)
{
        fssync_begin(s);
        if (s)
                s->periodic = true;
}

/* Write taken file i's data out and wait for it; no journal commit forced
 * (fs_commit.h). A failed write-back is said by this call alone: it moves the file's
 * error cursor past the error (mm/filemap.c, file_fdatawait_range and
 * file_check_and_advance_wb_err), so an fdatasync after it would succeed. The file then
 * stays unsynced and pending, and the round says the error. Any other refusal (not a
 * write-back's) falls back to an fdatasync, which says its own. */
static void write_data(struct fssync *s, unsigned i)
{
        struct fssync_file *f = s->file[i];
        s->light_calls++;
        if (sync_file_range(s->fd[i], 0, 0,
                            SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                SYNC_FILE_RANGE_WAIT_AFTER) == 0) {
                f->pending_ns = 0;
                return;
        }
        int e = errno;
        if (e != EIO && e != ENOSPC && e != EDQUOT) {
                if (fdatasync(s->fd[i]) == 0) {
                        synced(f);
                        return;
                }
                e = errno;
        }
        s->err = -e;
        s->errors++;
}

/* A light round: each file's data written out (write_data); unsynced stays set for the
 * next full round. */
static int end_light(struct fssync *s)
{
        for (unsigned i = 0; i < s->n; i++)
                write_data(s, i);
        return s->err;
}

/* 1 when the kernel has written every page of taken file i out (none dirty or under
 * write-back, and the write-back did not fail), 0 when it has not or cannot say (then
 * watch rounds end: cachestat is missing or refused here), -errno when its write-back
 * failed (said once, as in write_data). */
static int written_out(struct fssync *s, unsigned i)
{
        struct vigil_cachestat cs;
        s->looks++;
        if (vigil_cachestat(s->fd[i], 0, 0, &cs) < 0) {
                s->watch = false;
                return 0;
        }
        if (cs.nr_dirty || cs.nr_writeback)
                return 0;
        if (sync_file_range(s->fd[i], 0, 0, SYNC_FILE_RANGE_WAIT_AFTER) < 0) {
                s->err = -errno;
                s->errors++;
                return s->err;
        }
        s->seen++;
        return 1;
}

/* A watch round: each file with lines pending for half its due time looked at (once a
 * second at most); one the kernel wrote out is pending no more, one due is written. */
static int end_watch(struct fssync *s)
{
        for (unsigned i = 0; i < s->n; i++) {
                struct fssync_file *f = s->file[i];
                if (!f->pending_ns)
                        continue;
                int64_t age = s->now_ns - f->pending_ns;
                if (s->watch && age >= s->due_ns / 2 && s->now_ns - f->looked_ns >= LOOK_EVERY_NS) {
                        f->looked_ns = s->now_ns;
                        int r = written_out(s, i);
                        if (r > 0)
                                f->pending_ns = 0;
                        if (r != 0)
                                continue;
                }
                if (age >= s->due_ns)
                        write_data(s, i);
        }
        return s->err;
}

VIGIL_HOT int fssync_cover(struct fssync *s, dev_t dev, int fd, struct fssync_file *f)
{
        if (!s || !s->round || s->dirfd < 0 || dev != s->dev || s->n == FSSYNC_MAX_FILES)
                return -1;
        s->fd[s->n] = fd;
        s->file[s->n] = f;
        s->n++;
        return 0;
}

VIGIL_HOT int fssync_end(struct fssync *s)
{
        if (!s || !s->round)
                return 0;
        s->round = false;
        s->err = 0;
        if (s->watching)
                return end_watch(s);
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
                                synced(s->file[i]);
                        return 0;
                }
                s->err = -errno; /* then each file on its own, which says which */
        }
        for (unsigned i = 0; i < s->n; i++) {
                if (fdatasync(s->fd[i]) == 0) {
                        synced(s->file[i]);
                } else {
                        s->err = -errno;
                        s->errors++;
                }
        }
        return s->err;
}
