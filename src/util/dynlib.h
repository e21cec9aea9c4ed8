/* SPDX-License-Identifier: Apache-2.0 */
/* Optional shared libraries opened at run time, so that a run which does not need one
 * never maps it (nor what it links: libmicrohttpd, for TLS only, brings in the whole GnuTLS stack).
 *
 * A user declares a struct of function pointers typed from the library's own header
 * (`__typeof__(deflate) *deflate;`, so a wrong prototype does not compile) and a table
 * naming each symbol and the offset of its member:
 *
 *   static const struct dynlib_sym syms[] = {DYNLIB_SYM(struct zlib_api, deflate), ...}; */
#ifndef VIGIL_UTIL_DYNLIB_H
#define VIGIL_UTIL_DYNLIB_H

#include <stddef.h>

struct dynlib_sym {
        const char *name; /* the symbol as the library exports it */
        size_t offset;    /* where its address goes in the caller's struct */
};

/* A member named after the function it holds. */
#define DYNLIB_SYM(type, fn)                                                                       \
        {                                                                                          \
#fn, offsetof(type, fn)                                                            \
        }

/* dlopen soname (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: once mapped, a library stays
 * for the life of the process, so opening it again is cheap and a library that keeps
 * global state is never unloaded under it) and store the address of each of the n
 * symbols at api + syms[i].offset, a function pointer member. All or nothing: on
 * failure api is untouched and one line saying what is missing goes to err (cap
 * bytes). Returns the handle for dynlib_close (owned by the caller) or NULL. */
void *dynlib_open(const char *soname, const struct dynlib_sym *syms, size_t n, void *api, char *err,
                  size_t cap);

/* Give back a handle of dynlib_open. Accepts NULL. */
void dynlib_close(void *handle);

#endif
