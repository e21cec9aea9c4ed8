/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshot files. See snapshot.h. */
#include "detect/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/frame.h"
#include "util/fmt.h"
#include "util/safedir.h"

#define BUF_BYTES     16384
#define MAX_DUP_INDEX 99

static const char *const dir_names[SNAPSHOT_KIND_COUNT] = {"crashes", "spikes", "incidents"};
static const char *const prefixes[SNAPSHOT_KIND_COUNT] = {"crash", "spike", "incident"};

struct snapshot {
        int fd;
        char dir[1100];                  /* LOGDIR/crashes */
        char base[SNAPSHOT_NAME_MAX];    /* crash-20261202-120000 */
        char tmp[SNAPSHOT_NAME_MAX + 8]; /* .crash-20261202-120000.tmp */
        size_t limit;
        size_t bytes; /* accepted so far (buffered or written) */
        bool truncated;
        int error;    /* the first -errno */
        char last[2]; /* the last two bytes accepted, for section spacing */
        size_t blen;
        char buf[BUF_BYTES];
};

const char *snapshot_dir_name(enum snapshot_kind kind)
{
        return (unsigned)kind < SNAPSHOT_KIND_COUNT ? dir_names[kind] : NULL;
}

const char *snapshot_prefix(enum snapshot_kind kind)
{
        return (unsigned)kind < SNAPSHOT_KIND_COUNT ? prefixes[kind] : NULL;
}

static void put_peak(struct strbuf *out, double v, const char *unit)
{
        if (VAL_OK(v))
                sb_printf(out, "%.0f%s", v, unit);
        else
                sb_puts(out, "n/a");
}

void snapshot_format_header(struct strbuf *out, const struct snapshot_header *h)
{
        char ts[64];
        fmt_time_utc_iso(ts, sizeof(ts), h->real_ns);
        sb_printf(out, "=== %s ===\n", h->title ? h->title : "SNAPSHOT");
        sb_printf(out, "Time: %s\n", ts);
        sb_puts(out, "Script: vigil v" VIGIL_VERSION "\n");
        if (h->gpu_name)
                sb_printf(out, "GPU: %s (%s)\n", h->gpu_name, h->gpu_pci ? h->gpu_pci : "");
        if (h->error && h->error[0])
                sb_printf(out, "Error: %s\n", h->error);
        sb_printf(out, "Uptime: %llds, %llu samples\n", (long long)h->uptime_s,
                  (unsigned long long)h->samples);
        if (h->gpu_name) {
                sb_puts(out, "Peaks: ");
                put_peak(out, h->peak_temp_c, "C");
                sb_puts(out, " / ");
                put_peak(out, h->peak_power_w, "W");
                sb_putc(out, '\n');
        }
        sb_printf(out, "Event #: %llu\n", (unsigned long long)h->event_number);
        if (h->gpu_name)
                sb_printf(out, "Pwr breach:%llu Fan inv:%llu Spur throt:%llu\n",
                          (unsigned long long)h->power_breaches,
                          (unsigned long long)h->fan_inversions,
                          (unsigned long long)h->spurious_throttles);
        if (h->extra_lines)
                sb_puts(out, h->extra_lines);
        sb_putc(out, '\n');
}

static bool valid_base(const char *base)
{
        size_t n = strnlen(base, SNAPSHOT_NAME_MAX);
        return n > 0 && n <= SNAPSHOT_NAME_MAX - 8 && base[0] != '.' && !strchr(base, '/');
}

/* Create the temporary file; a stale one (a crash mid-write) is replaced: the log
 * directory's lock makes this process its only writer. */
static int create_tmp(struct snapshot *s)
{
        char path[1300];
        snprintf(s->tmp, sizeof(s->tmp), ".%s.tmp", s->base);
        snprintf(path, sizeof(path), "%s/%s", s->dir, s->tmp);
        for (int attempt = 0; attempt < 2; attempt++) {
                s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
                if (s->fd >= 0)
                        return 0;
                if (errno != EEXIST || unlink(path) < 0)
                        break;
        }
        return -errno;
}

