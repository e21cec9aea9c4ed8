/* SPDX-License-Identifier: Apache-2.0 */
/* events.log writer. See eventlog.h. */
#include "core/eventlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/event_kinds.h"
#include "util/fmt.h"
#include "util/hot.h"

struct eventlog {
        char path[1100];
        char rotated[1100];
        int fd;
        uint64_t size;
        uint64_t lines;
        uint64_t errors;
        int paused;
        bool no_file;            /* eventlog_open_none: lines only reach the tap */
        struct fssync_file sync; /* lines written and not yet synced (util/fssync.h) */
        dev_t dev;               /* the file's device (st_dev): whose syncfs covers it */
        eventlog_tap_fn tap;
        void *tap_arg;
};

static int el_openfd(struct eventlog *el)
{
        el->fd = open(el->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (el->fd < 0)
                return -errno;
        struct stat st;
        bool known = fstat(el->fd, &st) == 0;
        el->size = known ? (uint64_t)st.st_size : 0;
        el->dev = known ? st.st_dev : 0;
        return 0;
}

/* Close the file, its lines made durable first when they are not (a rotation or a
 * reopen keeps the loss bound of the sync rounds; a failed sync is counted). */
static void el_closefd(struct eventlog *el)
{
        if (el->fd < 0)
                return;
        if (el->sync.unsynced && fdatasync(el->fd) < 0)
                el->errors++;
        el->sync = (struct fssync_file){0};
        close(el->fd);
        el->fd = -1;
}

int eventlog_open(struct eventlog **ret, const char *dir)
{
        struct eventlog *el = calloc(1, sizeof(*el));
        if (!el)
                return -ENOMEM;
        snprintf(el->path, sizeof(el->path), "%s/events.log", dir);
        snprintf(el->rotated, sizeof(el->rotated), "%s/events.log.1", dir);
        int r = el_openfd(el);
        if (r < 0) {
                free(el);
                return r;
        }
        *ret = el;
        return 0;
}

int eventlog_open_none(struct eventlog **ret)
{
        struct eventlog *el = calloc(1, sizeof(*el));
        if (!el)
                return -ENOMEM;
        el->fd = -1;
        el->no_file = true;
        *ret = el;
        return 0;
}

void eventlog_set_tap(struct eventlog *el, eventlog_tap_fn fn, void *arg)
{
        if (!el)
                return;
        el->tap = fn;
        el->tap_arg = arg;
}

/* Write one line: the time, "type=NAME " when kind is a kind (>= 0), the text. */
static void put_line(struct eventlog *el, int64_t real_ns, int kind, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void put_line(struct eventlog *el, int64_t real_ns, int kind, const char *fmt, va_list ap)
{
        char line[4096];
        size_t n = fmt_time_iso_us(line, sizeof(line), real_ns);
        line[n++] = ' ';
        size_t text = n;
        if (kind >= 0) {
                struct strbuf sb;
                sb_init_fixed(&sb, line + n, sizeof(line) - n - 1);
                event_begin(&sb, (enum event_kind)kind);
                sb_putc(&sb, ' ');
                n += sb.len;
        }
        int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
        if (m < 0)
                m = 0;
        n += (size_t)m;
        if (n > sizeof(line) - 2)
                n = sizeof(line) - 2;
        if (el->tap)
                el->tap(el->tap_arg, real_ns, line + text, n - text);
        if (el->no_file)
                return;
        if (el->paused) {
                el->errors++;
                return;
        }
        line[n++] = '\n';
        if (el->size + n > EVENTLOG_MAX_BYTES) {
                el_closefd(el);
                rename(el->path, el->rotated);
                el_openfd(el);
        }
        if (el->fd < 0 && el_openfd(el) < 0) {
                el->errors++;
                return;
        }
        ssize_t w = write(el->fd, line, n);
        if (w == (ssize_t)n) {
                el->size += n;
                el->lines++;
                fssync_file_wrote(&el->sync);
                return;
        }
        if (w > 0 && ftruncate(el->fd, (off_t)el->size) < 0)
                el->errors++;
        el->errors++;
}

void eventlog_printf(struct eventlog *el, int64_t real_ns, const char *fmt, ...)
{
        va_list ap;
        if (!el)
                return;
        va_start(ap, fmt);
        put_line(el, real_ns, -1, fmt, ap);
        va_end(ap);
}

void eventlog_event(struct eventlog *el, int64_t real_ns, enum event_kind kind, const char *fmt,
                    ...)
{
        va_list ap;
        if (!el)
                return;
        va_start(ap, fmt);
        put_line(el, real_ns, (int)kind, fmt, ap);
        va_end(ap);
}

void eventlog_reopen(struct eventlog *el)
{
        if (!el || el->no_file)
                return;
        el_closefd(el);
        el_openfd(el);
}

int eventlog_sync(struct eventlog *el)
{
        if (!el || el->fd < 0 || !el->sync.unsynced)
                return 0;
        if (fdatasync(el->fd) < 0)
                return -errno;
        el->sync = (struct fssync_file){0};
        return 0;
}

VIGIL_HOT int eventlog_sync_in(struct eventlog *el, struct fssync *fs)
{
        if (!el || el->fd < 0 || !el->sync.unsynced)
                return 0;
        if (fssync_cover(fs, el->dev, el->fd, &el->sync) == 0)
                return 0; /* synced at the round's end */
        return eventlog_sync(el);
}

uint64_t eventlog_write_errors(const struct eventlog *el)
{
        return el ? el->errors : 0;
}

uint64_t eventlog_lines(const struct eventlog *el)
{
        return el ? el->lines : 0;
}

void eventlog_set_paused(struct eventlog *el, int paused)
{
        if (el)
                el->paused = paused;
}

void eventlog_close(struct eventlog *el)
{
        if (!el)
                return;
        el_closefd(el);
        free(el);
}
