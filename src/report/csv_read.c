/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming CSV reader. See csv_read.h.
 *
 * Sample record (the host log; the flags cell is quoted because it holds a comma):
 *   2026-12-02T18:12:47.123,5231.0,12.5,...,0x50000,"HAS:under-voltage occurred,HAS:throttling occurred"
 */
#include "report/csv_read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/parse.h"

static int reader_init(struct csv_reader *r)
{
        memset(r, 0, sizeof(*r));
        r->buf = malloc(CSV_BUF_SIZE);
        if (!r->buf)
                return -ENOMEM;
        r->read_max = CSV_BUF_SIZE;
        return 0;
}

int csv_reader_open(struct csv_reader *r, const char *path)
{
        int ret = reader_init(r);
        if (ret < 0)
                return ret;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                ret = -errno;
                goto out_free;
        }
        char why[256];
        if (zlib_lib_open(&r->z, why, sizeof(why)) < 0) {
                close(fd);
                ret = -ENOENT;
                goto out_free;
        }
        gzFile gz = r->z.gzdopen(fd, "rb");
        if (!gz) {
                close(fd);
                zlib_lib_close(&r->z);
                ret = -ENOMEM;
                goto out_free;
        }
        r->z.gzbuffer(gz, 64 * 1024);
        r->gz = gz;
        return 0;
out_free:
        free(r->buf);
        r->buf = NULL;
        return ret;
}

int csv_reader_mem(struct csv_reader *r, const char *data, size_t n)
{
        int ret = reader_init(r);
        if (ret < 0)
                return ret;
        r->mem = data;
        r->mem_len = n;
        return 0;
}

void csv_reader_close(struct csv_reader *r)
{
        if (!r)
                return;
        if (r->gz) {
                r->z.gzclose_r((gzFile)r->gz);
                zlib_lib_close(&r->z);
        }
        r->gz = NULL;
        free(r->buf);
        r->buf = NULL;
        r->mem = NULL;
}

/* Move the unread bytes to the front and read more after them. 0 or -errno. */
static int refill(struct csv_reader *r)
{
        if (r->start > 0) {
                memmove(r->buf, r->buf + r->start, r->end - r->start);
                r->end -= r->start;
                r->start = 0;
        }
        size_t room = CSV_BUF_SIZE - r->end;
        if (room > r->read_max)
                room = r->read_max;
        if (room == 0)
                return 0;
        if (r->mem) {
                size_t n = r->mem_len - r->mem_pos;
                if (n > room)
                        n = room;
                memcpy(r->buf + r->end, r->mem + r->mem_pos, n);
                r->mem_pos += n;
                r->end += n;
                r->eof = r->mem_pos == r->mem_len;
                return 0;
        }
        if (!r->gz) {
                r->eof = true;
                return 0;
        }
        int n = r->z.gzread((gzFile)r->gz, r->buf + r->end, (unsigned)room);
        if (n < 0) {
                int errnum;
                r->z.gzerror((gzFile)r->gz, &errnum);
                if (errnum == Z_BUF_ERROR) {
                        /* A truncated compressed file: what came before it stands. */
                        r->eof = true;
                        return 0;
                }
                return errnum == Z_ERRNO && errno ? -errno : -EIO;
        }
        if (n == 0)
                r->eof = true;
        r->end += (size_t)n;
        return 0;
}

static size_t count_quotes(const char *p, const char *e)
{
        size_t n = 0;
        while ((p = memchr(p, '"', (size_t)(e - p))) != NULL) {
                n++;
                p++;
        }
        return n;
}

/* The end ('\n' outside quotes) of the record at buf[start..end), or NULL. An even
 * count of quotes before a newline means the newline is outside every quoted field. */
static const char *record_end(const struct csv_reader *r)
{
        const char *p = r->buf + r->start, *e = r->buf + r->end;
        size_t quotes = 0;
        const char *from = p;
        for (;;) {
                const char *nl = memchr(from, '\n', (size_t)(e - from));
                if (!nl)
                        return NULL;
                if (r->skipping)
                        return nl;
                quotes += count_quotes(from, nl);
                if ((quotes & 1) == 0)
                        return nl;
                from = nl + 1;
        }
}

/* A quoted field starting at *pp (on the opening quote), unquoted in place. After the
 * closing quote, text up to the next comma is kept, as Python's csv does. */
