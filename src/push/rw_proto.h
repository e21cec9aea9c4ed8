/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus remote-write 1.0 request body, before compression: a protobuf
 * WriteRequest built from the samples of one or more frames.
 *
 * Input is samples, each a series key as the exposition writes it ("name{k=\"v\"}") and
 * a double (rw_enc_add_sample, fed from the queue's sample records, push/rw_record.h),
 * or the sample lines of the exposition format an older vigil queued
 * (rw_enc_add_text), each batch with the frame's own time. Samples of one series are
 * grouped into one TimeSeries in the order they were added (time order when frames are
 * added oldest first). Labels are __name__, the key's labels and the extra labels (a
 * key's own label wins a clash), sorted by name as the protocol requires. A series repeated within one timestamp keeps its first
 * sample: a receiver refuses a whole request with a duplicate in it.
 *
 * Hand-encoded rather than generated with protobuf-c: the message is four small types
 * with five scalar fields, all written once, never read back; a generated encoder
 * would need its own run-time library loaded at run time plus an intermediate tree of
 * allocated structs per sample, for the same bytes. The tests decode the output with
 * an independent decoder and Prometheus itself takes it. */
#ifndef VIGIL_PUSH_RW_PROTO_H
#define VIGIL_PUSH_RW_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define RW_MAX_SERIES 65536 /* distinct series in one request */

/* A staleness marker: the NaN Prometheus reads as "this series ended here"
 * (prometheus/model/value/value.go, StaleNaN = 0x7ff0000000000002; the remote-write
 * 1.0 spec requires a sender to write one when a series disappears). A sample record
 * holds these bits; the text records of an older queue wrote the value RW_STALE_TOKEN,
 * which no exposition line has. */
#define RW_STALE_NAN_BITS 0x7ff0000000000002ULL
#define RW_STALE_TOKEN    "StaleNaN"

struct rw_label {
        char name[64];
        char value[256];
};

struct rw_series; /* one series and its samples (rw_proto.c) */

struct rw_encoder {
        const struct rw_label *extra; /* borrowed, sorted or not */
        size_t nextra;
        struct rw_series **slots; /* open-addressing table of series, by text key */
        size_t nslots;
        struct rw_series **order; /* series in the order first seen */
        size_t nseries;
        size_t nsamples;
};

/* Start an empty request; extra (nextra labels, borrowed until rw_enc_free) goes on
 * every series. 0 or -ENOMEM. */
int rw_enc_init(struct rw_encoder *e, const struct rw_label *extra, size_t nextra);

/* Add one sample of series key[0..keylen) (name{labels} as metrics_series_key writes
 * it) with value v (RW_STALE_NAN_BITS: a staleness marker) at ts_ms. 0, -EINVAL for an
 * empty or too long key, -E2BIG past RW_MAX_SERIES, -ENOMEM. The key's labels are
 * split once per series, by rw_enc_finish. */
int rw_enc_add_sample(struct rw_encoder *e, const char *key, size_t keylen, double v,
                      int64_t ts_ms);

/* Add the sample lines of text[0..len) with timestamp ts_ms (ms since the epoch).
 * A value RW_STALE_TOKEN is a staleness marker. Comment and blank lines are skipped.
 * 0; -EINVAL for a malformed line (nothing of
 * that line is added, the lines before it are); -E2BIG past RW_MAX_SERIES; -ENOMEM. */
int rw_enc_add_text(struct rw_encoder *e, const char *text, size_t len, int64_t ts_ms);

/* The WriteRequest of everything added: a malloc'ed buffer in *ret_buf (owned by the
 * caller, free()) of *ret_len bytes. 0, -EINVAL for a series whose labels do not parse,
 * or -ENOMEM. */
int rw_enc_finish(struct rw_encoder *e, uint8_t **ret_buf, size_t *ret_len);

/* Length of the series key at the start of line[0..n): the name, and the {labels}
 * block when there is one (quoted values may hold spaces and braces), up to the blank
 * before the value. 0 if malformed. */
size_t rw_series_key_len(const char *line, size_t n);

/* Free everything the encoder holds (not extra). Accepts a zeroed encoder. */
void rw_enc_free(struct rw_encoder *e);

#endif
