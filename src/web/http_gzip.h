/* SPDX-License-Identifier: Apache-2.0 */
/* A 200 reply's body, gzipped when the client accepts it and the body is worth it
 * (HTTP_GZIP_MIN_BYTES), with a deflate stream reused from one reply to the next. Each
 * thread that makes replies has its own struct http_gzip: the transport's (/metrics, the
 * page) and the report's (http_later.h). */
#ifndef VIGIL_WEB_HTTP_GZIP_H
#define VIGIL_WEB_HTTP_GZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/zlib_lib.h"

struct http_reply;

/* Smaller bodies are sent uncompressed even when gzip is accepted: they fit in TCP's
 * initial window (10 segments, about 14 KB) either way, so compressing them would
 * cost CPU (more than the rest of the scrape) and save no round trip. */
#define HTTP_GZIP_MIN_BYTES 12288

struct http_gzip {
        struct zlib_lib zlib; /* opened at the first body worth compressing */
        int zlib_state;       /* 0 not tried yet, 1 open, -1 not available: never gzip */
        z_stream z;
        bool z_ready;
        unsigned char *gz;
        size_t gz_cap;
};

/* Fill *rp as 200 with body as type (Vary: Accept-Encoding), gzipped into g's buffer
 * when accept_encoding takes gzip and the body is large enough; the body as it is when
 * zlib is missing or fails (every client takes it). The body stays where it is (or in
 * g) until the next call. */
void http_gzip_reply(struct http_gzip *g, const struct strbuf *body, const char *accept_encoding,
                     const char *type, struct http_reply *rp);

/* Give back the stream, the buffer and zlib. Accepts a zeroed g. */
void http_gzip_fini(struct http_gzip *g);

#endif
