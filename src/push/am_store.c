/* SPDX-License-Identifier: Apache-2.0 */
/* The on-disk store of alerts not yet delivered. See am_store.h. */
#include "push/am_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/parse.h"

#define HEADER "vigil-alerts\t1\n"

int am_store_open(struct am_store *s, const char *dir)
{
        s->n = 0; /* the table's pages stay untouched until used */
        s->write_fn = write;
        snprintf(s->path, sizeof(s->path), "%s/" AM_STORE_FILE, dir);
        snprintf(s->tmp, sizeof(s->tmp), "%s/" AM_STORE_FILE ".tmp", dir);
        snprintf(s->damaged, sizeof(s->damaged), "%s/" AM_STORE_FILE ".damaged", dir);
        int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        char *buf = malloc(AM_STORE_MAX_FILE + 1);
        size_t len = 0;
        int r = buf ? 0 : -ENOMEM;
        while (r == 0 && len <= AM_STORE_MAX_FILE) {
                ssize_t k = read(fd, buf + len, AM_STORE_MAX_FILE + 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        r = -errno;
                else if (k == 0)
                        break;
                else
                        len += (size_t)k;
        }
        close(fd);
        if (r == 0 && (len > AM_STORE_MAX_FILE || am_store_parse(s, buf, len) < 0)) {
                (void)rename(s->path, s->damaged);
                r = -EBADMSG;
        }
        free(buf);
        return r;
}

static void put_field(struct strbuf *out, const char *v)
{
        sb_putc(out, '\t');
        for (; *v; v++) {
                if (*v == '\\')
                        sb_puts(out, "\\\\");
                else if (*v == '\t')
                        sb_puts(out, "\\t");
                else if (*v == '\n')
                        sb_puts(out, "\\n");
                else
                        sb_putc(out, *v);
        }
}

void am_store_format(const struct am_store *s, struct strbuf *out)
{
        sb_puts(out, HEADER);
        for (size_t i = 0; i < s->n; i++) {
                const struct am_entry *e = &s->e[i];
                sb_printf(out, "A\t%" PRId64 "\t%" PRId64 "\t%d\t%zu", e->a.starts_ms, e->a.ends_ms,
                          e->delivered ? 1 : 0, e->a.nlabels);
                for (size_t k = 0; k < e->a.nlabels; k++) {
                        put_field(out, e->a.labels[k].name);
                        put_field(out, e->a.labels[k].value);
                }
                put_field(out, e->a.summary);
                put_field(out, e->a.description);
                sb_putc(out, '\n');
        }
        sb_printf(out, "end\t%zu\n", s->n);
}

/* The next tab-separated field of [*p, end) unescaped into out (cap bytes); *p moves
 * past it and its tab. -EBADMSG when it does not fit or holds a bad escape. */
static int get_field(const char **p, const char *end, char *out, size_t cap)
{
        size_t n = 0;
        const char *q = *p;
        for (; q < end && *q != '\t'; q++) {
                char c = *q;
                if (c == '\\') {
                        if (++q == end)
                                return -EBADMSG;
                        c = *q == 't' ? '\t' : *q == 'n' ? '\n' : *q == '\\' ? '\\' : 0;
                        if (!c)
                                return -EBADMSG;
                } else if (c == '\0' || c == '\n') {
                        return -EBADMSG;
                }
                if (n + 1 >= cap)
                        return -EBADMSG;
                out[n++] = c;
        }
        out[n] = '\0';
        *p = q < end ? q + 1 : q;
        return 0;
}

static int get_i64(const char **p, const char *end, int64_t *v)
{
        char f[24];
        if (get_field(p, end, f, sizeof(f)) < 0 || parse_i64(f, strlen(f), v) < 0)
                return -EBADMSG;
        return 0;
}

static int parse_line(struct am_store *s, const char *p, const char *end)
{
        struct am_entry e;
        int64_t delivered, nl;
        memset(&e, 0, sizeof(e));
        if (end - p < 2 || memcmp(p, "A\t", 2) || s->n >= AM_MAX_ALERTS)
                return -EBADMSG;
        p += 2;
        if (get_i64(&p, end, &e.a.starts_ms) < 0 || get_i64(&p, end, &e.a.ends_ms) < 0 ||
            get_i64(&p, end, &delivered) < 0 || get_i64(&p, end, &nl) < 0 || nl < 1 ||
            nl > AM_MAX_LABELS || delivered < 0 || delivered > 1 || e.a.starts_ms < 0 ||
            e.a.ends_ms < 0)
                return -EBADMSG;
        e.a.nlabels = (size_t)nl;
        for (size_t k = 0; k < e.a.nlabels; k++)
                if (get_field(&p, end, e.a.labels[k].name, sizeof(e.a.labels[k].name)) < 0 ||
                    get_field(&p, end, e.a.labels[k].value, sizeof(e.a.labels[k].value)) < 0 ||
                    !e.a.labels[k].name[0])
                        return -EBADMSG;
        if (get_field(&p, end, e.a.summary, sizeof(e.a.summary)) < 0 ||
            get_field(&p, end, e.a.description, sizeof(e.a.description)) < 0 || p != end)
                return -EBADMSG;
        e.delivered = delivered == 1;
        e.carried = !e.a.ends_ms;
        e.a.id = am_alert_id(&e.a);
        s->e[s->n++] = e;
        return 0;
}

int am_store_parse(struct am_store *s, const char *text, size_t len)
{
        const char *p = text, *end = text + len;
        size_t hl = strlen(HEADER);
        int64_t count = -1;
        s->n = 0;
        if (len < hl || memcmp(text, HEADER, hl))
                goto bad;
        p += hl;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl || count >= 0)
                        goto bad; /* cut short, or lines after the end line */
                if (!strncmp(p, "end\t", 4)) {
                        const char *q = p + 4;
                        if (get_i64(&q, nl, &count) < 0 || count != (int64_t)s->n)
                                goto bad;
                } else if (parse_line(s, p, nl) < 0) {
                        goto bad;
                }
                p = nl + 1;
        }
        if (count < 0)
                goto bad;
        return 0;
