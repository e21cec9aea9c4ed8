/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl and snappy, opened at run time by the push sinks: only --remote-write (both)
 * and --alertmanager (libcurl alone) need them (libcurl brings OpenSSL, nghttp2, ssh and more, a few MB resident). The
 * headers give the types at build time; each pointer is typed from the header's own
 * declaration, so a call through it is checked as a direct call would be. */
#ifndef VIGIL_PUSH_RW_LIB_H
#define VIGIL_PUSH_RW_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>
#include <snappy-c.h>

#define RW_CURL_SONAME   "libcurl.so.4"
#define RW_SNAPPY_SONAME "libsnappy.so.1"

struct rw_lib {
        void *curl_handle, *snappy_handle;
        __typeof__(curl_global_init) *curl_global_init;
        __typeof__(curl_easy_init) *curl_easy_init;
        __typeof__(curl_easy_setopt) *curl_easy_setopt;
        __typeof__(curl_easy_perform) *curl_easy_perform;
        __typeof__(curl_easy_getinfo) *curl_easy_getinfo;
        __typeof__(curl_easy_cleanup) *curl_easy_cleanup;
        __typeof__(curl_easy_strerror) *curl_easy_strerror;
        __typeof__(curl_slist_append) *curl_slist_append;
        __typeof__(curl_slist_free_all) *curl_slist_free_all;
        __typeof__(snappy_compress) *snappy_compress;
        __typeof__(snappy_uncompress) *snappy_uncompress;
        __typeof__(snappy_max_compressed_length) *snappy_max_compressed_length;
        __typeof__(snappy_uncompressed_length) *snappy_uncompressed_length;
};

/* Open libcurl, and snappy when with_snappy, and fill *lib (the snappy pointers stay
 * NULL without it); curl_global_init is called here (main thread, at the sink's init).
 * who names the option in the message ("--remote-write"). 0, or -ENOENT with one line
 * in err (cap bytes) naming the package to install and the loader's reason. */
int rw_lib_open(struct rw_lib *lib, bool with_snappy, const char *who, char *err, size_t cap);

/* Give back the handles (the libraries stay mapped) and clear *lib. Accepts a cleared
 * or failed *lib. */
void rw_lib_close(struct rw_lib *lib);

#endif
