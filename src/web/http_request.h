/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing one HTTP/1.x request head (RFC 9112) for the plain transport (http_plain.h):
 * a pure function of the bytes, fuzzed by fuzz/fuzz_http_request.c.
 *
 * Accepted: "METHOD SP origin-form SP HTTP/1.0|HTTP/1.1" then header fields
 * "name: value", each line ending CRLF (a bare LF is taken too), an empty line last.
 * Refused with the status to answer: a malformed request line or header field, line
 * folding, a bad or repeated-and-different Content-Length, an HTTP/1.1 request
 * without exactly one Host (400); another HTTP version (505); a request line or head
 * longer than the buffer (414, 431). */
#ifndef VIGIL_WEB_HTTP_REQUEST_H
#define VIGIL_WEB_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "web/http_handler.h"

#define HTTP_CRED_MAX 512 /* decoded "user:password" of a Basic Authorization */

struct http_parsed {
        struct http_request rq; /* its strings point into the parsed buffer, or cred */
        bool http10;            /* an HTTP/1.0 request */
        bool keep_alive;        /* HTTP/1.1 without "Connection: close", or HTTP/1.0
                                 * with "Connection: keep-alive" */
        char cred[HTTP_CRED_MAX];
};

/* Parse the head at the start of buf[0..len), cap being the most the caller's buffer
 * holds. Returns 0 when more bytes are needed (len < cap and nothing is wrong yet), 1
 * when *ret holds a request whose head took *ret_used bytes (buf is then changed in
 * place: its tokens are NUL-terminated and unescaped there; bytes past *ret_used are
 * untouched), or the status to refuse with (400, 414, 431, 505). A request line that
 * is already wrong is refused before its head is complete. */
int http_request_parse(char *buf, size_t len, size_t cap, struct http_parsed *ret,
                       size_t *ret_used);

/* Decode %HH escapes of str in place, except %00 and malformed escapes, which stay as
 * written (so "/metrics%00" is a path of its own, not "/metrics" cut at a NUL). '+' is
 * not a space. Returns the length left. */
size_t http_unescape(char *str);

#endif
