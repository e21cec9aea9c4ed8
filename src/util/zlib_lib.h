/* SPDX-License-Identifier: Apache-2.0 */
/* zlib, opened at run time: only a /metrics response large enough to gzip, or a
 * compressed day read by `vigil report`, needs it, so a daemon that never sends one
 * never maps the library. <zlib.h> gives the
 * types at build time; each pointer is typed from its declaration there. */
#ifndef VIGIL_UTIL_ZLIB_LIB_H
#define VIGIL_UTIL_ZLIB_LIB_H

#include <stddef.h>

#define ZLIB_CONST
#include <zlib.h>

#define ZLIB_LIB_SONAME "libz.so.1"

struct zlib_lib {
        void *handle;
        __typeof__(deflateInit2_) *deflateInit2_;
        __typeof__(deflateReset) *deflateReset;
        __typeof__(deflateBound) *deflateBound;
        __typeof__(deflate) *deflate;
        __typeof__(deflateEnd) *deflateEnd;
        __typeof__(gzdopen) *gzdopen;
        __typeof__(gzbuffer) *gzbuffer;
        __typeof__(gzread) *gzread;
        __typeof__(gzerror) *gzerror;
        __typeof__(gzclose_r) *gzclose_r;
};

/* Open libz.so.1 and fill *lib. 0, or -ENOENT with the loader's reason in err (cap
 * bytes). */
int zlib_lib_open(struct zlib_lib *lib, char *err, size_t cap);

/* deflateInit2() (a macro in zlib.h) through lib: the same arguments, Z_OK or zlib's
 * error code. */
int zlib_deflate_init2(const struct zlib_lib *lib, z_stream *z, int level, int window_bits,
                       int mem_level, int strategy);

/* Give back what zlib_lib_open took and clear *lib. Accepts a cleared *lib. */
void zlib_lib_close(struct zlib_lib *lib);

#endif
