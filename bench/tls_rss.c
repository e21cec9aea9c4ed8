/* SPDX-License-Identifier: Apache-2.0 */
/* Where the resident memory of --listen goes, step by step, in a bare process.
 *
 * vigil opens libmicrohttpd with dlopen when --listen is given (src/web/mhd_lib.c).
 * libmicrohttpd links GnuTLS, and loading it costs three things, each measured here as
 * the growth of VmRSS (/proc/self/status) across one step:
 *   1. mapping GnuTLS and what it links (p11-kit, nettle, hogweed, gmp, tasn1, idn2,
 *      unistring, ffi), relocated at load (Debian links them -z now): dlopen of
 *      libgnutls.so.30 with GNUTLS_NO_IMPLICIT_INIT=1 set first, which makes GnuTLS's
 *      own constructor skip gnutls_global_init() (GnuTLS 3.7.3 NEWS: "The
 *      GNUTLS_NO_EXPLICIT_INIT envvar has been renamed to GNUTLS_NO_IMPLICIT_INIT";
 *      lib/global.c, lib_init);
 *   2. gnutls_global_init() itself;
 *   3. libmicrohttpd on top. Its constructor MHD_init calls gnutls_global_init()
 *      whatever the caller configures (libmicrohttpd 0.9.75, src/microhttpd/daemon.c:
 *      MHD_init, registered by _SET_INIT_AND_DEINIT_FUNCS (MHD_init, MHD_fini)), so
 *      step 2 cannot be avoided by a process that loads libmicrohttpd: the environment
 *      variable only moves the call from GnuTLS's constructor to libmicrohttpd's.
 * Steps 1-3 in one process are what --listen costs without TLS configured, less vigil's
 * own HTTP thread and buffers.
 *
 * usage: tls_rss. Prints "key value" lines in kB: base_kb (before step 1),
 * gnutls_map_kb, gnutls_init_kb, mhd_kb. Exits 1 when a library is missing. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/pfile.h"

/* VmRSS of this process in kB, or -1. */
static long vm_rss_kb(void)
{
        char buf[4096];
        int n = read_file_at("", "/proc/self/status", buf, sizeof(buf));
        const char *p = n > 0 ? memmem(buf, (size_t)n, "\nVmRSS:", 7) : NULL;
        if (!p)
                return -1;
        struct cursor c = cur_make(p + 7, (size_t)(buf + n - (p + 7)));
        uint64_t kb;
        cur_skip_space(&c);
        return cur_u64(&c, &kb) < 0 ? -1 : (long)kb;
}

static void *open_or_die(const char *soname)
{
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                fprintf(stderr, "tls_rss: %s\n", dlerror());
                exit(1);
        }
        return h;
}

int main(void)
{
        if (setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 1) < 0)
                return 1;
        long base = vm_rss_kb();
        void *gnutls = open_or_die("libgnutls.so.30");
        long mapped = vm_rss_kb();
        int (*global_init)(void) = (int (*)(void))dlsym(gnutls, "gnutls_global_init");
        if (!global_init || global_init() < 0) {
                fprintf(stderr, "tls_rss: gnutls_global_init failed\n");
                return 1;
        }
        long inited = vm_rss_kb();
        open_or_die("libmicrohttpd.so.12");
        long mhd = vm_rss_kb();
        printf("base_kb %ld\ngnutls_map_kb %ld\ngnutls_init_kb %ld\nmhd_kb %ld\n", base,
               mapped - base, inited - mapped, mhd - inited);
        return 0;
}
