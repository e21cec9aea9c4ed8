/* SPDX-License-Identifier: Apache-2.0 */
/* events.log for reports. See events.h.
 *
 * Sample line: "2026-12-02T18:12:47.123456 type=TDP_CHANGE from=350W to=300W delta=-50W"
 * The type is the value of a "type=" word, or else the first word after the time. */
#include "report/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/zlib_lib.h"

#include "report/tstamp.h"
#include "util/parse.h"

#define READ_CHUNK    (256 * 1024)
#define LINE_MAX_READ 4096 /* the part of a line looked at */

int events_init(struct event_list *l)
{
        memset(l, 0, sizeof(*l));
        l->v = calloc(EVENTS_MAX_LINES, sizeof(*l->v));
        return l->v ? 0 : -ENOMEM;
}

void events_free(struct event_list *l)
{
        if (!l)
                return;
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

const struct event_line *events_get(const struct event_list *l, size_t i)
{
        return &l->v[(l->first + i) % EVENTS_MAX_LINES];
}

/* The event type of the text after the time stamp. */
static void event_type(const char *s, size_t n, const char **ret, size_t *ret_len)
{
        struct cursor c = cur_make(s, n);
        const char *w;
        size_t wn;
        const char *first = NULL;
        size_t first_len = 0;
        while (cur_word(&c, &w, &wn) == 0) {
                if (wn > 5 && memcmp(w, "type=", 5) == 0) {
                        *ret = w + 5;
                        *ret_len = wn - 5;
                        return;
                }
                if (!first) {
                        first = w;
                        first_len = 0;
                        while (first_len < wn && w[first_len] != '=' && w[first_len] != ':')
                                first_len++;
                }
        }
        *ret = first ? first : "?";
        *ret_len = first ? first_len : 1;
}

static void count_type(struct event_list *l, const char *s, size_t n)
{
        char name[24];
        copy_bounded(name, sizeof(name), s, n);
        for (unsigned i = 0; i < l->ntypes; i++) {
                if (strcmp(l->type_name[i], name) == 0) {
                        l->type_count[i]++;
                        return;
                }
        }
        if (l->ntypes == EVENTS_MAX_TYPES) {
                l->other++;
                return;
        }
        memcpy(l->type_name[l->ntypes], name, sizeof(name));
        l->type_count[l->ntypes++] = 1;
}

void events_add_line(struct event_list *l, const char *s, size_t n, double t0, double t1)
{
        struct tstamp_cache tc = {0};
        double t;
        if (n && s[n - 1] == '\r')
                n--;
        if (n == 0)
                return;
        if (tstamp_parse(&tc, s, n, &t) < 0) {
                l->unparsed++;
                return;
        }
        if (t < t0 || t > t1)
                return;
        l->in_range++;
        const char *sp = memchr(s, ' ', n);
        size_t rest = sp ? (size_t)(s + n - sp) : 0;
        const char *type;
        size_t type_len;
        event_type(sp ? sp : s + n, rest, &type, &type_len);
        count_type(l, type, type_len);
        struct event_line *e;
        if (l->n < EVENTS_MAX_LINES) {
                e = &l->v[(l->first + l->n++) % EVENTS_MAX_LINES];
        } else {
                e = &l->v[l->first];
                l->first = (l->first + 1) % EVENTS_MAX_LINES;
        }
        e->t = t;
        copy_bounded(e->text, sizeof(e->text), s, n);
}

/* Feed each complete line of buf[0..*len) to the list; keep the unfinished tail. */
static void feed_lines(struct event_list *l, char *buf, size_t *len, double t0, double t1)
{
        size_t start = 0;
        for (;;) {
                char *nl = memchr(buf + start, '\n', *len - start);
                if (!nl)
                        break;
                size_t n = (size_t)(nl - (buf + start));
                events_add_line(l, buf + start, n < LINE_MAX_READ ? n : LINE_MAX_READ, t0, t1);
                start += n + 1;
        }
        if (start == 0 && *len == READ_CHUNK) {
                /* One line longer than the buffer: look at its start, drop the rest. */
                events_add_line(l, buf, LINE_MAX_READ, t0, t1);
                *len = 0;
                return;
        }
        memmove(buf, buf + start, *len - start);
        *len -= start;
}

int events_load(struct event_list *l, const char *path, double t0, double t1)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        struct zlib_lib z;
        char why[256];
        if (zlib_lib_open(&z, why, sizeof(why)) < 0) {
                close(fd);
                return -ENOENT;
        }
        gzFile gz = z.gzdopen(fd, "rb");
        if (!gz) {
                close(fd);
                zlib_lib_close(&z);
                return -ENOMEM;
        }
        char *buf = malloc(READ_CHUNK);
        int ret = 1;
        if (!buf) {
                ret = -ENOMEM;
                goto out_close;
        }
        size_t len = 0;
        for (;;) {
                int n = z.gzread(gz, buf + len, (unsigned)(READ_CHUNK - len));
                if (n <= 0)
                        break;
                len += (size_t)n;
                feed_lines(l, buf, &len, t0, t1);
        }
        /* A last line without its newline is still a line. */
        if (len)
                events_add_line(l, buf, len < LINE_MAX_READ ? len : LINE_MAX_READ, t0, t1);
        free(buf);
out_close:
        z.gzclose_r(gz);
        zlib_lib_close(&z);
        return ret;
}