static bool split_quoted(char **pp, const char *e, struct csv_field *f)
{
        char *p = *pp + 1;
        char *w = *pp;
        f->s = w;
        for (;;) {
                if (p >= e)
                        return false; /* unterminated */
                char c = *p++;
                if (c != '"') {
                        *w++ = c;
                        continue;
                }
                if (p < e && *p == '"') {
                        *w++ = '"';
                        p++;
                        continue;
                }
                break;
        }
        while (p < e && *p != ',')
                *w++ = *p++;
        f->len = (size_t)(w - f->s);
        *pp = p;
        return true;
}

/* Split line[0..n) into r->f. False when the record is damaged. */
static bool split_fields(struct csv_reader *r, char *line, size_t n)
{
        char *p = line, *e = line + n;
        unsigned nf = 0;
        if (memchr(line, '\0', n))
                return false;
        for (;;) {
                if (nf == CSV_MAX_FIELDS)
                        return false;
                struct csv_field *f = &r->f[nf++];
                if (p < e && *p == '"') {
                        if (!split_quoted(&p, e, f))
                                return false;
                } else {
                        char *c = memchr(p, ',', (size_t)(e - p));
                        f->s = p;
                        f->len = (size_t)((c ? c : e) - p);
                        p += f->len;
                }
                if (p >= e)
                        break;
                p++; /* the comma; a comma at the very end leaves one empty field */
                if (p == e) {
                        if (nf == CSV_MAX_FIELDS)
                                return false;
                        r->f[nf].s = p;
                        r->f[nf++].len = 0;
                        break;
                }
        }
        r->nfields = nf;
        return true;
}

int csv_reader_next(struct csv_reader *r)
{
        if (!r->buf)
                return 0;
        for (;;) {
                const char *nl = record_end(r);
                if (!nl) {
                        if (r->end - r->start >= CSV_MAX_LINE) {
                                /* Over-long: drop what is here and the rest of the line. */
                                if (!r->skipping)
                                        r->skipped++;
                                r->skipping = true;
                                r->start = r->end;
                        }
                        if (r->eof) {
                                if (r->end > r->start && !r->skipping)
                                        r->torn++;
                                r->start = r->end;
                                return 0;
                        }
                        int ret = refill(r);
                        if (ret < 0)
                                return ret;
                        continue;
                }
                char *line = r->buf + r->start;
                size_t len = (size_t)(nl - line);
                r->start += len + 1;
                if (r->skipping) {
                        r->skipping = false;
                        continue;
                }
                if (len && line[len - 1] == '\r')
                        len--;
                if (len == 0)
                        continue;
                if (len > CSV_MAX_LINE || !split_fields(r, line, len)) {
                        r->skipped++;
                        continue;
                }
                r->records++;
                return 1;
        }
}

/* ---- cells ---- */

static const double pow10_tab[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* [-]digits[.digits] with at most 15 significant digits: the integer mantissa and
 * the power of ten are both exact doubles, so one division rounds correctly. */
static bool fast_decimal(const char *s, size_t n, double *ret)
{
        size_t i = 0;
        bool neg = false;
        if (i < n && (s[i] == '-' || s[i] == '+'))
                neg = s[i++] == '-';
        uint64_t m = 0;
        unsigned digits = 0, frac = 0;
        bool dot = false, any = false;
        for (; i < n; i++) {
                char c = s[i];
                if (c >= '0' && c <= '9') {
                        any = true;
                        if (m == 0 && c == '0' && !dot)
                                continue;
                        if (++digits > 15)
                                return false;
                        m = m * 10 + (uint64_t)(c - '0');
                        frac += dot;
                } else if (c == '.' && !dot) {
                        dot = true;
                } else {
                        return false;
                }
        }
        if (!any)
                return false;
        double v = (double)m / pow10_tab[frac];
        *ret = neg ? -v : v;
        return true;
}

double csv_cell_double(const struct csv_field *f)
{
        double v;
        if (f->len == 0)
                return NAN;
        if (fast_decimal(f->s, f->len, &v))
                return v;
        if (parse_double(f->s, f->len, &v) == 0 && isfinite(v))
                return v;
        return NAN;
}

bool csv_cell_is(const struct csv_field *f, const char *s)
{
        size_t n = strlen(s);
        return f->len == n && memcmp(f->s, s, n) == 0;
}
