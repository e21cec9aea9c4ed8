/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd through dlopen. See mhd_lib.h. */
#include "web/mhd_lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/dynlib.h"

#define SYM(fn) DYNLIB_SYM(struct mhd_lib, fn)

static const struct dynlib_sym mhd_syms[] = {
    SYM(MHD_start_daemon),
    SYM(MHD_stop_daemon),
    SYM(MHD_get_daemon_info),
    SYM(MHD_is_feature_supported),
    SYM(MHD_create_response_from_buffer),
    SYM(MHD_add_response_header),
    SYM(MHD_queue_response),
    SYM(MHD_destroy_response),
    SYM(MHD_lookup_connection_value),
    SYM(MHD_get_connection_values),
    SYM(MHD_get_connection_info),
    SYM(MHD_basic_auth_get_username_password),
    SYM(MHD_queue_basic_auth_fail_response),
    SYM(MHD_free),
    SYM(MHD_suspend_connection),
    SYM(MHD_resume_connection),
};

int mhd_lib_open(struct mhd_lib *lib, const char *soname, char *err, size_t cap)
{
        char why[256];
        memset(lib, 0, sizeof(*lib));
        lib->handle = dynlib_open(soname ? soname : MHD_LIB_SONAME, mhd_syms,
                                  sizeof(mhd_syms) / sizeof(mhd_syms[0]), lib, why, sizeof(why));
        if (lib->handle)
                return 0;
        snprintf(err, cap, "--listen needs libmicrohttpd (Debian package libmicrohttpd12): %s",
                 why);
        return -ENOENT;
}

void mhd_lib_close(struct mhd_lib *lib)
{
        dynlib_close(lib->handle);
        memset(lib, 0, sizeof(*lib));
}
