/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log reader and its ring. See kmsg.h. Parses records like
 *   4,1043,5140900,-;NVRM: GPU at PCI:0000:01:00: GPU-12345678-abcd-ef01-2345-6789abcdef01
 */
#include "collect/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/logring.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

#define DRAIN_MAX_READS 4096

const struct kmsg_filter_def kmsg_filters[KMSG_FILTER_COUNT] = {
    [KMSG_FILTER_GPU] = {"dmesg (nvidia/gpu errors)",
                         "nvidia|gpu|nvrm|xid|uvm|BUG|ca7d|ca7e|GPU_IS_LOST|fallen|reg.read|gsp|"
                         "pmu.*halt",
                         100},
    [KMSG_FILTER_ALL] = {"dmesg (last 200 lines)", NULL, 200},
    [KMSG_FILTER_AER] = {"PCIe AER errors", "AER|corrected|uncorrect|pcie.*error", 20},
    [KMSG_FILTER_POWER] = {"dmesg (voltage/thermal)",
                           "voltage|under-voltage|throttl|thermal|temperature", 50},
};

struct kmsg {
        int fd;       /* -1 when unreadable */
        bool regular; /* a fixture file, not the character device */
        bool fifo;    /* a fixture FIFO: whole records per write, held open for writing too */
        uint64_t off; /* regular file: offset after the last complete line */
        int error;    /* -errno of the failed open, 0 when readable */
        bool error_taken;
        char errmsg[160];
        regex_t re[KMSG_FILTER_COUNT];
        bool re_ok[KMSG_FILTER_COUNT];
        struct kmsg_stats stats;
        uint64_t last_seq;
        bool have_seq;
        uint64_t start_seq; /* kmsg_drain_to_start() */
        bool have_start;
        bool quiet;          /* kmsg_note_wait: the last wait found nothing to read */
        struct logring ring; /* struct packed records, oldest first */
        struct {
                kmsg_tap_fn fn;
                void *arg;
        } taps[KMSG_TAPS_MAX];
        char io[KMSG_READ_MAX + 1];
};

/* A record as the ring stores it: the text takes only the bytes it needs. */
struct packed {
        uint64_t seq, usec;
        uint32_t prio;
        uint16_t len;
        uint8_t cut, pad;
        char text[]; /* len bytes and a NUL */
};

/* Copy text into rec, escaping control bytes as the kernel does, cut to fit. */
static void put_text(struct kmsg_record *rec, const char *s, size_t n)
{
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;
        rec->cut = false;
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)s[i];
                size_t need = (ch < 0x20 || ch == 0x7f) ? 4 : 1;
                if (o + need > KMSG_TEXT_MAX - 1) {
                        rec->cut = true;
                        break;
                }
                if (need == 1) {
                        rec->text[o++] = (char)ch;
                        continue;
                }
                rec->text[o++] = '\\';
                rec->text[o++] = 'x';
                rec->text[o++] = hex[ch >> 4];
                rec->text[o++] = hex[ch & 15];
        }
        rec->text[o] = '\0';
        rec->len = (unsigned)o;
}

int kmsg_parse_record(const char *buf, size_t n, struct kmsg_record *ret)
{
        const char *nl = memchr(buf, '\n', n);
        struct cursor c = cur_make(buf, nl ? (size_t)(nl - buf) : n);
        uint64_t prio, seq, usec;
        if (c.p < c.end && (*c.p == ' ' || *c.p == '\t'))
                return -EINVAL;
        if (cur_u64(&c, &prio) < 0 || prio > 0xffff || !cur_lit(&c, ","))
                return -EINVAL;
        if (cur_u64(&c, &seq) < 0 || !cur_lit(&c, ","))
                return -EINVAL;
        if (cur_u64(&c, &usec) < 0)
                return -EINVAL;
        /* Flags and any fields a newer kernel adds come before the ';'. */
        const char *semi = memchr(c.p, ';', (size_t)(c.end - c.p));
        if (!semi || (c.p < semi && *c.p != ','))
                return -EINVAL;
        ret->prio = (unsigned)prio;
        ret->seq = seq;
        ret->usec = usec;
        put_text(ret, semi + 1, (size_t)(c.end - semi - 1));
        return 0;
}

