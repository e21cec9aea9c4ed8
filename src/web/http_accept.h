/* SPDX-License-Identifier: Apache-2.0 */
/* The Accept-Encoding test of a request (RFC 9110, section 12.5.3): whether the client
 * takes a gzipped body. */
#ifndef VIGIL_WEB_HTTP_ACCEPT_H
#define VIGIL_WEB_HTTP_ACCEPT_H

#include <stdbool.h>

/* True when an Accept-Encoding header value accepts gzip (a "gzip" or "x-gzip" coding
 * whose q is not 0). NULL: false. */
bool http_accepts_gzip(const char *accept_encoding);

#endif
