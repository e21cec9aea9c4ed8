/* SPDX-License-Identifier: Apache-2.0 */
/* events.log read back for a report: the lines of a time range, bounded, with a
 * count per event type. */
#ifndef VIGIL_REPORT_EVENTS_H
#define VIGIL_REPORT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define EVENTS_MAX_LINES 2000 /* the most recent lines of the range are kept */
#define EVENTS_LINE_LEN  256  /* longer lines are cut */
#define EVENTS_MAX_TYPES 32

struct event_line {
        double t; /* Unix time */
        char text[EVENTS_LINE_LEN];
};

struct event_list {
        struct event_line *v; /* ring of EVENTS_MAX_LINES, oldest at v[first] */
        size_t n, first;
        uint64_t in_range; /* lines of the range seen, kept or not */
        uint64_t unparsed; /* lines without a readable time stamp */
        unsigned ntypes;
        char type_name[EVENTS_MAX_TYPES][24];
        uint64_t type_count[EVENTS_MAX_TYPES];
        uint64_t other; /* lines of types beyond EVENTS_MAX_TYPES */
};

/* 0 or -ENOMEM. Free with events_free() (NULL-safe, idempotent). */
int events_init(struct event_list *l);
void events_free(struct event_list *l);

/* Read the file at path (plain or gzip), keeping the lines whose leading time stamp
 * lies in [t0, t1]. 1 when the file was read, 0 when it does not exist, -errno. */
int events_load(struct event_list *l, const char *path, double t0, double t1);
/* Add one line (without its newline) if its time stamp lies in [t0, t1]. */
void events_add_line(struct event_list *l, const char *s, size_t n, double t0, double t1);
/* The i-th kept line, oldest first (i < l->n). */
const struct event_line *events_get(const struct event_list *l, size_t i);

#endif
