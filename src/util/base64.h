/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64 (RFC 4648, section 4), decoding only: basic auth's credentials and the
 * PEM certificates of the HTTPS server. */
#ifndef VIGIL_UTIL_BASE64_H
#define VIGIL_UTIL_BASE64_H

#include <stddef.h>

/* Decode the padded base64 in[0..n) into out (cap bytes; a NUL is added after the
 * bytes). The decoded length, or -1 for a length not a multiple of 4, a character
 * outside the alphabet, or too little room. */
int base64_decode(const char *in, size_t n, char *out, size_t cap);

#endif
