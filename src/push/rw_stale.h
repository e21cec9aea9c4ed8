/* SPDX-License-Identifier: Apache-2.0 */
/* Staleness markers for the remote-write push: the series that were in the last frame
 * queued and are not in this one (a GPU lost, a sensor gone, a watch with no process
 * left) each get one sample of value StaleNaN in this frame, so the receiver ends them at
 * once instead of showing the last value for its lookback (5 minutes in Prometheus).
 * Prometheus does the same for a scrape target's series that vanish
 * (scrape/scrape.go, staleness markers); remote-write 1.0 requires it of a sender.
 *
 * A clean stop marks every series of the last frame (push/remote_write.c: rw_stale_mark
 * on a record without samples). Main loop only. The set of the last frame's series lives
 * in memory: after a crash and restart the first frame has no markers (the receiver's
 * lookback ends those series). */
#ifndef VIGIL_PUSH_RW_STALE_H
#define VIGIL_PUSH_RW_STALE_H

#include <stddef.h>
#include <stdint.h>

#define RW_STALE_MAX_SERIES 65536 /* series remembered; past it, no markers that frame */

struct rw_stale {
        char *prev, *next; /* series keys, one a line: the last frame queued, this one */
        size_t prev_len, next_len, cap;
        uint64_t *slots; /* this frame's keys: offset + 1 into next, 0 = free */
        size_t nslots;
};

/* Append to the sample record rec[0..*len) (push/rw_record.h; cap bytes in all) a
 * marker (the series' key, value StaleNaN) for each series of the last frame kept
 * (rw_stale_keep) that is not in this record, and remember this frame's series for
 * rw_stale_keep. Returns the number of markers added; 0 when none, or -ENOMEM / -E2BIG
 * / -EBADMSG (nothing added: past RW_STALE_MAX_SERIES, no room, not a record). */
int rw_stale_mark(struct rw_stale *st, char *rec, size_t *len, size_t cap);

/* The frame of the last rw_stale_mark was queued: it is now the one to compare with.
 * Not called when it could not be queued, so its markers go with the next frame. */
void rw_stale_keep(struct rw_stale *st);

/* Free what st holds and clear it. Accepts a zeroed st. */
void rw_stale_free(struct rw_stale *st);

#endif