size_t kmsg_format_time(char *out, size_t cap, uint64_t usec)
{
        int n = snprintf(out, cap, "[%5llu.%06llu]", (unsigned long long)(usec / 1000000),
                         (unsigned long long)(usec % 1000000));
        if (n < 0 || cap == 0)
                return 0;
        return (size_t)n < cap ? (size_t)n : cap - 1;
}

static void set_error(struct kmsg *k, int err)
{
        k->error = err;
        if (err == -EPERM || err == -EACCES)
                snprintf(k->errmsg, sizeof(k->errmsg),
                         "kernel log not readable (/dev/kmsg: %s): run as root or grant "
                         "CAP_SYSLOG",
                         strerror(-err));
        else
                snprintf(k->errmsg, sizeof(k->errmsg), "kernel log not readable (/dev/kmsg: %s)",
                         strerror(-err));
}

int kmsg_open(struct kmsg **ret, const char *root, unsigned nrecords)
{
        char path[4096];
        struct kmsg *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        size_t cap = nrecords ? nrecords : KMSG_DEFAULT_RECORDS;
        if (cap > KMSG_MAX_RECORDS)
                cap = KMSG_MAX_RECORDS;
        if (logring_init(&k->ring, cap * KMSG_AVG_RECORD_BYTES, cap) < 0) {
                free(k);
                return -ENOMEM;
        }
        for (size_t i = 0; i < KMSG_FILTER_COUNT; i++)
                k->re_ok[i] =
                    kmsg_filters[i].pattern && regcomp(&k->re[i], kmsg_filters[i].pattern,
                                                       REG_EXTENDED | REG_ICASE | REG_NOSUB) == 0;
        k->fd = -1;
        int r = path_join(path, sizeof(path), root, "/dev/kmsg");
        if (r == 0) {
                k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                r = k->fd < 0 ? -errno : 0;
        }
        struct stat st;
        if (r == 0 && fstat(k->fd, &st) == 0) {
                k->regular = S_ISREG(st.st_mode);
                k->fifo = S_ISFIFO(st.st_mode);
        }
        if (r == 0 && k->fifo) {
                /* Held open for writing as well, so the FIFO never reads end-of-file
                 * (and poll(2) never says POLLHUP) while no test writes to it
                 * (fifo(7)). */
                int rw = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                r = rw < 0 ? -errno : 0;
                close(k->fd);
                k->fd = rw;
        }
        if (r < 0)
                set_error(k, r);
        *ret = k;
        return 0;
}

static void push(struct kmsg *k, const struct kmsg_record *rec)
{
        if (k->have_seq && rec->seq > k->last_seq + 1)
                k->stats.lost += rec->seq - k->last_seq - 1;
        k->last_seq = rec->seq;
        k->have_seq = true;
        for (unsigned i = 0; i < KMSG_TAPS_MAX; i++)
                if (k->taps[i].fn)
                        k->taps[i].fn(k->taps[i].arg, rec);
        struct packed *dst = logring_push(&k->ring, sizeof(*dst) + rec->len + 1);
        if (!dst)
                return;
        dst->seq = rec->seq;
        dst->usec = rec->usec;
        dst->prio = rec->prio;
        dst->len = (uint16_t)rec->len;
        dst->cut = rec->cut;
        memcpy(dst->text, rec->text, rec->len + 1);
        k->stats.records++;
}

/* Take one line of a record (device read or fixture line). 1 when taken. */
static int take(struct kmsg *k, const char *line, size_t n)
{
        struct kmsg_record rec;
        if (n > 0 && line[0] == ' ')
                return 0; /* a continuation line: KEY=VALUE */
        if (kmsg_parse_record(line, n, &rec) < 0) {
                k->stats.malformed++;
                return 0;
        }
        push(k, &rec);
        return 1;
}

/* Every whole line of buf[0..n) (a fixture FIFO's read: one or more records, each
 * written whole); a last line without its newline is taken as it is. */
