/* SPDX-License-Identifier: Apache-2.0 */
/* Optional libraries through dlopen. See dynlib.h. */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define DYNLIB_MAX_SYMS 32

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers fit a void *");

void *dynlib_open(const char *soname, const struct dynlib_sym *syms, size_t n, void *api, char *err,
                  size_t cap)
{
        void *addr[DYNLIB_MAX_SYMS];
        if (n > DYNLIB_MAX_SYMS) {
                snprintf(err, cap, "%s: too many symbols", soname);
                return NULL;
        }
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!h) {
                const char *why = dlerror();
                snprintf(err, cap, "%s", why ? why : soname);
                return NULL;
        }
        for (size_t i = 0; i < n; i++) {
                addr[i] = dlsym(h, syms[i].name);
                if (!addr[i]) {
                        snprintf(err, cap, "%s lacks %s", soname, syms[i].name);
                        dlclose(h);
                        return NULL;
                }
        }
        /* POSIX guarantees a function pointer has the size and representation of the
         * void * dlsym returns; memcpy stores it without an incompatible-pointer cast. */
        for (size_t i = 0; i < n; i++)
                memcpy((char *)api + syms[i].offset, &addr[i], sizeof(addr[i]));
        return h;
}

void dynlib_close(void *handle)
{
        if (handle)
                dlclose(handle);
}
