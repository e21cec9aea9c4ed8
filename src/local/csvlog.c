/* SPDX-License-Identifier: Apache-2.0 */
/* Daily CSV files. See csvlog.h. */
#include "local/csvlog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/fmt.h"
#include "util/hot.h"

#define MAX_DAYS_SCANNED 4096
#define CLOCK_JUMP_NS    (3600LL * 1000000000LL)

void csvlog_init(struct csvlog *l, const char *dir, const char *prefix, unsigned retention_days)
{
        memset(l, 0, sizeof(*l));
        snprintf(l->dir, sizeof(l->dir), "%s", dir);
        snprintf(l->prefix, sizeof(l->prefix), "%s", prefix);
        l->retention_days = retention_days;
        l->fd = -1;
}

void csvlog_init_file(struct csvlog *l, const char *path)
{
        memset(l, 0, sizeof(*l));
        snprintf(l->path, sizeof(l->path), "%s", path);
        l->fixed = true;
        l->fd = -1;
}

/* mkdir -p of the directories above path (the reference makes them too). */
static void make_parents(const char *path)
{
        char dir[1200];
        snprintf(dir, sizeof(dir), "%s", path);
        for (char *p = dir + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                (void)mkdir(dir, 0755); /* a failure shows at open(2) */
                *p = '/';
        }
}

/* True when the file at fd (size bytes) starts with exactly header. */
static bool header_matches(int fd, uint64_t size, const char *header)
{
        char buf[8192];
        size_t hl = strlen(header);
        if (size < hl || hl > sizeof(buf))
                return false;
        ssize_t n = pread(fd, buf, hl, 0);
        return n == (ssize_t)hl && memcmp(buf, header, hl) == 0;
}

/* Cut a torn last line (a crash mid-row) so the file ends with a whole row. */
static int repair_tail(int fd, uint64_t *size)
{
        char buf[4096];
        if (*size == 0)
                return 0;
        uint64_t end = *size;
        uint64_t pos = end;
        for (;;) {
                size_t n = pos > sizeof(buf) ? sizeof(buf) : (size_t)pos;
                pos -= n;
                ssize_t r = pread(fd, buf, n, (off_t)pos);
                if (r != (ssize_t)n)
                        return -EIO;
                if (pos + n == end && buf[n - 1] == '\n')
                        return 0; /* whole */
                for (size_t i = n; i > 0; i--) {
                        if (buf[i - 1] == '\n') {
                                uint64_t keep = pos + i;
                                if (ftruncate(fd, (off_t)keep) < 0)
                                        return -errno;
                                *size = keep;
                                return (int)(end - keep);
                        }
                }
                if (pos == 0 || end - pos > 1024 * 1024) {
                        /* No newline at all: not even a whole header. */
                        if (ftruncate(fd, 0) < 0)
                                return -errno;
                        *size = 0;
                        return (int)end;
                }
        }
}

/* Write the header into the empty open file; on failure the file is left empty. It
 * goes to the disk with the rows, at the next sync: a power cut before that leaves an
 * empty file (its name is durable at once on a journaling file system), which the next
 * open gives its header and the post-mortem lists as having no row. */
static int write_header(struct csvlog *l, const char *header)
{
        size_t hl = strlen(header);
        ssize_t w = write(l->fd, header, hl);
        if (w != (ssize_t)hl) {
                int e = w < 0 ? -errno : -ENOSPC;
                if (ftruncate(l->fd, 0) < 0)
                        e = -errno;
                return e;
        }
        l->size = hl;
        return 0;
}

/* The most names move_aside tries: path.old, path.old.1 .. path.old.999. */
#define CSVLOG_OLD_MAX 1000

/* Rename the fixed file to the first free name of path.old, path.old.1, path.old.2 ..,
 * so a second change of header never overwrites what the first one kept. vigil is the
 * only program that makes these names; the look and the rename are not one step, so a
 * file another program makes between them could be replaced (renameat2's
 * RENAME_NOREPLACE is not on every file system a Pi card carries). The name used is in
 * l->moved_to. -EEXIST when all names are taken: the file stays where it is. */
static int move_aside(struct csvlog *l)
{
        for (unsigned i = 0; i < CSVLOG_OLD_MAX; i++) {
                int n = i ? snprintf(l->moved_to, sizeof(l->moved_to), "%s.old.%u", l->path, i)
                          : snprintf(l->moved_to, sizeof(l->moved_to), "%s.old", l->path);
                if (n < 0 || (size_t)n >= sizeof(l->moved_to))
                        return -ENAMETOOLONG;
                struct stat st;
                if (lstat(l->moved_to, &st) == 0)
                        continue;
                if (errno != ENOENT)
                        return -errno;
                return rename(l->path, l->moved_to) < 0 ? -errno : 0;
        }
        return -EEXIST;
}