static int take_lines(struct kmsg *k, const char *buf, size_t n)
{
        int taken = 0;
        const char *p = buf, *end = buf + n, *nl;
        while (p < end) {
                nl = memchr(p, '\n', (size_t)(end - p));
                taken += take(k, p, (size_t)((nl ? nl : end) - p));
                p = nl ? nl + 1 : end;
        }
        return taken;
}

static int drain_device(struct kmsg *k)
{
        int taken = 0;
        for (int i = 0; i < DRAIN_MAX_READS; i++) {
                ssize_t n = read(k->fd, k->io, KMSG_READ_MAX);
                if (n > 0 && k->fifo) {
                        taken += take_lines(k, k->io, (size_t)n);
                        continue;
                }
                if (n > 0) {
                        taken += take(k, k->io, (size_t)n);
                        continue;
                }
                if (n == 0 || errno == EAGAIN)
                        break;
                if (errno == EINTR)
                        continue;
                if (errno == EPIPE) {
                        k->stats.overruns++; /* the kernel moved us to the oldest record */
                        continue;
                }
                if (errno == EINVAL) {
                        k->stats.oversize++; /* the kernel skipped the record */
                        continue;
                }
                return -errno;
        }
        return taken;
}

/* A fixture file: complete lines from the remembered offset on. */
static int drain_file(struct kmsg *k)
{
        int taken = 0;
        uint64_t start = k->off;
        while (k->off - start < KMSG_FILE_DRAIN_MAX) {
                ssize_t n = pread(k->fd, k->io, KMSG_READ_MAX, (off_t)k->off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                const char *p = k->io, *end = k->io + n;
                const char *nl;
                while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
                        taken += take(k, p, (size_t)(nl - p));
                        p = nl + 1;
                }
                if (p == k->io && n == KMSG_READ_MAX) {
                        /* A line longer than any record: skip what was read of it. */
                        k->stats.oversize++;
                        p = end;
                }
                k->off += (uint64_t)(p - k->io);
                if (p == k->io)
                        break; /* an unterminated last line: wait for its newline */
        }
        return taken;
}

VIGIL_HOT int kmsg_drain(struct kmsg *k)
{
        if (k->fd < 0)
                return k->error ? k->error : -EBADF;
        return k->regular ? drain_file(k) : drain_device(k);
}

VIGIL_HOT void kmsg_note_wait(struct kmsg *k, bool quiet)
{
        if (k)
                k->quiet = quiet;
}

VIGIL_HOT int kmsg_drain_pending(struct kmsg *k)
{
        return k->quiet ? 0 : kmsg_drain(k);
}

int kmsg_poll_fd(const struct kmsg *k)
{
        return k && k->fd >= 0 && !k->regular ? k->fd : -1;
}

int kmsg_drain_to_start(struct kmsg *k, unsigned max_calls)
{
        int r = 0;
        for (unsigned i = 0; i < max_calls; i++)
                if ((r = kmsg_drain(k)) <= 0)
                        break;
        k->have_start = k->have_seq;
        k->start_seq = k->last_seq;
        return r;
}

bool kmsg_start_seq(const struct kmsg *k, uint64_t *ret_seq)
{
        if (!k || !k->have_start)
                return false;
        *ret_seq = k->start_seq;
        return true;
}

VIGIL_HOT const char *kmsg_error(const struct kmsg *k)
{
        return k && k->error ? k->errmsg : NULL;
}

const char *kmsg_take_error(struct kmsg *k)
{
        if (!k || !k->error || k->error_taken)
                return NULL;
        k->error_taken = true;
        return k->errmsg;
}

int kmsg_set_tap(struct kmsg *k, kmsg_tap_fn fn, void *arg)
{
        if (!k)
                return 0;
        int free_at = -1;
        for (unsigned i = 0; i < KMSG_TAPS_MAX; i++) {
                bool same = k->taps[i].fn && k->taps[i].arg == arg;
                if (!fn && (same || !arg)) {
                        k->taps[i].fn = NULL;
                        k->taps[i].arg = NULL;
                } else if (fn && same) {
                        k->taps[i].fn = fn;
                        return 0;
                } else if (fn && !k->taps[i].fn && free_at < 0) {
                        free_at = (int)i;
                }
        }
        if (!fn)
                return 0;
        if (free_at < 0)
                return -ENOSPC;
        k->taps[free_at].fn = fn;
        k->taps[free_at].arg = arg;
        return 0;
}

