/* SPDX-License-Identifier: Apache-2.0 */
/* A ring of variable-length records in one byte arena allocated once: the newest
 * records that fit both bounds (arena bytes and record count) are kept, the oldest
 * are dropped first. Records are stored whole (never split at the arena's end) and
 * 8-byte aligned, so a record may start with a struct. Used for kernel log lines,
 * which are mostly short but sometimes long: fixed slots would waste most of their
 * memory. */
#ifndef VIGIL_UTIL_LOGRING_H
#define VIGIL_UTIL_LOGRING_H

#include <stddef.h>
#include <stdint.h>

struct logring {
        unsigned char *arena;
        size_t size;      /* arena bytes, a multiple of 8 */
        uint32_t *off;    /* per record slot: offset in the arena */
        uint32_t *len;    /* per record slot: length in bytes */
        size_t cap;       /* record slots */
        size_t head;      /* slot of the oldest record */
        size_t count;     /* records held */
        size_t wpos;      /* where the next record goes (before wrapping) */
        uint64_t dropped; /* records evicted to make room */
};

/* Allocate an arena of bytes (rounded up to 8, at least 64, below 4 GiB) and
 * max_records slots (at least 1). 0, -EINVAL or -ENOMEM; free with logring_fini(). */
int logring_init(struct logring *r, size_t bytes, size_t max_records);
/* Free; accepts a zeroed or finished ring. */
void logring_fini(struct logring *r);

/* Make room for a new newest record of n bytes (n >= 1), dropping the oldest records
 * as needed, and return where to write it (8-byte aligned, n bytes). NULL when n can
 * never fit (more than the arena). The pointer is valid until the next push. */
void *logring_push(struct logring *r, size_t n);

/* Records held, and record i (0 = oldest) with its length, or NULL past the end. */
size_t logring_count(const struct logring *r);
const void *logring_get(const struct logring *r, size_t i, size_t *ret_len);

/* Bytes allocated (arena and slot arrays). */
size_t logring_memory_bytes(const struct logring *r);

#endif
