/* SPDX-License-Identifier: Apache-2.0 */
/* One syncfs per sync round for the logs on one file system. See fssync.h. */
#include "util/fssync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/attr.h"
#include "util/fs_commit.h"

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
        *s = (struct fssync){.dirfd = -1, .meminfo_fd = -1};
}

/* The kB on the line of /proc/meminfo that starts with key ("Dirty:"), or -1. */
static long long meminfo_kb(const char *text, size_t len, const char *key)
{
        size_t k = strlen(key);
        for (size_t i = 0; i + k <= len;) {
                if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, key, k) == 0) {
                        size_t j = i + k;
                        while (j < len && text[j] == ' ')
                                j++;
                        long long v = 0;
                        size_t d = j;
                        while (j < len && text[j] >= '0' && text[j] <= '9' && j - d < 18)
                                v = v * 10 + (text[j++] - '0');
                        return j > d && j + 3 <= len && memcmp(text + j, " kB", 3) == 0 ? v : -1;
                }
                const char *nl = memchr(text + i, '\n', len - i);
                if (!nl)
                        break;
                i = (size_t)(nl - text) + 1;
        }
        return -1;
}

long long fssync_unwritten_kb(const char *text, size_t len)
{
        long long dirty = meminfo_kb(text, len, "Dirty:");
        long long wb = meminfo_kb(text, len, "Writeback:");
        return dirty < 0 || wb < 0 ? -1 : dirty + wb;
}

/* True when the machine holds little enough unwritten data for a syncfs now. */
static bool machine_quiet(struct fssync *s)
{
        char buf[8192]; /* /proc/meminfo is about 1.5 kB; Dirty is its 16th line */
        if (s->meminfo_fd < 0)
                return false;
        ssize_t n = pread(s->meminfo_fd, buf, sizeof(buf), 0);
        if (n <= 0)
                return false;
        long long kb = fssync_unwritten_kb(buf, (size_t)n);
        return kb >= 0 && kb <= FSSYNC_QUIET_MAX_KB;
}

int fssync_open(struct fssync *s, const char *dir, enum fssync_whole when, const char *meminfo)
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
        if (when == FSSYNC_WHOLE_QUIET && s->whole && meminfo) {
                /* attr_open: O_NONBLOCK, so a FIFO planted under --root cannot block. */
                int m = attr_open(NULL, meminfo);
                s->meminfo_fd = m < 0 ? -1 : m;
        }
        return 0;
}

void fssync_close(struct fssync *s)
{
        if (s->dirfd >= 0)
                close(s->dirfd);
        if (s->meminfo_fd >= 0)
                close(s->meminfo_fd);
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

void fssync_begin_periodic(struct fssync *s)
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
        if (s->periodic && s->light)
                return end_light(s);
        bool whole = s->when != FSSYNC_WHOLE_NEVER && s->whole && s->n >= FSSYNC_MIN_FILES;
        if (whole && s->when == FSSYNC_WHOLE_QUIET && !machine_quiet(s)) {
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
