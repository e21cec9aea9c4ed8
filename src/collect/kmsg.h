/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log, read from /dev/kmsg into a bounded in-memory ring, so the lines
 * around a crash are already in memory when a snapshot is written, even if the
 * kernel's own ring has wrapped since.
 *
 * One /dev/kmsg record per read(2), "prio,seq,usec,flags;text\n", followed by
 * continuation lines that start with a space and hold KEY=VALUE dictionary
 * entries (skipped):
 *   6,1043,5140900,-;NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
 *    SUBSYSTEM=pci
 *
 * Fixture convention (tests): when ROOT/dev/kmsg is a regular file, it is read as a
 * sequence of such records, one per line, continuation lines starting with a space.
 * A regular file cannot return one record per read(2), so the reader reads it from
 * where it stopped (at most 1 MB per drain), splits it into lines, and remembers the
 * offset after the last complete line: a later drain returns only the lines a test
 * appended since. Lines must end with '\n'; an unterminated last line waits for its
 * newline. When ROOT/dev/kmsg is a FIFO, each write(2) to it holds one or more whole
 * records, one per line; the reader holds it open for writing too, so it never reads
 * end-of-file, and it can be waited on with poll(2) as the device can (kmsg_poll_fd). */
#ifndef VIGIL_COLLECT_KMSG_H
#define VIGIL_COLLECT_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define KMSG_TEXT_MAX         512           /* bytes kept of a record's text, NUL included */
#define KMSG_DEFAULT_RECORDS  512           /* records the ring keeps by default */
#define KMSG_MAX_RECORDS      4096          /* the most a ring may be asked to keep */
#define KMSG_AVG_RECORD_BYTES 160           /* ring bytes per record asked for (see kmsg_open) */
#define KMSG_READ_MAX         8192          /* read(2) buffer: the kernel's largest record */
#define KMSG_FILE_DRAIN_MAX   (1024 * 1024) /* fixture bytes read per drain */

/* One kernel log record. */
struct kmsg_record {
        uint64_t seq;  /* the kernel's 64-bit sequence number */
        uint64_t usec; /* microseconds since boot (the kernel's monotonic clock) */
        unsigned prio; /* syslog facility << 3 | level, as the kernel writes it */
        unsigned len;  /* bytes in text */
        bool cut;      /* the text was longer than KMSG_TEXT_MAX - 1 and was cut */
        /* NUL-terminated. Control bytes are escaped as \xNN, as the kernel does. */
        char text[KMSG_TEXT_MAX];
};

/* Parse one record: the first line of buf[0..n) ("prio,seq,usec[,more];text");
 * anything after the first '\n' (continuation lines) is ignored. Pure, bounded,
 * buf need not be NUL-terminated. 0, or -EINVAL when the line is not a record
 * (*ret is then untouched). */
int kmsg_parse_record(const char *buf, size_t n, struct kmsg_record *ret);

/* dmesg's timestamp for usec since boot: "[ 1234.567890]" (seconds right-aligned
 * in 5 columns, as dmesg and the kernel print them). Returns the length. */
size_t kmsg_format_time(char *out, size_t cap, uint64_t usec);

/* What a snapshot shows of the kernel log: a table (kmsg_filters), not code. */
enum kmsg_filter {
        KMSG_FILTER_GPU,   /* NVIDIA driver and GPU errors, last 100 */
        KMSG_FILTER_ALL,   /* every line, last 200 */
        KMSG_FILTER_AER,   /* PCIe AER errors, last 20 */
        KMSG_FILTER_POWER, /* voltage and thermal lines (Raspberry Pi), last 50 */
        KMSG_FILTER_COUNT
};

struct kmsg_filter_def {
        const char *title;   /* the snapshot section title */
        const char *pattern; /* POSIX extended regex, case-insensitive; NULL = all */
        unsigned last;       /* how many of the newest matching lines are shown */
};

/* Indexed by enum kmsg_filter. */
extern const struct kmsg_filter_def kmsg_filters[KMSG_FILTER_COUNT];

struct kmsg_stats {
        uint64_t records;   /* records taken into the ring */
        uint64_t lost;      /* records skipped by sequence number (overwritten unread) */
        uint64_t overruns;  /* EPIPE: the reader fell behind the kernel's ring */
        uint64_t oversize;  /* EINVAL: a record larger than the read buffer, skipped */
        uint64_t malformed; /* lines that were not records */
};

struct kmsg; /* opaque: the reader and its ring */

/* Open ROOT/dev/kmsg ("" or NULL root: /) non-blocking, keeping the newest records in
 * a ring of nrecords * KMSG_AVG_RECORD_BYTES bytes and at most nrecords records
 * (0: KMSG_DEFAULT_RECORDS; at most KMSG_MAX_RECORDS). A record takes 24 bytes plus
 * its text, so the ring holds nrecords typical lines (about 130 characters) and fewer
 * long ones. Memory, allocated here once: about nrecords * 170 bytes (512: 85 KiB).
 * The filter regexes are compiled here, once. A log that cannot be opened is not an
 * error: the reader stays usable (empty) and kmsg_error() says why. Returns 0 or
 * -ENOMEM; the caller owns *ret (kmsg_close). Reads nothing yet: call kmsg_drain(). */
