/* SPDX-License-Identifier: Apache-2.0 */
/* Number formatting without printf, for per-sample rows. Each function writes exactly
 * the bytes glibc's snprintf writes for the format it names (doubles: in the default
 * rounding mode, round to nearest, ties to even on the exact binary value), without a
 * terminating NUL, and returns their count. out must have room for NUMFMT_MAX bytes. */
#ifndef VIGIL_UTIL_NUMFMT_H
#define VIGIL_UTIL_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Room enough for any output here (the longest: "-18446744073709549568.000", 25). */
#define NUMFMT_MAX 32

/* "%llu" of v. At most 20 bytes. */
size_t numfmt_u64(char *out, uint64_t v);
/* "0x%04llx" of v. At most 18 bytes. */
size_t numfmt_hex04(char *out, uint64_t v);
/* "%.*f" of v with decimals 0..3, exact for every finite |v| < 2^64, -0.0 and
 * subnormals included. Returns 0 (out unspecified) when it declines: decimals out of
 * range, NaN, infinities or |v| >= 2^64; the caller then uses snprintf. */
size_t numfmt_fixed(char *out, double v, int decimals);

#endif
