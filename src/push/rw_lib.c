/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl and snappy through dlopen. See rw_lib.h. */
#include "push/rw_lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/dynlib.h"

#define SYM(fn) DYNLIB_SYM(struct rw_lib, fn)

static const struct dynlib_sym curl_syms[] = {
    SYM(curl_global_init),   SYM(curl_easy_init),    SYM(curl_easy_setopt),
    SYM(curl_easy_perform),  SYM(curl_easy_getinfo), SYM(curl_easy_cleanup),
    SYM(curl_easy_strerror), SYM(curl_slist_append), SYM(curl_slist_free_all),
};

static const struct dynlib_sym snappy_syms[] = {
    SYM(snappy_compress),
    SYM(snappy_uncompress),
    SYM(snappy_max_compressed_length),
    SYM(snappy_uncompressed_length),
};

int rw_lib_open(struct rw_lib *lib, bool with_snappy, const char *who, char *err, size_t cap)
{
        char why[256];
        struct rw_lib tmp;
        memset(lib, 0, sizeof(*lib));
        memset(&tmp, 0, sizeof(tmp));
        tmp.curl_handle =
            dynlib_open(RW_CURL_SONAME, curl_syms, sizeof(curl_syms) / sizeof(curl_syms[0]), &tmp,
                        why, sizeof(why));
        if (!tmp.curl_handle) {
                snprintf(err, cap, "%s needs libcurl (Debian package libcurl4): %s", who, why);
                return -ENOENT;
        }
        if (with_snappy)
                tmp.snappy_handle = dynlib_open(RW_SNAPPY_SONAME, snappy_syms,
                                                sizeof(snappy_syms) / sizeof(snappy_syms[0]), &tmp,
                                                why, sizeof(why));
        if (with_snappy && !tmp.snappy_handle) {
                dynlib_close(tmp.curl_handle);
                snprintf(err, cap, "%s needs snappy (Debian package libsnappy1v5): %s", who, why);
                return -ENOENT;
        }
        if (tmp.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
                dynlib_close(tmp.snappy_handle);
                dynlib_close(tmp.curl_handle);
                snprintf(err, cap, "%s: libcurl failed to initialise", who);
                return -ENOENT;
        }
        *lib = tmp;
        return 0;
}

void rw_lib_close(struct rw_lib *lib)
{
        dynlib_close(lib->curl_handle);
        dynlib_close(lib->snappy_handle);
        memset(lib, 0, sizeof(*lib));
}
