/* SPDX-License-Identifier: Apache-2.0 */
/* The on-disk remote-write queue. See rw_queue.h.
 *
 *   [magic "VRW1"][u32 payload length][i64 ts_ms][u32 samples][u32 FNV-1a of payload]
 *   [payload ...]
 *
 * The segments are the sorted list of the numbers found in the directory (segs[]), not
 * a range counted through: a stray or hand-copied file far from the others costs one
 * entry, not a loop over every number in between. The last entry is the segment
 * appended to (it may not exist yet); the cursor is in the first one (those before it
 * are deleted).
 *
 * Damage, as Prometheus's WAL handles it (2.42: tsdb/wlog/reader.go reports a
 * CorruptionErr naming the segment and offset; tsdb/db.go logs "Encountered WAL read
 * error, attempting repair", tsdb/wlog/wlog.go Repair counts it in
 * prometheus_tsdb_wal_corruptions_total), except that nothing readable is cut (Repair
 * drops everything after the corruption, later segments included): a record
 * that does not check is skipped up to the next one that does (a header and a payload
 * whose checksum match), counted and said once; only a torn record at the very end of
 * the last segment (a crash in the middle of a write) is cut, and counted. A segment
 * written by a later format ("VRW" and another version byte) is renamed
 * seg-N.q.unreadable and kept. */
#include "push/rw_queue.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/log.h"
#include "util/parse.h"

#define MAGIC      0x31575256u /* "VRW1" read as a little-endian u32 */
#define HDR_LEN    24u
#define SEG_FMT    "seg-%016" PRIu64 ".q"
#define SEG_NAME   22 /* strlen("seg-0000000000000000.q") */
#define CURSOR_LEN 48 /* the cursor file, padded: rewritten in place it never grows */
/* Segment numbers above this are renumbered from 1 at open, so that the next ones
 * keep the 16 digits of the name (a lone seg-9999999999999999.q). */
#define SEQ_RENUMBER UINT64_C(1000000000000000)

struct hdr {
        uint32_t magic, len;
        int64_t ts_ms;
        uint32_t nsamples, sum;
};

struct rw_queue {
        pthread_mutex_t lock;
        int dirfd;
        char path[1200];
        uint64_t max_bytes, seg_max;
        uint64_t *segs; /* the segment numbers, ascending; at least one */
        size_t nsegs, cap;
        int wfd;        /* the last segment, open for appending; -1 until the first append */
        uint64_t wsize; /* its size */
        uint64_t cur_seq, cur_off;
        uint64_t said_seq, said_off; /* damage before here was counted and said */
        bool said;                   /* said_seq and said_off are set */
        uint64_t punched;            /* bytes of the cursor's segment given back to the disk */
        bool no_punch;               /* the file system cannot punch holes */
        bool cursor_dirty;           /* moved since the cursor file was last made durable */
        bool segment_dirty;          /* appended to since the last fdatasync */
        bool dir_dirty;              /* a segment created since the directory's last fsync */
        int cursor_err;              /* the last cursor write failed with it (ENOSPC); 0 = none */
        uint64_t bytes;              /* all segments */
        struct rwq_stats st;
};

static uint32_t fnv32(const uint8_t *p, size_t n)
{
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++)
                h = (h ^ p[i]) * 16777619u;
        return h;
}

static void seg_name(char *out, size_t cap, uint64_t seq)
{
        snprintf(out, cap, SEG_FMT, seq);
}

static uint64_t first_seq(const struct rw_queue *q)
{
        return q->segs[0];
}

static uint64_t last_seq(const struct rw_queue *q)
{
        return q->segs[q->nsegs - 1];
}

