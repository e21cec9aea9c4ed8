/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write sink (--remote-write URL): every push interval (rounded to a whole
 * number of host samples, at least one) the frame's /metrics
 * series go into the on-disk queue (push/rw_queue.h) with the frame's time; a sender
 * thread pushes the queue oldest first with Prometheus remote-write 1.0 and removes a
 * batch only once the receiver took it. */
#ifndef VIGIL_PUSH_REMOTE_WRITE_H
#define VIGIL_PUSH_REMOTE_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vigil.h"

#define RW_BATCH_RECORDS   120        /* frames in one request at most */
#define RW_BATCH_BYTES     (2u << 20) /* compressed queue bytes in one request at most */
#define RW_BACKOFF_MIN_MS  500
#define RW_BACKOFF_MAX_MS  (5LL * 60 * 1000)
#define RW_RETRY_AFTER_MAX (10LL * 60) /* a longer Retry-After is cut to this (s) */
#define RW_EXIT_BUDGET_MS  5000        /* the bounded send attempt at exit */

#define RW_FULL_WARN_NS (10LL * 60 * 1000000000LL) /* queue-full warnings at most this often */

extern const struct vigil_sink vigil_sink_remote_write;

/* The warning about samples dropped past the queue bound: said when dropping starts,
 * then at most every RW_FULL_WARN_NS while it goes on, with the count since the last
 * one, so a queue that stays full is neither silent after its first message nor a
 * line per frame. Main loop only; a zeroed struct is ready. */
struct rw_full_warn {
        int64_t last_ns; /* CLOCK_MONOTONIC of the last warning */
        bool said;       /* a warning was given */
        uint64_t unsaid; /* samples dropped since it */
};

/* Count `dropped` more samples at mono_ns. Returns the samples to report now (those
 * since the last warning), or 0 when the warning waits. */
uint64_t rw_full_warn_due(struct rw_full_warn *w, int64_t mono_ns, uint64_t dropped);

/* Refused requests summed up (HTTP 400, 413, a clock out of the receiver's bounds can
 * refuse every push): the first said at once, then at most one line every
 * RW_FULL_WARN_NS with the requests and samples refused since, and the last reason.
 * Sender thread only; a zeroed struct is ready. */
struct rw_refusals {
        struct rw_full_warn w; /* the samples refused, and when the last line was */
        uint64_t unsaid;       /* requests refused since the last line */
        char why[320];         /* the last one's reason */
};

/* Count one request of `samples` refused at mono_ns for why. Returns the requests to
 * report now (*ret_samples their samples, r->why the last reason), or 0 when the line
 * waits. With samples 0, reports what waits (at exit). */
uint64_t rw_refusals_due(struct rw_refusals *r, int64_t mono_ns, uint64_t samples, const char *why,
                         uint64_t *ret_samples);

/* The delay before retry number `failures` (1 = after the first failure): doubling from
 * RW_BACKOFF_MIN_MS up to max_ms, then a random part of it (jitter, from *rng, a
 * xorshift state) so a fleet that lost its receiver together does not return together:
 * the result lies in [d/2, d]. A Retry-After (retry_after_s > 0) wins, up to
 * RW_RETRY_AFTER_MAX. */
int64_t rw_backoff_ms(unsigned failures, int64_t max_ms, int64_t retry_after_s, uint64_t *rng);

#endif