static int open_day(struct csvlog *l, const char *date, const char *header, bool may_move)
{
        if (l->fixed)
                make_parents(l->path);
        else
                snprintf(l->path, sizeof(l->path), "%s/%s-%s.csv", l->dir, l->prefix, date);
        /* Read as well as append: the header check and the torn-line repair here, and a
         * file cut by another program getting its header back (put_header_back). */
        int fd = open(l->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        uint64_t size = (uint64_t)st.st_size;
        if (l->fixed && may_move && size > 0 && !header_matches(fd, size, header)) {
                close(fd);
                int r = move_aside(l);
                if (r < 0)
                        return r;
                l->moved_aside = true;
                return open_day(l, date, header, false);
        }
        int cut = repair_tail(fd, &size);
        l->repaired = cut > 0 ? cut : 0;
        l->fd = fd;
        l->dev = st.st_dev;
        l->size = size;
        snprintf(l->date, sizeof(l->date), "%s", date);
        if (size == 0) {
                int r = write_header(l, header);
                if (r < 0) {
                        close(fd);
                        l->fd = -1;
                        return r;
                }
        }
        return 0;
}

/* The most put_header_back moves: rows of a second at the shortest interval are far
 * fewer. */
#define CSVLOG_REHEAD_MAX (16u << 20)

/* The file was cut (copytruncate) and has size bytes since: rows this file appended
 * after the cut, before the look that found it. Put the header back in front of them:
 * read them, empty the file, write the header and them again. A file whose start is
 * the header already (another program's doing) is left as it is. */
static int put_header_back(struct csvlog *l, const char *header, uint64_t size)
{
        if (header_matches(l->fd, size, header)) {
                l->size = size;
                return 0;
        }
        char *rows = size <= CSVLOG_REHEAD_MAX ? malloc(size) : NULL;
        if (!rows || pread(l->fd, rows, size, 0) != (ssize_t)size) {
                /* Unreadable or too much: leave the rows headerless rather than lose them. */
                free(rows);
                l->size = size;
                return 0;
        }
        int r = ftruncate(l->fd, 0) < 0 ? -errno : write_header(l, header);
        if (r == 0) {
                ssize_t w = write(l->fd, rows, size);
                if (w == (ssize_t)size)
                        l->size += size;
                else
                        r = w < 0 ? -errno : -ENOSPC;
        }
        free(rows);
        return r;
}

/* Another program may have cut the file (logrotate's copytruncate) or appended to it:
 * rows land at its end anyway (O_APPEND). Look at its size once a second: follow it,
 * and give a cut file its header again. */
static int follow_size(struct csvlog *l, int64_t real_ns, const char *header)
{
        if (real_ns >= l->looked_ns && real_ns - l->looked_ns < CSVLOG_LOOK_NS)
                return 0;
        l->looked_ns = real_ns;
        struct stat st;
        if (fstat(l->fd, &st) < 0)
                return -errno;
        uint64_t size = (uint64_t)st.st_size;
        if (size == l->size)
                return 0;
        if (size == 0)
                return write_header(l, header);
        if (size < l->size)
                return put_header_back(l, header, size);
        l->size = size;
        return 0;
}

/* Cut a short write of w bytes from the file's true end (another program may have cut
 * the file since the last look: its size is asked, not taken from l->size). */
static int roll_back(struct csvlog *l, ssize_t w)
{
        struct stat st;
        if (fstat(l->fd, &st) < 0)
                return -errno;
        off_t end = st.st_size >= w ? st.st_size - w : 0;
        if (ftruncate(l->fd, end) < 0)
                return -errno;
        l->size = (uint64_t)end;
        return 0;
}

/* The time retention counts back from at a change of day: the new row's, unless the
 * wall clock jumped (back, or ahead by more than an hour since the last row): then the
 * earlier of the two, so a clock set wrong, or set right again after being wrong,
 * never deletes the days a right clock would keep. */
static int64_t prune_anchor(const struct csvlog *l, int64_t real_ns)
{
        if (l->last_real_ns == 0)
                return real_ns;
        if (real_ns < l->last_real_ns || real_ns - l->last_real_ns > CLOCK_JUMP_NS)
                return real_ns < l->last_real_ns ? real_ns : l->last_real_ns;
        return real_ns;
}

VIGIL_HOT int csvlog_write(struct csvlog *l, int64_t real_ns, const char *header, const char *row,
                           size_t len)
{
        char date[16];
        fmt_date_cached(&l->date_cache, date, sizeof(date), real_ns);
        if (l->fd >= 0 && !l->fixed && strcmp(date, l->date) != 0) {
                csvlog_close(l);
                csvlog_prune(l->dir, l->prefix, l->retention_days, prune_anchor(l, real_ns));
        }
        l->last_real_ns = real_ns;
        if (l->fd < 0) {
                int r = open_day(l, date, header, true);
                if (r < 0) {
                        l->write_errors++;
                        l->last_error = r;
                        return r;
                }
        } else {
                int r = follow_size(l, real_ns, header);
                if (r < 0) {
                        l->write_errors++;
                        l->last_error = r;
                        return r;
                }
        }
        ssize_t w = write(l->fd, row, len);
        if (w == (ssize_t)len) {
                l->size += len;
                l->rows++;
                fssync_file_wrote(&l->sync);
                l->last_error = 0;
                return 0;
        }
        int e = w < 0 ? -errno : -ENOSPC;
        if (w > 0) {
                int r = roll_back(l, w);
                if (r < 0)
                        e = r;
        }
        l->write_errors++;
        l->last_error = e;
        return e;
}

void csvlog_reopen(struct csvlog *l)
{
        csvlog_close(l);
}

int csvlog_repair(const char *path)
{
        struct stat st;
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        uint64_t size = (uint64_t)st.st_size;
        int r = repair_tail(fd, &size);
        if (r > 0 && fdatasync(fd) < 0)
                r = -errno;
        close(fd);
        return r;
}

int csvlog_sync(struct csvlog *l)
{
        if (l->fd < 0 || !l->sync.unsynced)
                return 0;
        if (fdatasync(l->fd) < 0)
                return -errno;
        l->sync = (struct fssync_file){0};
        return 0;
}

VIGIL_HOT int csvlog_sync_in(struct csvlog *l, struct fssync *fs)
{
        if (l->fd < 0 || !l->sync.unsynced)
                return 0;
        if (fssync_cover(fs, l->dev, l->fd, &l->sync) == 0)
                return 0; /* synced at the round's end */
        return csvlog_sync(l);
}

void csvlog_close(struct csvlog *l)
{
        /* A day closed at rotation keeps the loss bound of the sync cadence too. */
        (void)csvlog_sync(l);
        if (l->fd >= 0)
                close(l->fd);
        l->sync = (struct fssync_file){0};
        l->fd = -1;
        l->date[0] = '\0';
}

/* "PREFIX-YYYY-MM-DD" at the start of name: the day as YYYYMMDD, or -1. */
static long name_day(const char *name, const char *prefix)
{
        size_t pl = strlen(prefix);
        if (strncmp(name, prefix, pl) != 0 || name[pl] != '-')
                return -1;
        const char *d = name + pl + 1;
        long v = 0;
        for (int i = 0; i < 10; i++) {
                if (i == 4 || i == 7) {
                        if (d[i] != '-')
                                return -1;
                        continue;
                }
                if (d[i] < '0' || d[i] > '9')
                        return -1;
                v = v * 10 + (d[i] - '0');
        }
        const char *rest = d + 10;
        if (!strstr(rest, ".csv"))
                return -1;
        return v;
}

static int cmp_long_desc(const void *a, const void *b)
{
        long x = *(const long *)a, y = *(const long *)b;
        return (x < y) - (x > y);
}

int csvlog_prune(const char *dir, const char *prefix, unsigned retention_days, int64_t real_ns)
{
        long days[MAX_DAYS_SCANNED];
        size_t nd = 0;
        DIR *d = opendir(dir);
        if (!d)
                return 0;
        struct dirent *e;
        while ((e = readdir(d)) && nd < MAX_DAYS_SCANNED) {
                long v = name_day(e->d_name, prefix);
                if (v >= 0)
                        days[nd++] = v;
        }
        qsort(days, nd, sizeof(days[0]), cmp_long_desc);
        /* The oldest day that must be kept: the cutoff by date, but never fewer than
         * retention_days distinct days. */
        time_t cut_s = (time_t)(real_ns / 1000000000) - (time_t)retention_days * 86400;
        struct tm tm;
        localtime_r(&cut_s, &tm);
        long cutoff = (tm.tm_year + 1900L) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
        unsigned distinct = 0;
        for (size_t i = 0; i < nd; i++) {
                if (i == 0 || days[i] != days[i - 1])
                        distinct++;
                if (distinct == retention_days) {
                        if (days[i] < cutoff)
                                cutoff = days[i];
                        break;
                }
        }
        int deleted = 0;
        rewinddir(d);
        while ((e = readdir(d))) {
                long v = name_day(e->d_name, prefix);
                if (v < 0 || v >= cutoff)
                        continue;
                if (unlinkat(dirfd(d), e->d_name, 0) == 0)
                        deleted++;
        }
        closedir(d);
        return deleted;
}
