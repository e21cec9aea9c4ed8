/* The on-disk remote-write queue. See rw_queue.h.
 *
 *   [magic "VRW1"][u32 payload length][i64 ts_ms][u32 samples][u32 FNV-1a of payload]
 *   [payload ...]
 *
 * Segments are numbered without gaps from first_seq to last_seq (the one appended to);
 * the cursor is always in the first one (segments before it are deleted). */
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

#include "util/parse.h"

#define MAGIC    0x31575256u /* "VRW1" read as a little-endian u32 */
#define HDR_LEN  24u
#define SEG_FMT  "seg-%016" PRIu64 ".q"
#define SEG_NAME 22 /* strlen("seg-0000000000000000.q") */

struct hdr {
        uint32_t magic, len;
        int64_t ts_ms;
        uint32_t nsamples, sum;
};

struct rw_queue {
        pthread_mutex_t lock;
        int dirfd;
        uint64_t max_bytes, seg_max;
        uint64_t first_seq, last_seq;
        int wfd;        /* last_seq, open for appending; -1 until the first append */
        uint64_t wsize; /* its size */
        uint64_t cur_seq, cur_off;
        bool cursor_dirty;  /* moved since the cursor file was last made durable */
        bool segment_dirty; /* appended to since the last fdatasync */
        bool dir_dirty;     /* a segment created since the directory's last fsync */
        int cursor_err;     /* the last cursor write failed with it (ENOSPC); 0 = none */
        uint64_t bytes;     /* all segments */
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
        return fstatat(q->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
}

/* Read the header at off of fd. 1 with a sound header, 0 at the end (or a torn tail),
 * -EBADMSG for bytes that are no header. */
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

/* The samples of the records from off to the end of segment seq; *ret_end gets the end
 * of the last whole record. */
static uint64_t count_samples(const struct rw_queue *q, uint64_t seq, uint64_t off,
                              uint64_t *ret_end)
{
        uint64_t n = 0;
        struct hdr h;
        int fd = open_seg(q, seq, O_RDONLY);
        if (fd >= 0) {
                struct stat st;
                uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
                while (read_hdr(fd, off, &h) == 1 && off + HDR_LEN + h.len <= size) {
                        n += h.nsamples;
                        off += HDR_LEN + h.len;
                }
                close(fd);
        }
        if (ret_end)
                *ret_end = off;
        return n;
}

/* The time of the record at the cursor, or 0 when nothing waits. */
static void update_oldest(struct rw_queue *q)
{
        struct hdr h;
        q->st.oldest_ms = 0;
        for (uint64_t seq = q->cur_seq; seq <= q->last_seq; seq++) {
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

/* Write the cursor (temporary file, then rename, so a crash leaves the old or the new
 * one); with durable, fdatasync it and the directory first. 0 or -errno: then the
 * cursor stays dirty and the next commit or sync writes it again. */
static int save_cursor(struct rw_queue *q, bool durable)
{
        char buf[64];
        int n = snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64 "\n", q->cur_seq, q->cur_off);
        int fd = openat(q->dirfd, "cursor.tmp",
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        int r = 0;
        if (fd < 0) {
                r = -errno;
        } else {
                ssize_t w = write(fd, buf, (size_t)n);
                r = w == n ? 0 : w < 0 ? -errno : -ENOSPC;
                if (r == 0 && durable && fdatasync(fd) < 0)
                        r = -errno;
                close(fd);
        }
        if (r == 0 && renameat(q->dirfd, "cursor.tmp", q->dirfd, "cursor") < 0)
                r = -errno;
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
        char buf[64];
        int fd = openat(q->dirfd, "cursor", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        q->cur_seq = q->first_seq;
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
        if (seq >= q->first_seq && seq <= q->last_seq && off <= seg_size(q, seq)) {
                q->cur_seq = seq;
                q->cur_off = off;
        }
}

/* Find the segments; remove those before the cursor. */
static void scan_dir(struct rw_queue *q)
{
        int fd = dup(q->dirfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        bool any = false;
        q->first_seq = 1;
        q->last_seq = 1;
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
                uint64_t seq;
                if (strlen(e->d_name) != SEG_NAME || strncmp(e->d_name, "seg-", 4) ||
                    parse_u64(e->d_name + 4, 16, &seq) < 0 || strcmp(e->d_name + 20, ".q"))
                        continue;
                if (!any || seq < q->first_seq)
                        q->first_seq = seq;
                if (!any || seq > q->last_seq)
                        q->last_seq = seq;
                any = true;
        }
        closedir(d);
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
        q->max_bytes = max_bytes < RWQ_MIN_BYTES ? RWQ_MIN_BYTES : max_bytes;
        q->seg_max = q->max_bytes / 8;
        scan_dir(q);
        load_cursor(q);
        /* Segments before the cursor were finished; a torn record ends the last one. */
        uint64_t end;
        count_samples(q, q->last_seq, 0, &end);
        if (end < seg_size(q, q->last_seq)) {
                int fd = open_seg(q, q->last_seq, O_WRONLY);
                if (fd >= 0) {
                        if (ftruncate(fd, (off_t)end) < 0) {
                                /* Left as it is: reading stops at the torn record. */
                        }
                        close(fd);
                }
        }
        for (uint64_t seq = q->first_seq; seq <= q->last_seq; seq++) {
                q->bytes += seg_size(q, seq);
                q->st.samples += count_samples(q, seq, seq == q->cur_seq ? q->cur_off : 0, NULL);
        }
        q->wsize = seg_size(q, q->last_seq);
        update_oldest(q);
        *ret = q;
        return 0;
}

void rwq_close(struct rw_queue *q)
{
        if (!q)
                return;
        (void)rwq_sync(q);
        if (q->wfd >= 0)
                close(q->wfd);
        close(q->dirfd);
        pthread_mutex_destroy(&q->lock);
        free(q);
}

/* Delete the first segment (not the last one). */
static void drop_first(struct rw_queue *q)
{
        char name[64];
        uint64_t lost =
            count_samples(q, q->first_seq, q->cur_seq == q->first_seq ? q->cur_off : 0, NULL);
        q->st.dropped += lost;
        q->st.samples -= lost < q->st.samples ? lost : q->st.samples;
        q->bytes -= seg_size(q, q->first_seq);
        seg_name(name, sizeof(name), q->first_seq);
        unlinkat(q->dirfd, name, 0);
        q->first_seq++;
        if (q->cur_seq < q->first_seq) {
                q->cur_seq = q->first_seq;
                q->cur_off = 0;
                (void)save_cursor(q, false);
        }
}

static int open_writer(struct rw_queue *q)
{
        if (q->wfd >= 0 && q->wsize > 0 && q->wsize >= q->seg_max) {
                close(q->wfd);
                q->wfd = -1;
                q->last_seq++;
                q->wsize = 0;
        }
        if (q->wfd < 0) {
                int fd = open_seg(q, q->last_seq, O_WRONLY | O_CREAT | O_APPEND);
                if (fd < 0)
                        return fd;
                q->wfd = fd;
                q->dir_dirty = true;
        }
        return 0;
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
        int r = open_writer(q);
        if (r == 0) {
                ssize_t w = writev(q->wfd, iov, 2);
                if (w != (ssize_t)(HDR_LEN + len)) {
                        r = w < 0 ? -errno : -ENOSPC;
                        /* Nothing of a failed record stays: the next one starts clean. */
                        if (ftruncate(q->wfd, (off_t)q->wsize) < 0)
                                r = r ? r : -EIO;
                }
        }
        if (r == 0) {
                q->segment_dirty = true;
                q->wsize += HDR_LEN + len;
                q->bytes += HDR_LEN + len;
                q->st.samples += nsamples;
                if (!q->st.oldest_ms)
                        update_oldest(q);
                while (q->bytes > q->max_bytes && q->first_seq < q->last_seq)
                        drop_first(q);
                if (q->st.dropped != dropped_before)
                        update_oldest(q);
        }
        if (ret_dropped)
                *ret_dropped = q->st.dropped - dropped_before;
        pthread_mutex_unlock(&q->lock);
        return r;
}

/* One record at (*seq, *off) into rec; advances the position. 1, 0 at the end. */
static int read_one(struct rw_queue *q, uint64_t *seq, uint64_t *off, struct rwq_record *rec)
{
        struct hdr h;
        while (*seq <= q->last_seq) {
                int fd = open_seg(q, *seq, O_RDONLY);
                int r = fd < 0 ? 0 : read_hdr(fd, *off, &h);
                uint8_t *p = NULL;
                if (r == 1) {
                        p = malloc(h.len ? h.len : 1);
                        ssize_t n = p ? pread(fd, p, h.len, (off_t)(*off + HDR_LEN)) : -1;
                        if (n != (ssize_t)h.len || fnv32(p, h.len) != h.sum)
                                r = n >= 0 && (size_t)n < h.len ? 0 : -EBADMSG;
                }
                if (fd >= 0)
                        close(fd);
                if (r == 1) {
                        *rec = (struct rwq_record){h.ts_ms, h.nsamples, h.len, p};
                        *off += HDR_LEN + h.len;
                        return 1;
                }
                free(p);
                if (r == 0 && *seq == q->last_seq)
                        return 0; /* the end, or a record being written */
                /* The end of a finished segment, or bytes that do not check: next one. */
                (*seq)++;
                *off = 0;
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
                q->cur_seq = b->end_seq;
                q->cur_off = b->end_off;
                q->st.samples -= b->nsamples < q->st.samples ? b->nsamples : q->st.samples;
        }
        while (q->first_seq < q->cur_seq) {
                q->bytes -= seg_size(q, q->first_seq);
                seg_name(name, sizeof(name), q->first_seq);
                unlinkat(q->dirfd, name, 0);
                q->first_seq++;
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