int kmsg_open(struct kmsg **ret, const char *root, unsigned nrecords);

/* Read every record the kernel has ready (non-blocking) into the ring: the first
 * drain after open takes what the kernel still holds (as dmesg would show it).
 * EPIPE (the kernel overwrote records before they were read) and oversize records
 * are counted and skipped, not errors. Bounded: at most 4096 records or
 * KMSG_FILE_DRAIN_MAX fixture bytes per call. Returns the number of new records, or
 * -errno when the log is unreadable (the same error every time; nothing logged). */
int kmsg_drain(struct kmsg *k);

/* The descriptor to wait on with poll(2) for new records (POLLIN; POLLERR too when the
 * kernel overwrote records not yet read: kmsg_drain counts them and goes on): the
 * device, or a fixture FIFO. -1 when there is none to wait on (k NULL, the log
 * unreadable, or a fixture file, which poll(2) always finds readable: drain it on a
 * clock instead). Owned by k. */
int kmsg_poll_fd(const struct kmsg *k);

/* The caller's wait on kmsg_poll_fd() has just ended (k may be NULL): quiet is true
 * when the wait watched the descriptor until its deadline and found nothing to read,
 * false for any other end (lines came, a signal, a deadline already past, no descriptor
 * waited on). */
void kmsg_note_wait(struct kmsg *k, bool quiet);

/* kmsg_drain(k), unless the last kmsg_note_wait said quiet: then 0, with no read (a line
 * written since makes the next wait end at once, and that wake drains it). */
int kmsg_drain_pending(struct kmsg *k);

/* Drain until the kernel (or the fixture file) has nothing more ready, at most
 * max_calls kmsg_drain() calls, then remember the newest record's sequence number
 * as the start position: what a reader scanning for new lines takes as already
 * there (kmsg_start_seq). Returns what the last kmsg_drain() returned. */
int kmsg_drain_to_start(struct kmsg *k, unsigned max_calls);
/* The start position kmsg_drain_to_start() set: true and *ret_seq when records were
 * there at start (new ones have greater sequence numbers); false when there were none
 * (every record is new). */
bool kmsg_start_seq(const struct kmsg *k, uint64_t *ret_seq);

/* Why the kernel log cannot be read, as one line for a person ("kernel log not
 * readable (/dev/kmsg: Operation not permitted): run as root or grant CAP_SYSLOG");
 * NULL when it is readable. The string is owned by k. */
const char *kmsg_error(const struct kmsg *k);
/* kmsg_error(), but only the first time it is asked: for a one-time log message. */
const char *kmsg_take_error(struct kmsg *k);

/* A reader of every record as it is taken (kmsg_drain()), before the ring may drop it:
 * a scanner that must see every line, however many arrive between two of its ticks.
 * Up to KMSG_TAPS_MAX taps per reader, told apart by arg, called in the order they were
 * set: setting fn for an arg already tapped replaces its fn; fn NULL removes arg's tap
 * (arg NULL too: every tap). fn runs inside kmsg_drain(), on the caller's thread, and
 * must not drain k itself. 0, or -ENOSPC when KMSG_TAPS_MAX taps are set already. */
#define KMSG_TAPS_MAX 4
typedef void (*kmsg_tap_fn)(void *arg, const struct kmsg_record *rec);
int kmsg_set_tap(struct kmsg *k, kmsg_tap_fn fn, void *arg);

/* Records in the ring, and a copy of record i (0 = oldest): false past the end. */
size_t kmsg_count(const struct kmsg *k);
bool kmsg_get(const struct kmsg *k, size_t i, struct kmsg_record *ret);
/* The index of the oldest record newer than seq (kmsg_count() when there is none):
 * a caller that remembers the last sequence number it scanned (for Xid lines) reads
 * only what is new. Binary search: the kernel's sequence numbers only grow. */
size_t kmsg_index_after(const struct kmsg *k, uint64_t seq);
void kmsg_get_stats(const struct kmsg *k, struct kmsg_stats *ret);

/* Append, for a snapshot section, the newest kmsg_filters[f].last records that
 * match filter f, oldest first, one dmesg-style line each ("[   12.345678] text").
 * With nothing to show it appends one line in parentheses saying why (unreadable,
 * no match). k may be NULL (the kernel log is not collected). */
void kmsg_format(const struct kmsg *k, enum kmsg_filter f, struct strbuf *out);

/* True when text matches filter f (for a caller scanning new records). */
bool kmsg_matches(const struct kmsg *k, enum kmsg_filter f, const char *text);

/* Close the log and free everything; accepts NULL. */
void kmsg_close(struct kmsg *k);

#endif
