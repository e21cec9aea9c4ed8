/* SPDX-License-Identifier: Apache-2.0 */
/* zlib through dlopen. See zlib_lib.h. */
#include "util/zlib_lib.h"

#include <errno.h>
#include <string.h>

#include "util/dynlib.h"

#define SYM(fn) DYNLIB_SYM(struct zlib_lib, fn)

static const struct dynlib_sym zlib_syms[] = {
    SYM(deflateInit2_), SYM(deflateReset), SYM(deflateBound), SYM(deflate), SYM(deflateEnd),
    SYM(gzdopen),       SYM(gzbuffer),     SYM(gzread),       SYM(gzerror), SYM(gzclose_r),
};

int zlib_lib_open(struct zlib_lib *lib, char *err, size_t cap)
{
        memset(lib, 0, sizeof(*lib));
        lib->handle = dynlib_open(ZLIB_LIB_SONAME, zlib_syms,
                                  sizeof(zlib_syms) / sizeof(zlib_syms[0]), lib, err, cap);
        return lib->handle ? 0 : -ENOENT;
}

int zlib_deflate_init2(const struct zlib_lib *lib, z_stream *z, int level, int window_bits,
                       int mem_level, int strategy)
{
        return lib->deflateInit2_(z, level, Z_DEFLATED, window_bits, mem_level, strategy,
                                  ZLIB_VERSION, (int)sizeof(*z));
}

void zlib_lib_close(struct zlib_lib *lib)
{
        dynlib_close(lib->handle);
        memset(lib, 0, sizeof(*lib));
}
