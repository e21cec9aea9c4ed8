/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write queue: samples waiting to be pushed, on disk in the log directory,
 * so that an outage of the network or of the receiver, or a restart of vigil, loses
 * nothing that fits in the bound.
 *
 *   LOGDIR/remote-write/seg-0000000000000007.q   records, appended in time order
 *   LOGDIR/remote-write/cursor                   "7 18432\n": the first record not yet
 *                                                accepted by the receiver
 *
 * A record is one frame's samples (push/rw_record.h), snappy-compressed by the caller,
 * behind a 24-byte header (magic, payload length, timestamp, sample count, checksum;
 * host byte order: the queue never leaves the machine), written with one writev.
 * The cursor moves only after the receiver accepted a batch (rename of a temporary
 * file, so a crash leaves the old or the new one). Past the bound, whole segments are
 * dropped oldest first.
 *
 * Damage (an SD card's bit rot, a hand-copied file, a crash in the middle of a write)
 * costs the damaged bytes only, each case counted (repairs, and the samples a sound
 * header names) and said in one line: a record that does not check is skipped to the
 * next one that does; a torn record at the end of the last segment is cut; a segment
 * of a later format is renamed seg-N.q.unreadable and kept; a segment that cannot be
 * opened for appending is left as it is and the next number starts. Segment numbers
 * are read from the directory (a sorted list), never counted up to.
 *
 * A full file system: an append that finds no room gives the acknowledged bytes of the
 * cursor's segment back (a hole punched), then drops the oldest unsent frames, counted,
 * until the record fits; the cursor is rewritten in place when no temporary file fits,
 * so a restart never sends acknowledged frames again.
 *
 * Durability: rwq_sync, called every --sync-interval as the logs are, fdatasyncs the
 * segment appended to and writes the cursor durably (fdatasync, rename, fsync of the
 * directory), each only when it changed. A power loss then loses at most the frames
 * queued in the last interval, and re-sends at most the batches accepted in it. A
 * cursor write that fails (ENOSPC) leaves the cursor dirty: every later commit and
 * sync writes it again, and rwq_close tries once more, so a full disk that empties
 * does not leave a stale cursor behind to re-send delivered frames at the next start.
 *
 * Threads: the main loop appends, the sender reads and commits; one mutex inside. */
#ifndef VIGIL_PUSH_RW_QUEUE_H
#define VIGIL_PUSH_RW_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RWQ_DIR           "remote-write"
#define RWQ_MIN_BYTES     (64u * 1024u) /* smallest bound accepted */
#define RWQ_MAX_RECORD    (8u << 20)    /* largest payload of one record */
#define RWQ_DEFAULT_BYTES (64ull << 20) /* the default bound */

struct rwq_stats {
        uint64_t bytes;    /* on disk and not yet accepted (records and headers) */
        uint64_t samples;  /* samples waiting */
        uint64_t dropped;  /* samples dropped past the bound or for room on a full disk */
        uint64_t damaged;  /* samples lost to damage (those a sound header names) */
        uint64_t repairs;  /* damaged records skipped, torn tails cut, segments set aside */
        int64_t oldest_ms; /* time of the oldest waiting sample; 0 when empty */
};

/* One record read back. */
struct rwq_record {
        int64_t ts_ms;
        uint32_t nsamples;
        uint32_t len;
        uint8_t *payload; /* malloc'ed, owned by the batch */
};

/* Records read from the cursor on, and where the cursor goes once they are accepted. */
struct rwq_batch {
        struct rwq_record *recs;
        size_t n;
        uint64_t end_seq, end_off;
        uint64_t nsamples;
};

struct rw_queue; /* opaque */

/* Open (creating it) the queue directory under log_dir, bounded to max_bytes (at least
 * RWQ_MIN_BYTES). Reads the cursor, cuts a torn record at the end. *ret is owned by the
 * caller (rwq_close). 0 or -errno (the directory cannot be created or written). */
int rwq_open(const char *log_dir, uint64_t max_bytes, struct rw_queue **ret);

/* Close and free. Accepts NULL. */
void rwq_close(struct rw_queue *q);

/* Append one record (payload of len bytes, nsamples samples at ts_ms). Past the bound,
 * or without room on the disk, the oldest frames go; *ret_dropped (may be NULL) gets
 * the samples they held. 0, or -errno of the write (ENOSPC with nothing left to drop,
 * EROFS, EIO: nothing of the record stays on disk). */
int rwq_append(struct rw_queue *q, int64_t ts_ms, uint32_t nsamples, const void *payload,
               size_t len, uint64_t *ret_dropped);

/* Read up to max_records records (at most max_bytes of payload, at least one record)
 * from the cursor into *ret (rwq_batch_free). An empty batch when nothing waits. 0 or
 * -errno. Bytes that do not check are skipped to the next record that does (counted
 * and said once; the batch's end is past them). */
int rwq_read(struct rw_queue *q, size_t max_records, size_t max_bytes, struct rwq_batch *ret);

/* The receiver accepted (or for good refused) batch b: move the cursor past it and
 * delete the segments it finished. 0 or -errno (the cursor file could not be written;
 * the records may then be sent again after a restart). */
int rwq_commit(struct rw_queue *q, const struct rwq_batch *b);

/* Make what was appended and committed durable (see above). 0 or -errno of the first
 * step that failed (it is tried again at the next call). */
int rwq_sync(struct rw_queue *q);

/* Free the records of b and clear it. */
void rwq_batch_free(struct rwq_batch *b);

/* A consistent copy of the counters. */
void rwq_get_stats(struct rw_queue *q, struct rwq_stats *ret);

#endif
