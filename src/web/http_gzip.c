/* SPDX-License-Identifier: Apache-2.0 */
/* Gzipped reply bodies. See http_gzip.h. */
#include "web/http_gzip.h"

#include <errno.h>
#include <stdlib.h>

#include "web/http_accept.h"
#include "web/http_reply.h"
#include "util/log.h"
#include "util/textmap.h"

/* zlib, opened at the first body worth compressing. False when it cannot be. The
 * loader's work for it (its code, every library's symbol tables) is done once: those
 * pages are dropped after, as they were after start-up (util/textmap.h). */
static bool have_zlib(struct http_gzip *g)
{
        char why[256];
        if (g->zlib_state == 0) {
                g->zlib_state = zlib_lib_open(&g->zlib, why, sizeof(why)) == 0 ? 1 : -1;
                if (g->zlib_state < 0)
                        vlog(LOG_WARN, "http: no gzip: %s", why);
                else
                        (void)textmap_drop();
        }
        return g->zlib_state > 0;
}

/* Compress in[0..n) into g->gz as a gzip member; the stream's state is reused. */
static int gzip_body(struct http_gzip *g, const char *in, size_t n, size_t *ret_len)
{
        if (!have_zlib(g))
                return -ENOENT;
        if (!g->z_ready) {
                /* A 4 KiB window: ~32 KiB of state, and metric lines repeat nearby. */
                if (zlib_deflate_init2(&g->zlib, &g->z, 1, 16 + 12, 5, Z_DEFAULT_STRATEGY) != Z_OK)
                        return -ENOMEM;
                g->z_ready = true;
        } else if (g->zlib.deflateReset(&g->z) != Z_OK) {
                return -EIO;
        }
        size_t bound = g->zlib.deflateBound(&g->z, (uLong)n);
        if (bound > g->gz_cap) {
                unsigned char *nb = realloc(g->gz, bound);
                if (!nb)
                        return -ENOMEM;
                g->gz = nb;
                g->gz_cap = bound;
        }
        g->z.next_in = (const Bytef *)in;
        g->z.avail_in = (uInt)n;
        g->z.next_out = g->gz;
        g->z.avail_out = (uInt)bound;
        if (g->zlib.deflate(&g->z, Z_FINISH) != Z_STREAM_END)
                return -EIO;
        *ret_len = bound - g->z.avail_out;
        return 0;
}

void http_gzip_reply(struct http_gzip *g, const struct strbuf *body, const char *accept_encoding,
                     const char *type, struct http_reply *rp)
{
        size_t zlen;
        *rp = (struct http_reply){
            .status = 200, .type = type, .body = body->buf, .len = body->len, .vary = true};
        if (body->len >= HTTP_GZIP_MIN_BYTES && http_accepts_gzip(accept_encoding) &&
            gzip_body(g, body->buf, body->len, &zlen) == 0) {
                rp->body = g->gz;
                rp->len = zlen;
                rp->gzip = true;
        }
}

void http_gzip_fini(struct http_gzip *g)
{
        if (g->z_ready)
                g->zlib.deflateEnd(&g->z);
        zlib_lib_close(&g->zlib);
        free(g->gz);
        *g = (struct http_gzip){0};
}
