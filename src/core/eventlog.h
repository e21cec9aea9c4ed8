/* SPDX-License-Identifier: Apache-2.0 */
/* events.log: one line per event, "ISO-TIMESTAMP text", appended with one write(2),
 * rotated to events.log.1 past 50 MB (the reference logger's rule). Main thread only. */
#ifndef VIGIL_CORE_EVENTLOG_H
#define VIGIL_CORE_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/event_kinds.h"
#include "util/fssync.h"

#define EVENTLOG_MAX_BYTES (50ULL * 1024 * 1024)

struct eventlog;

/* Open DIR/events.log (created 0640). 0 or -errno; *ret owned by the caller. */
int eventlog_open(struct eventlog **ret, const char *dir);
/* An events log that writes no file (--no-log): its lines only reach the tap. 0 or
 * -ENOMEM; *ret owned by the caller. */
int eventlog_open_none(struct eventlog **ret);

/* Called with the text of every line (after the timestamp, without the newline; len
 * bytes, NUL-terminated), before it is written, also while writing is paused. */
typedef void (*eventlog_tap_fn)(void *arg, int64_t real_ns, const char *text, size_t len);
/* Set (or with fn NULL clear) the tap of el; el may be NULL. */
void eventlog_set_tap(struct eventlog *el, eventlog_tap_fn fn, void *arg);

/* Append "TIMESTAMP " + formatted text + "\n" (local time with microseconds, as
 * Python's datetime.isoformat()). Lines are capped at 4 KB. Failures are counted. */
void eventlog_printf(struct eventlog *el, int64_t real_ns, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append the line of an event of kind kind: "TIMESTAMP type=NAME " (NAME from kind's
 * row in core/event_kinds.c) + formatted text (its key=value words) + "\n", as
 * eventlog_printf(). Every event line is written through a kind's row. */
void eventlog_event(struct eventlog *el, int64_t real_ns, enum event_kind kind, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
/* Reopen by name (SIGHUP after external rotation). */
void eventlog_reopen(struct eventlog *el);
int eventlog_sync(struct eventlog *el);
/* eventlog_sync within a sync round (util/fssync.h): synced at fssync_end when the
 * file is on the round's file system, else now. fs may be NULL. */
int eventlog_sync_in(struct eventlog *el, struct fssync *fs);
uint64_t eventlog_write_errors(const struct eventlog *el);
uint64_t eventlog_lines(const struct eventlog *el);
/* Pause or resume writing (disk guard); paused lines are counted as dropped. */
void eventlog_set_paused(struct eventlog *el, int paused);
/* Close and free; accepts NULL. */
void eventlog_close(struct eventlog *el);

#endif