int snapshot_open_named(struct snapshot **ret, const char *log_dir, enum snapshot_kind kind,
                        const char *base)
{
        if ((unsigned)kind >= SNAPSHOT_KIND_COUNT || !log_dir || !base || !valid_base(base))
                return -EINVAL;
        struct snapshot *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        int n = snprintf(s->dir, sizeof(s->dir), "%s/%s", log_dir, dir_names[kind]);
        if (n < 0 || (size_t)n >= sizeof(s->dir)) {
                free(s);
                return -ENAMETOOLONG;
        }
        snprintf(s->base, sizeof(s->base), "%s", base);
        s->limit = SNAPSHOT_MAX_BYTES;
        s->last[0] = s->last[1] = '\n';
        int r = 0;
        r = safedir_make(s->dir, 0750); /* never through a symbolic link */
        if (r == 0)
                r = create_tmp(s);
        if (r < 0) {
                free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int snapshot_open(struct snapshot **ret, const char *log_dir, enum snapshot_kind kind,
                  int64_t real_ns)
{
        char stamp[32], base[SNAPSHOT_NAME_MAX];
        if ((unsigned)kind >= SNAPSHOT_KIND_COUNT)
                return -EINVAL;
        fmt_stamp(stamp, sizeof(stamp), real_ns);
        snprintf(base, sizeof(base), "%s-%s", prefixes[kind], stamp);
        return snapshot_open_named(ret, log_dir, kind, base);
}

void snapshot_set_limit(struct snapshot *s, size_t max_bytes)
{
        s->limit = max_bytes < 256 ? 256 : max_bytes;
}

static void flush_buf(struct snapshot *s)
{
        size_t off = 0;
        while (off < s->blen && s->error == 0) {
                ssize_t w = write(s->fd, s->buf + off, s->blen - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        s->error = w < 0 ? -errno : -EIO;
                else
                        off += (size_t)w;
        }
        s->blen = 0;
}

/* Accept bytes into the buffer, no bound check. */
static void put_raw(struct snapshot *s, const char *data, size_t n)
{
        if (n >= 2) {
                s->last[0] = data[n - 2];
                s->last[1] = data[n - 1];
        } else if (n == 1) {
                s->last[0] = s->last[1];
                s->last[1] = data[0];
        }
        s->bytes += n;
        while (n > 0) {
                if (s->blen == sizeof(s->buf))
                        flush_buf(s);
                size_t take = sizeof(s->buf) - s->blen;
                if (take > n)
                        take = n;
                memcpy(s->buf + s->blen, data, take);
                s->blen += take;
                data += take;
                n -= take;
        }
}

static void truncate_note(struct snapshot *s)
{
        char note[80];
        if (s->limit % (1024 * 1024) == 0)
                snprintf(note, sizeof(note), "(snapshot truncated at %zu MB)\n",
                         s->limit / (1024 * 1024));
        else
                snprintf(note, sizeof(note), "(snapshot truncated at %zu bytes)\n", s->limit);
        if (s->last[1] != '\n')
                put_raw(s, "\n", 1);
        put_raw(s, note, strlen(note));
        s->truncated = true;
}

void snapshot_write(struct snapshot *s, const char *data, size_t n)
{
        /* Room kept for the truncation line, so the file stays within the bound. */
        const size_t reserve = 64;
        if (s->truncated || n == 0)
                return;
        if (s->bytes + n + reserve <= s->limit) {
                put_raw(s, data, n);
                return;
        }
        size_t fit = s->limit > s->bytes + reserve ? s->limit - s->bytes - reserve : 0;
        if (fit > n)
                fit = n;
        /* Keep whole lines only, so no half line precedes the note. */
        const char *nl = fit ? memrchr(data, '\n', fit) : NULL;
        put_raw(s, data, nl ? (size_t)(nl - data) + 1 : 0);
        truncate_note(s);
}

void snapshot_puts(struct snapshot *s, const char *text)
{
        snapshot_write(s, text, strlen(text));
}

void snapshot_printf(struct snapshot *s, const char *fmt, ...)
{
        char small[1024];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(small, sizeof(small), fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t)n < sizeof(small)) {
                snapshot_write(s, small, (size_t)n);
                return;
        }
        char *big = malloc((size_t)n + 1);
        if (!big)
                return;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        snapshot_write(s, big, (size_t)n);
        free(big);
}

void snapshot_put_sb(struct snapshot *s, const struct strbuf *sb)
{
        snapshot_write(s, sb->buf, sb->len);
        if (sb->overflow) {
                if (sb->len > 0 && sb->buf[sb->len - 1] != '\n')
                        snapshot_write(s, "\n", 1);
                snapshot_puts(s, "(section truncated)\n");
        }
}

void snapshot_header(struct snapshot *s, const struct snapshot_header *h)
{
        char storage[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, storage, sizeof(storage));
        snapshot_format_header(&sb, h);
        snapshot_put_sb(s, &sb);
}

void snapshot_section(struct snapshot *s, const char *title)
{
        if (s->last[1] != '\n')
                snapshot_write(s, "\n", 1);
        if (s->last[0] != '\n')
                snapshot_write(s, "\n", 1);
        snapshot_printf(s, "=== %s ===\n", title);
}

size_t snapshot_bytes(const struct snapshot *s)
{
        return s->bytes;
}

bool snapshot_truncated(const struct snapshot *s)
{
        return s->truncated;
}

/* Move the temporary file to NAME without replacing anything. 0, -EEXIST, -errno. */
static int place(int dfd, const char *tmp, const char *name)
{
        if (renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE) == 0)
                return 0;
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
                return -errno;
        /* A file system without RENAME_NOREPLACE: link(2) does not replace either. */
        if (linkat(dfd, tmp, dfd, name, 0) == 0) {
                unlinkat(dfd, tmp, 0);
                return 0;
        }
        if (errno == EEXIST)
                return -EEXIST;
        /* No hard links either (vfat): check, then rename. */
        if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return -EEXIST;
        return renameat(dfd, tmp, dfd, name) == 0 ? 0 : -errno;
}

static int finalize(struct snapshot *s, char *ret_path, size_t cap)
{
        char name[SNAPSHOT_NAME_MAX + 16];
        int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        int r = -EEXIST;
        for (int i = 1; i <= MAX_DUP_INDEX && r == -EEXIST; i++) {
                if (i == 1)
                        snprintf(name, sizeof(name), "%s.log", s->base);
                else
                        snprintf(name, sizeof(name), "%s-%d.log", s->base, i);
                r = place(dfd, s->tmp, name);
        }
        if (r == 0) {
                fsync(dfd);
                if (ret_path && cap)
                        snprintf(ret_path, cap, "%s/%s", s->dir, name);
        }
        close(dfd);
        return r;
}

int snapshot_commit(struct snapshot *s, char *ret_path, size_t cap)
{
        flush_buf(s);
        if (s->error == 0 && fsync(s->fd) < 0)
                s->error = -errno;
        if (close(s->fd) < 0 && s->error == 0)
                s->error = -errno;
        s->fd = -1;
        int r = s->error;
        if (r == 0)
                r = finalize(s, ret_path, cap);
        if (r < 0)
                snapshot_abort(s);
        else
                free(s);
        return r;
}

void snapshot_abort(struct snapshot *s)
{
        char path[1300];
        if (!s)
                return;
        if (s->fd >= 0)
                close(s->fd);
        snprintf(path, sizeof(path), "%s/%s", s->dir, s->tmp);
        unlink(path);
        free(s);
}