bad:
        s->n = 0;
        return -EBADMSG;
}

static int write_all(struct am_store *s, int fd, const char *p, size_t len)
{
        while (len) {
                ssize_t k = s->write_fn(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

int am_store_save(struct am_store *s)
{
        struct strbuf sb;
        int r = sb_init_heap(&sb, 4096, AM_STORE_MAX_FILE);
        if (r < 0)
                return r;
        am_store_format(s, &sb);
        if (sb.overflow) {
                sb_free(&sb);
                return -EFBIG;
        }
        (void)unlink(s->tmp);
        int fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
                r = -errno;
                sb_free(&sb);
                return r;
        }
        r = write_all(s, fd, sb.buf, sb.len);
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(s->tmp, s->path) < 0)
                r = -errno;
        if (r < 0) {
                (void)unlink(s->tmp);
        } else {
                /* The rename made durable: the directory's entry. */
                char dir[sizeof(s->path)];
                snprintf(dir, sizeof(dir), "%s", s->path);
                char *slash = strrchr(dir, '/');
                if (slash) {
                        *slash = '\0';
                        int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (dfd >= 0) {
                                (void)fsync(dfd);
                                close(dfd);
                        }
                }
        }
        sb_free(&sb);
        return r;
}

struct am_entry *am_store_find(struct am_store *s, uint64_t id)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->e[i].a.id == id)
                        return &s->e[i];
        return NULL;
}

struct am_entry *am_store_add(struct am_store *s, const struct am_alert *a)
{
        if (s->n >= AM_MAX_ALERTS) {
                size_t old = AM_MAX_ALERTS;
                for (size_t i = 0; i < s->n; i++)
                        if (s->e[i].a.ends_ms && s->e[i].delivered &&
                            (old == AM_MAX_ALERTS || s->e[i].a.ends_ms < s->e[old].a.ends_ms))
                                old = i;
                if (old == AM_MAX_ALERTS)
                        return NULL;
                am_store_remove(s, old);
        }
        struct am_entry *e = &s->e[s->n++];
        memset(e, 0, sizeof(*e));
        e->a = *a;
        return e;
}

void am_store_remove(struct am_store *s, size_t i)
{
        if (i >= s->n)
                return;
        memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof(s->e[0]));
        s->n--;
}

size_t am_store_pending(const struct am_store *s)
{
        size_t n = 0;
        for (size_t i = 0; i < s->n; i++)
                n += !s->e[i].delivered;
        return n;
}