/* The index of the first segment numbered seq or more (nsegs when none). */
static size_t seg_index(const struct rw_queue *q, uint64_t seq)
{
        size_t lo = 0, hi = q->nsegs;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (q->segs[mid] < seq)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static int push_seg(struct rw_queue *q, uint64_t seq)
{
        if (q->nsegs == q->cap) {
                size_t cap = q->cap ? q->cap * 2 : 16;
                uint64_t *s = realloc(q->segs, cap * sizeof(*s));
                if (!s)
                        return -ENOMEM;
                q->segs = s;
                q->cap = cap;
        }
        q->segs[q->nsegs++] = seq;
        return 0;
}

static void remove_seg(struct rw_queue *q, size_t i)
{
        memmove(q->segs + i, q->segs + i + 1, (q->nsegs - i - 1) * sizeof(*q->segs));
        q->nsegs--;
}

static int open_seg(const struct rw_queue *q, uint64_t seq, int flags)
{
        char name[64];
        seg_name(name, sizeof(name), seq);
        int fd = openat(q->dirfd, name, flags | O_CLOEXEC | O_NOFOLLOW, 0644);
        return fd < 0 ? -errno : fd;
}

static uint64_t seg_size(const struct rw_queue *q, uint64_t seq)
{
        char name[64];
        struct stat st;
        seg_name(name, sizeof(name), seq);
        return fstatat(q->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
                   ? (uint64_t)st.st_size
                   : 0;
}

/* Read the header at off of fd. 1 with a sound header, 0 at the end (or a torn tail),
 * -EBADMSG for bytes that are no header, -errno of the read. */
static int read_hdr(int fd, uint64_t off, struct hdr *h)
{
        ssize_t n = pread(fd, h, sizeof(*h), (off_t)off);
        if (n == 0 || (n > 0 && (size_t)n < sizeof(*h)))
                return 0;
        if (n < 0)
                return -errno;
        if (h->magic != MAGIC || h->len > RWQ_MAX_RECORD)
                return -EBADMSG;
        return 1;
}

/* The record at off of the segment fd of size bytes: 1 when whole and its checksum
 * matches (*h its header; *ret_payload, when not NULL, its payload, malloc'ed), 0 when
 * it runs past the end, -EBADMSG when it does not check, -errno of a read. */
static int read_rec(int fd, uint64_t off, uint64_t size, struct hdr *h, uint8_t **ret_payload)
{
        int r = read_hdr(fd, off, h);
        if (r != 1)
                return r;
        if (off + HDR_LEN + h->len > size)
                return 0;
        uint8_t *p = malloc(h->len ? h->len : 1);
        if (!p)
                return -ENOMEM;
        ssize_t n = pread(fd, p, h->len, (off_t)(off + HDR_LEN));
        r = n < 0 ? -errno : n != (ssize_t)h->len ? 0 : fnv32(p, h->len) != h->sum ? -EBADMSG : 1;
        if (r == 1 && ret_payload)
                *ret_payload = p;
        else
                free(p);
        return r;
}

/* The offset of the first whole record that checks after from in the segment fd of
 * size bytes; size when none. */
static uint64_t next_good(int fd, uint64_t from, uint64_t size)
{
        static const uint8_t m[4] = {'V', 'R', 'W', '1'};
        struct hdr h;
        uint64_t len = size > from ? size - from : 0;
        uint8_t *buf = len ? malloc(len) : NULL;
        if (!buf || pread(fd, buf, len, (off_t)from) != (ssize_t)len) {
                free(buf);
                return size;
        }
        for (uint64_t i = 1; i + HDR_LEN <= len; i++) {
                const uint8_t *p = memchr(buf + i, 'V', len - i);
                if (!p)
                        break;
                i = (uint64_t)(p - buf);
                if (i + HDR_LEN > len || memcmp(p, m, 4))
                        continue;
                memcpy(&h, p, sizeof(h));
                if (h.len <= RWQ_MAX_RECORD && i + HDR_LEN + h.len <= len &&
                    fnv32(p + HDR_LEN, h.len) == h.sum) {
                        free(buf);
                        return from + i;
                }
        }
        free(buf);
        return size;
}

/* The samples of the records from off to the end of segment seq (their headers: the
 * payloads are checked when read), bytes that are no header skipped to the next record
 * that checks; *ret_end (may be NULL) gets the end of the last whole record, *ret_cut
 * (may be NULL) the samples of a record cut short there (a sound header, bytes
 * missing). */
static uint64_t count_samples(const struct rw_queue *q, uint64_t seq, uint64_t off,
                              uint64_t *ret_end, uint64_t *ret_cut)
{
        uint64_t n = 0, end = off, cut = 0;
        struct hdr h;
        int fd = open_seg(q, seq, O_RDONLY);
        if (fd >= 0) {
                struct stat st;
                uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
                while (off < size) {
                        int r = read_hdr(fd, off, &h);
                        if (r == 1 && off + HDR_LEN + h.len > size) {
                                /* Cut short, or a damaged length with records after it. */
                                uint64_t next = next_good(fd, off, size);
                                if (next < size) {
                                        off = next;
                                        continue;
                                }
                                cut = h.nsamples;
                                r = 0;
                        }
                        if (r == 1) {
                                n += h.nsamples;
                                off += HDR_LEN + h.len;
                                end = off;
                                continue;
                        }
                        if (r == 0)
                                break;
                        off = next_good(fd, off, size);
                }
                close(fd);
        }
        if (ret_end)
                *ret_end = end;
        if (ret_cut)
                *ret_cut = cut;
        return n;
}

/* Count and say the damage of segment seq at [off, end), once (reads are repeated until
 * the cursor moves past it). samples: those its header names, 0 when it has none. */
static void damage(struct rw_queue *q, uint64_t seq, uint64_t off, uint64_t end, uint64_t samples,
                   const char *what)
{
        if (q->said && (seq < q->said_seq || (seq == q->said_seq && off < q->said_off)))
                return;
        q->said = true;
        q->said_seq = seq;
        q->said_off = end > off ? end : off + 1;
        q->st.repairs++;
        q->st.damaged += samples;
        q->st.samples -= samples < q->st.samples ? samples : q->st.samples;
        if (end == off)
                vlog(LOG_WARN,
                     "remote-write: queue %s: seg-%016" PRIu64 ".q cannot be read (%s); "
                     "skipped (vigil_remote_write_queue_repairs_total), the segments after it "
                     "are sent",
                     q->path, seq, what);
        else
                vlog(LOG_WARN,
                     "remote-write: queue %s: seg-%016" PRIu64 ".q, bytes %" PRIu64 " to %" PRIu64
                     ": %s; skipped (%" PRIu64
                     " samples lost, vigil_remote_write_queue_repairs_total), the records after "
                     "it are sent",
                     q->path, seq, off, end, what, samples);
}

/* The time of the record at the cursor, or 0 when nothing waits. */
static void update_oldest(struct rw_queue *q)
{
        struct hdr h;
        q->st.oldest_ms = 0;
        for (size_t i = seg_index(q, q->cur_seq); i < q->nsegs; i++) {
                uint64_t seq = q->segs[i];
                int fd = open_seg(q, seq, O_RDONLY);
                if (fd < 0)
                        continue;
                int r = read_hdr(fd, seq == q->cur_seq ? q->cur_off : 0, &h);
                close(fd);
                if (r == 1) {
                        q->st.oldest_ms = h.ts_ms;
                        return;
                }
        }
}

/* Rewrite the cursor file where it is: its CURSOR_LEN bytes are already on disk, so
 * this needs no free block (a full file system). One sector: whole or not at all. */
static int cursor_in_place(struct rw_queue *q, const char *buf, bool durable)
{
        int fd = openat(q->dirfd, "cursor", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        int r = pwrite(fd, buf, CURSOR_LEN, 0) == CURSOR_LEN ? 0 : -ENOSPC;
        if (r == 0 && durable && fdatasync(fd) < 0)
                r = -errno;
        close(fd);
        return r;
}

/* Write the cursor (temporary file, then rename, so a crash leaves the old or the new
 * one); with durable, fdatasync it and the directory first. Without room for the
 * temporary file, the cursor file is rewritten in place. 0 or -errno: then the cursor
 * stays dirty and the next commit or sync writes it again. */
static int save_cursor(struct rw_queue *q, bool durable)
{
        char buf[CURSOR_LEN + 1];
        int n = snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64, q->cur_seq, q->cur_off);
        memset(buf + n, ' ', CURSOR_LEN - 1 - (size_t)n);
        buf[CURSOR_LEN - 1] = '\n';
        int fd = openat(q->dirfd, "cursor.tmp",
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        int r = 0;
        if (fd < 0) {
                r = -errno;
        } else {
                ssize_t w = write(fd, buf, CURSOR_LEN);
                r = w == CURSOR_LEN ? 0 : w < 0 ? -errno : -ENOSPC;
                if (r == 0 && durable && fdatasync(fd) < 0)
                        r = -errno;
                close(fd);
        }
        if (r == 0 && renameat(q->dirfd, "cursor.tmp", q->dirfd, "cursor") < 0)
                r = -errno;
        if (r == -ENOSPC || r == -EDQUOT) {
                (void)unlinkat(q->dirfd, "cursor.tmp", 0);
                r = cursor_in_place(q, buf, durable) == 0 ? 0 : r;
        }
        if (r == 0 && durable && fsync(q->dirfd) < 0)
                r = -errno;
        if (r == 0 && durable)
                q->dir_dirty = false;
        q->cursor_err = r;
        q->cursor_dirty = r < 0 || !durable;
        return r;
}

static void load_cursor(struct rw_queue *q)
{
        char buf[CURSOR_LEN + 16];
        int fd = openat(q->dirfd, "cursor", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        q->cur_seq = first_seq(q);
        q->cur_off = 0;
        if (fd < 0)
                return;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return;
        struct cursor c = cur_make(buf, (size_t)n);
        uint64_t seq, off;
        if (cur_u64(&c, &seq) < 0 || (cur_skip_blank(&c), cur_u64(&c, &off)) < 0)
                return;
        size_t i = seg_index(q, seq);
        if (i == q->nsegs)
                return;
        /* The cursor's segment gone: the next one from its start. */
        q->cur_seq = q->segs[i];
        q->cur_off = q->segs[i] == seq && off <= seg_size(q, seq) ? off : 0;
}

/* A segment name: its number, or -1. */
static int seg_number(const char *name, uint64_t *ret)
{
        if (strlen(name) != SEG_NAME || strncmp(name, "seg-", 4) || strcmp(name + 20, ".q"))
                return -1;
        return parse_u64(name + 4, 16, ret) < 0 ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

/* The segments in the directory, sorted; {1} when there are none. */
static int scan_dir(struct rw_queue *q)
{
        int fd = dup(q->dirfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        int r = 0;
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        struct dirent *e;
        while ((e = readdir(d)) && r == 0) {
                uint64_t seq;
                if (seg_number(e->d_name, &seq) == 0)
                        r = push_seg(q, seq);
        }
        closedir(d);
        if (r == 0 && q->nsegs == 0)
                r = push_seg(q, 1);
        if (r == 0)
                qsort(q->segs, q->nsegs, sizeof(*q->segs), cmp_u64);
        return r;
}

/* Segments numbered near the top renumbered 1.. in order, so that the next never
 * wraps. Before the cursor is read: it is moved with its segment. */
static void renumber(struct rw_queue *q, uint64_t *cursor_seq)
{
        char from[64], to[64];
        if (last_seq(q) < SEQ_RENUMBER)
                return;
        for (size_t i = 0; i < q->nsegs; i++) {
                seg_name(from, sizeof(from), q->segs[i]);
                seg_name(to, sizeof(to), i + 1);
                if (q->segs[i] != i + 1 && renameat(q->dirfd, from, q->dirfd, to) < 0)
                        break;
                if (*cursor_seq == q->segs[i])
                        *cursor_seq = i + 1;
                q->segs[i] = i + 1;
        }
        q->cursor_dirty = true;
        q->st.repairs++;
        vlog(LOG_WARN,
             "remote-write: queue %s: segment numbers near the end of their range; renumbered "
             "from 1 (vigil_remote_write_queue_repairs_total)",
             q->path);
}

/* A segment of a later format: renamed seg-N.q.unreadable and left out, not read as
 * damage and not deleted. */
static void set_aside_future(struct rw_queue *q)
{
        char name[64], aside[80];
        for (size_t i = 0; i < q->nsegs;) {
                uint8_t m[4];
                int fd = open_seg(q, q->segs[i], O_RDONLY);
                ssize_t n = fd >= 0 ? pread(fd, m, 4, 0) : -1;
                if (fd >= 0)
                        close(fd);
                if (n != 4 || memcmp(m, "VRW", 3) || m[3] == '1') {
                        i++;
                        continue;
                }
                seg_name(name, sizeof(name), q->segs[i]);
                snprintf(aside, sizeof(aside), "%s.unreadable", name);
                if (renameat(q->dirfd, name, q->dirfd, aside) < 0) {
                        i++;
                        continue;
                }
                q->st.repairs++;
                vlog(LOG_WARN,
                     "remote-write: queue %s: %s has a format this vigil cannot read (\"VRW%c\", "
                     "from another version); kept as %s, not sent "
                     "(vigil_remote_write_queue_repairs_total)",
                     q->path, name, m[3] >= 0x20 && m[3] < 0x7f ? m[3] : '?', aside);
                if (q->nsegs == 1)
                        q->segs[0]++; /* the next segment after it */
                else
                        remove_seg(q, i);
        }
}

/* A torn record ends the last segment (a crash in the middle of a write): cut, and
 * what it held counted. Damage before the end is left to the reader, which skips it;
 * bytes before the cursor (acknowledged, maybe a hole given back on a full disk) are
 * not looked at. */
static void cut_torn_tail(struct rw_queue *q)
{
        uint64_t end, cut, size = seg_size(q, last_seq(q));
        count_samples(q, last_seq(q), last_seq(q) == q->cur_seq ? q->cur_off : 0, &end, &cut);
        if (end >= size)
                return;
        int fd = open_seg(q, last_seq(q), O_WRONLY);
        if (fd < 0)
                return;
        if (ftruncate(fd, (off_t)end) == 0) {
                q->st.repairs++;
                q->st.damaged += cut;
                vlog(LOG_WARN,
                     "remote-write: queue %s: seg-%016" PRIu64 ".q ends in %" PRIu64
                     " bytes of a record cut short (a stop in the middle of a write); cut (%" PRIu64
                     " samples lost, vigil_remote_write_queue_repairs_total)",
                     q->path, last_seq(q), size - end, cut);
        }
        close(fd);
}

int rwq_open(const char *log_dir, uint64_t max_bytes, struct rw_queue **ret)
{
        char path[1200];
        snprintf(path, sizeof(path), "%s/" RWQ_DIR, log_dir);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -errno;
        int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return -errno;
        /* A queue that cannot be written is no queue: say so now, not at the first push. */
        if (faccessat(dfd, ".", W_OK, AT_EACCESS) < 0) {
                int r = -errno;
                close(dfd);
                return r;
        }
        struct rw_queue *q = calloc(1, sizeof(*q));
        if (!q) {
                close(dfd);
                return -ENOMEM;
        }
        pthread_mutex_init(&q->lock, NULL);
        q->dirfd = dfd;
        q->wfd = -1;
        snprintf(q->path, sizeof(q->path), "%s", path);
        q->max_bytes = max_bytes < RWQ_MIN_BYTES ? RWQ_MIN_BYTES : max_bytes;
        q->seg_max = q->max_bytes / 8;
        int r = scan_dir(q);
        if (r < 0) {
                rwq_close(q);
                return r;
        }
        set_aside_future(q);
        load_cursor(q);
        renumber(q, &q->cur_seq);
        /* Segments before the cursor were finished. */
        while (q->nsegs > 1 && first_seq(q) < q->cur_seq) {
                char name[64];
                seg_name(name, sizeof(name), first_seq(q));
                unlinkat(q->dirfd, name, 0);
                remove_seg(q, 0);
        }
        cut_torn_tail(q);
        for (size_t i = 0; i < q->nsegs; i++) {
                uint64_t seq = q->segs[i];
                q->bytes += seg_size(q, seq);
                q->st.samples +=
                    count_samples(q, seq, seq == q->cur_seq ? q->cur_off : 0, NULL, NULL);
        }
        q->wsize = seg_size(q, last_seq(q));
        update_oldest(q);
        *ret = q;
        return 0;
}

void rwq_close(struct rw_queue *q)
{
        if (!q)
                return;
        if (q->segs)
                (void)rwq_sync(q);
        if (q->wfd >= 0)
                close(q->wfd);
        close(q->dirfd);
        pthread_mutex_destroy(&q->lock);
        free(q->segs);
        free(q);
}

/* Delete the first segment (not the last one): its samples not yet sent are counted
 * as dropped. */
static void drop_first(struct rw_queue *q)
{
        char name[64];
        uint64_t seq = first_seq(q);
        uint64_t lost = count_samples(q, seq, q->cur_seq == seq ? q->cur_off : 0, NULL, NULL);
        q->st.dropped += lost;
        q->st.samples -= lost < q->st.samples ? lost : q->st.samples;
        q->bytes -= seg_size(q, seq);
        seg_name(name, sizeof(name), seq);
        unlinkat(q->dirfd, name, 0);
        remove_seg(q, 0);
        if (q->cur_seq < first_seq(q)) {
                q->cur_seq = first_seq(q);
                q->cur_off = 0;
                q->punched = 0;
                (void)save_cursor(q, false);
        }
}

/* Whether open's error r on segment seq is the segment's own (something in its place
 * that another file next to it would not meet), not the directory's or the disk's. */
static bool seg_fault(const struct rw_queue *q, uint64_t seq, int r)
{
        char name[64];
        struct stat st;
        seg_name(name, sizeof(name), seq);
        return r != -ENOSPC && r != -EDQUOT && r != -EROFS && r != -EIO && r != -ENOMEM &&
               r != -EMFILE && r != -ENFILE &&
               fstatat(q->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int open_writer(struct rw_queue *q)
{
        if (q->wfd >= 0 && q->wsize > 0 && q->wsize >= q->seg_max) {
                close(q->wfd);
                q->wfd = -1;
                if (push_seg(q, last_seq(q) + 1) < 0)
                        return -ENOMEM;
                q->wsize = 0;
        }
        if (q->wfd >= 0)
                return 0;
        int fd = open_seg(q, last_seq(q), O_WRONLY | O_CREAT | O_APPEND);
        if (fd < 0 && seg_fault(q, last_seq(q), fd)) {
                /* A segment that cannot be opened (not a file, a link, its mode): left as
                 * it is, the next number starts. */
                vlog(LOG_WARN,
                     "remote-write: queue %s: cannot open seg-%016" PRIu64
                     ".q (%s); left as it is, seg-%016" PRIu64 ".q starts "
                     "(vigil_remote_write_queue_repairs_total)",
                     q->path, last_seq(q), strerror(-fd), last_seq(q) + 1);
                q->st.repairs++;
                if (push_seg(q, last_seq(q) + 1) < 0)
                        return -ENOMEM;
                q->wsize = 0;
                fd = open_seg(q, last_seq(q), O_WRONLY | O_CREAT | O_APPEND);
        }
        if (fd < 0)
                return fd;
        struct stat st;
        q->wsize = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : q->wsize;
        q->wfd = fd;
        q->dir_dirty = true;
        return 0;
}

/* The disk is full: make room, the acknowledged bytes first (given back to the file
 * system as a hole), then the oldest unsent frames (a segment, or, with one segment
 * left, the oldest records of it, at least need bytes), counted as dropped. Whether
 * anything was freed. */
static bool make_room(struct rw_queue *q, uint64_t need)
{
        uint64_t ack = q->cur_off & ~UINT64_C(4095);
        if (ack > q->punched) {
                int fd = open_seg(q, q->cur_seq, O_WRONLY);
                bool ok = fd >= 0 && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                                               (off_t)ack) == 0;
                if (fd >= 0 && !ok && (errno == EOPNOTSUPP || errno == ENOSYS))
                        q->no_punch = true;
                if (fd >= 0)
                        close(fd);
                q->punched = ack;
                if (ok)
                        return true;
        }
        if (q->nsegs > 1) {
                drop_first(q);
                update_oldest(q);
                return true;
        }
        /* One segment: the oldest records of it, when that gives room back. */
        int fd = q->no_punch ? -1 : open_seg(q, q->cur_seq, O_RDONLY);
        if (fd < 0)
                return false;
        struct hdr h;
        uint64_t off = q->cur_off, lost = 0, want = need < 65536 ? 65536 : need;
        while (off - q->cur_off < want && off < q->wsize && read_hdr(fd, off, &h) == 1 &&
               off + HDR_LEN + h.len <= q->wsize) {
                lost += h.nsamples;
                off += HDR_LEN + h.len;
        }
        close(fd);
        if (off == q->cur_off)
                return false;
        q->cur_off = off;
        q->st.dropped += lost;
        q->st.samples -= lost < q->st.samples ? lost : q->st.samples;
        (void)save_cursor(q, false);
        update_oldest(q);
        return (q->cur_off & ~UINT64_C(4095)) > q->punched;
}

int rwq_append(struct rw_queue *q, int64_t ts_ms, uint32_t nsamples, const void *payload,
               size_t len, uint64_t *ret_dropped)
{
        if (len > RWQ_MAX_RECORD)
                return -EMSGSIZE;
        struct hdr h = {MAGIC, (uint32_t)len, ts_ms, nsamples, fnv32(payload, len)};
        struct iovec iov[2] = {{&h, HDR_LEN}, {(void *)payload, len}};
        pthread_mutex_lock(&q->lock);
        uint64_t dropped_before = q->st.dropped;
        int r;
        do {
                r = open_writer(q);
                if (r == 0) {
                        ssize_t w = writev(q->wfd, iov, 2);
                        if (w != (ssize_t)(HDR_LEN + len)) {
                                r = w < 0 ? -errno : -ENOSPC;
                                /* Nothing of a failed record stays: the next one starts
                                 * clean. */
                                if (ftruncate(q->wfd, (off_t)q->wsize) < 0)
                                        r = r ? r : -EIO;
                        }
                }
        } while ((r == -ENOSPC || r == -EDQUOT) && make_room(q, HDR_LEN + len));
        if (r == 0) {
                q->segment_dirty = true;
                q->wsize += HDR_LEN + len;
                q->bytes += HDR_LEN + len;
                q->st.samples += nsamples;
                if (!q->st.oldest_ms)
                        update_oldest(q);
                while (q->bytes > q->max_bytes && q->nsegs > 1)
                        drop_first(q);
                if (q->st.dropped != dropped_before)
                        update_oldest(q);
        }
        if (ret_dropped)
                *ret_dropped = q->st.dropped - dropped_before;
        pthread_mutex_unlock(&q->lock);
        return r;
}

/* One record at (*seq, *off) into rec; advances the position past it, and past damage
 * (counted once). 1, 0 at the end. */
static int read_one(struct rw_queue *q, uint64_t *seq, uint64_t *off, struct rwq_record *rec)
{
        struct hdr h;
        for (size_t i = seg_index(q, *seq); i < q->nsegs; i++) {
                if (q->segs[i] != *seq) {
                        *seq = q->segs[i];
                        *off = 0;
                }
                bool last = i + 1 == q->nsegs;
                int fd = open_seg(q, *seq, O_RDONLY);
                if (fd < 0) {
                        if (last)
                                return 0;
                        damage(q, *seq, 0, 0, 0, strerror(-fd)); /* its samples unknown */
                        continue;
                }
                struct stat st;
                uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
                if (last && q->wfd >= 0)
                        size = q->wsize; /* not past what was appended whole */
                uint8_t *p = NULL;
                int r;
                while ((r = read_rec(fd, *off, size, &h, &p)) < 0 && r != -ENOMEM && *off < size) {
                        uint64_t bad = *off, samples = 0;
                        struct hdr bh;
                        if (read_hdr(fd, bad, &bh) == 1)
                                samples = bh.nsamples;
                        *off = r == -EBADMSG ? next_good(fd, bad, size) : size;
                        damage(q, *seq, bad, *off, samples,
                               r == -EBADMSG ? "a damaged record" : strerror(-r));
                }
                close(fd);
                if (r == 1) {
                        *rec = (struct rwq_record){h.ts_ms, h.nsamples, h.len, p};
                        *off += HDR_LEN + h.len;
                        return 1;
                }
                if (last || r == -ENOMEM)
                        return 0; /* the end, or a record being written */
        }
        return 0;
}

int rwq_read(struct rw_queue *q, size_t max_records, size_t max_bytes, struct rwq_batch *ret)
{
        memset(ret, 0, sizeof(*ret));
        ret->recs = calloc(max_records ? max_records : 1, sizeof(*ret->recs));
        if (!ret->recs)
                return -ENOMEM;
        pthread_mutex_lock(&q->lock);
        uint64_t seq = q->cur_seq, off = q->cur_off;
        size_t bytes = 0;
        while (ret->n < max_records && (ret->n == 0 || bytes < max_bytes)) {
                struct rwq_record *r = &ret->recs[ret->n];
                if (read_one(q, &seq, &off, r) != 1)
                        break;
                bytes += r->len;
                ret->nsamples += r->nsamples;
                ret->n++;
        }
        ret->end_seq = seq;
        ret->end_off = off;
        pthread_mutex_unlock(&q->lock);
        return 0;
}

int rwq_commit(struct rw_queue *q, const struct rwq_batch *b)
{
        char name[64];
        pthread_mutex_lock(&q->lock);
        if (b->end_seq > q->cur_seq || (b->end_seq == q->cur_seq && b->end_off > q->cur_off)) {
                if (b->end_seq != q->cur_seq)
                        q->punched = 0;
                q->cur_seq = b->end_seq;
                q->cur_off = b->end_off;
                q->st.samples -= b->nsamples < q->st.samples ? b->nsamples : q->st.samples;
        }
        while (q->nsegs > 1 && first_seq(q) < q->cur_seq) {
                q->bytes -= seg_size(q, first_seq(q));
                seg_name(name, sizeof(name), first_seq(q));
                unlinkat(q->dirfd, name, 0);
                remove_seg(q, 0);
        }
        int r = save_cursor(q, false);
        update_oldest(q);
        pthread_mutex_unlock(&q->lock);
        return r;
}

int rwq_sync(struct rw_queue *q)
{
        int r = 0;
        pthread_mutex_lock(&q->lock);
        if (q->segment_dirty && q->wfd >= 0) {
                if (fdatasync(q->wfd) < 0)
                        r = -errno;
                else
                        q->segment_dirty = false;
        }
        if (q->dir_dirty && !q->cursor_dirty) {
                if (fsync(q->dirfd) < 0)
                        r = r ? r : -errno;
                else
                        q->dir_dirty = false;
        }
        if (q->cursor_dirty) {
                int rc = save_cursor(q, true);
                r = r ? r : rc;
        }
        pthread_mutex_unlock(&q->lock);
        return r;
}

void rwq_batch_free(struct rwq_batch *b)
{
        for (size_t i = 0; b->recs && i < b->n; i++)
                free(b->recs[i].payload);
        free(b->recs);
        memset(b, 0, sizeof(*b));
}

void rwq_get_stats(struct rw_queue *q, struct rwq_stats *ret)
{
        pthread_mutex_lock(&q->lock);
        *ret = q->st;
        ret->bytes = q->bytes - (q->cur_off < q->bytes ? q->cur_off : q->bytes);
        pthread_mutex_unlock(&q->lock);
}
