/* SPDX-License-Identifier: Apache-2.0 */
/* What the remote-write queue holds of one frame: its samples as the renderer hands
 * them over (metrics/metrics.h, metrics_visit), each a series key and a double, with no
 * exposition text to parse back:
 *
 *   "\0vs1"  then per sample  [u16 key length][key][u64 bits of the value]
 *
 * in host byte order (the queue never leaves the machine, as its headers). The key is
 * the one metrics_series_key writes ("name{labels}"), which is also how the encoder
 * groups series and the staleness markers compare frames; a marker is a sample whose
 * bits are RW_STALE_NAN_BITS. The caller compresses the record (snappy) for the queue.
 *
 * Queues written by vigil before this format hold a frame's /metrics sample lines
 * instead; those start with a metric name, never with NUL, so rw_enc_add_payload tells
 * the two apart and an upgrade sends what an older vigil queued. */
#ifndef VIGIL_PUSH_RW_RECORD_H
#define VIGIL_PUSH_RW_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/frame.h"
#include "push/rw_proto.h"

#define RW_REC_MAGIC     "\0vs1"
#define RW_REC_MAGIC_LEN 4

/* Whether p[0..len) is a sample record (else: sample lines of an older queue). */
bool rw_rec_is_samples(const void *p, size_t len);

/* Append one sample (key[0..keylen), value v) to the record buf[0..*len) of cap bytes,
 * starting the record when *len is 0. 0, or -E2BIG (no room, or a key over 65535
 * bytes: nothing appended). */
int rw_rec_put(char *buf, size_t cap, size_t *len, const char *key, size_t keylen, double v);

/* The sample at *pos of the record buf[0..len) (*pos 0 at first): its key (pointing into
 * buf) and value; *pos moves past it. 1 with a sample, 0 at the end, -EBADMSG for bytes
 * that are no record. */
int rw_rec_next(const char *buf, size_t len, size_t *pos, const char **ret_key, size_t *ret_keylen,
                double *ret_v);

/* The record of frame f (and x, may be NULL): every sample metrics_render would write,
 * in its order, into buf (cap bytes; *ret_len its length). Returns the sample count, or
 * -EINVAL (the render fails) / -E2BIG (a key too long, or no room): no record. */
int rw_rec_frame(char *buf, size_t cap, size_t *ret_len, const struct frame *f,
                 const struct counters *x);

/* Add the samples of the record buf[0..len) to e with timestamp ts_ms, markers
 * included. 0, -EBADMSG (nothing after the bad bytes is added), or rw_enc_add_sample's
 * errors. */
int rw_enc_add_record(struct rw_encoder *e, const char *buf, size_t len, int64_t ts_ms);

/* A queued payload, uncompressed: a sample record, or the /metrics sample lines an
 * older vigil queued (rw_enc_add_text). Returns what they return. */
int rw_enc_add_payload(struct rw_encoder *e, const char *buf, size_t len, int64_t ts_ms);

#endif
