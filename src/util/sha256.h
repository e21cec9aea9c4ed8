/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 (FIPS 180-4), for keyed digests kept in memory instead of secrets (the HTTP
 * server's cache of verified credentials). Not for anything that needs speed. */
#ifndef VIGIL_UTIL_SHA256_H
#define VIGIL_UTIL_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

struct sha256 {
        uint32_t h[8];
        uint64_t total; /* bytes hashed so far */
        unsigned char block[64];
        size_t used; /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* Write the digest of everything passed to sha256_update; s must be re-initialised
 * before reuse. */
void sha256_final(struct sha256 *s, unsigned char out[SHA256_DIGEST_LEN]);

/* True when a[0..n) equals b[0..n), taking the same time wherever they differ. */
bool ct_equal(const void *a, const void *b, size_t n);

#endif
