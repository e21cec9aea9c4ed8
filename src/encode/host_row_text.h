/* SPDX-License-Identifier: Apache-2.0 */
/* The host row's CSV text for the current host tick, formatted once however many writers
 * need it: the host CSV sink and the Pi incident detector (which keeps the last rows for
 * its snapshots) both write the same row, and formatting it (printf of some 40 doubles)
 * is the largest part of a quiet Pi tick's own work (bench/RESULTS.md, section 16). */
#ifndef VIGIL_ENCODE_HOST_ROW_TEXT_H
#define VIGIL_ENCODE_HOST_ROW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "encode/host_row_csv.h"

/* Room for one row: VIGIL_MAX_CPUS cores and every watch's columns. */
#define HOST_ROW_TEXT_MAX (VIGIL_MAX_CPUS * 8 + 1024 + VIGIL_MAX_WATCHES * 100)

struct host_row_text {
        bool valid;         /* text holds the row of tick seq at ncpu columns */
        uint64_t seq;       /* the host clock's tick (struct tick seq[VCLOCK_HOST]) */
        unsigned ncpu;      /* the width it was formatted at */
        struct host_row hr; /* the row's values (host_row_build) */
        size_t len;
        char text[HOST_ROW_TEXT_MAX];
};

/* The CSV row (ending with '\n', len bytes in c->len) of frame f for host tick seq at
 * ncpu cores. Built and formatted into c only when c does not already hold that tick at
 * that width, so every writer of one tick shares one formatting; the frame must not
 * change between the calls of one tick (detectors and sinks only read the host values).
 * Returns c->text, or NULL when the row does not fit (not expected: the room is sized
 * for the largest row). c->hr holds the values either way. */
const char *host_row_text(struct host_row_text *c, const struct frame *f, uint64_t seq,
                          unsigned ncpu);

#endif