size_t kmsg_count(const struct kmsg *k)
{
        return k ? logring_count(&k->ring) : 0;
}

static const struct packed *at(const struct kmsg *k, size_t i)
{
        return logring_get(&k->ring, i, NULL);
}

VIGIL_HOT bool kmsg_get(const struct kmsg *k, size_t i, struct kmsg_record *ret)
{
        const struct packed *p = k ? at(k, i) : NULL;
        if (!p)
                return false;
        ret->seq = p->seq;
        ret->usec = p->usec;
        ret->prio = p->prio;
        ret->len = p->len;
        ret->cut = p->cut;
        memcpy(ret->text, p->text, (size_t)p->len + 1);
        return true;
}

VIGIL_HOT size_t kmsg_index_after(const struct kmsg *k, uint64_t seq)
{
        size_t lo = 0, hi = kmsg_count(k);
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (at(k, mid)->seq <= seq)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

VIGIL_HOT void kmsg_get_stats(const struct kmsg *k, struct kmsg_stats *ret)
{
        memset(ret, 0, sizeof(*ret));
        if (k)
                *ret = k->stats;
}

bool kmsg_matches(const struct kmsg *k, enum kmsg_filter f, const char *text)
{
        if ((unsigned)f >= KMSG_FILTER_COUNT)
                return false;
        if (!kmsg_filters[f].pattern)
                return true;
        return k->re_ok[f] && regexec(&k->re[f], text, 0, NULL, 0) == 0;
}

static void put_line(struct strbuf *out, const struct packed *rec)
{
        char ts[40];
        size_t n = kmsg_format_time(ts, sizeof(ts), rec->usec);
        sb_put(out, ts, n);
        sb_putc(out, ' ');
        sb_put(out, rec->text, rec->len);
        sb_puts(out, rec->cut ? " [cut]\n" : "\n");
}

void kmsg_format(const struct kmsg *k, enum kmsg_filter f, struct strbuf *out)
{
        unsigned char mark[KMSG_MAX_RECORDS];
        if ((unsigned)f >= KMSG_FILTER_COUNT)
                return;
        if (!k) {
                sb_puts(out, "(kernel log not collected)\n");
                return;
        }
        if (kmsg_filters[f].pattern && !k->re_ok[f]) {
                sb_puts(out, "(kernel log filter unavailable)\n");
                return;
        }
        /* Newest first, mark the last N matches; then print them oldest first. */
        size_t count = kmsg_count(k), shown = 0, first = count;
        memset(mark, 0, count);
        for (size_t i = count; i > 0 && shown < kmsg_filters[f].last; i--) {
                if (kmsg_matches(k, f, at(k, i - 1)->text)) {
                        mark[i - 1] = 1;
                        shown++;
                        first = i - 1;
                }
        }
        if (f == KMSG_FILTER_ALL && k->stats.lost)
                sb_printf(out, "(%llu kernel log records were overwritten before they were read)\n",
                          (unsigned long long)k->stats.lost);
        for (size_t i = first; i < count; i++)
                if (mark[i])
                        put_line(out, at(k, i));
        if (shown)
                return;
        if (k->error)
                sb_printf(out, "(%s)\n", k->errmsg);
        else if (count == 0)
                sb_puts(out, "(kernel log empty)\n");
        else
                sb_printf(out, "(no matching lines in the last %zu kernel log records)\n", count);
}

void kmsg_close(struct kmsg *k)
{
        if (!k)
                return;
        for (size_t i = 0; i < KMSG_FILTER_COUNT; i++)
                if (k->re_ok[i])
                        regfree(&k->re[i]);
        if (k->fd >= 0)
                close(k->fd);
        logring_fini(&k->ring);
        free(k);
}
