/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd, opened at run time by the HTTPS transport (http_mhd.h: only --listen
 * with TLS needs it, and it brings GnuTLS and its dependencies, about 2.5 MB resident). <microhttpd.h> still
 * gives the types and constants at build time; each pointer below is typed from the
 * header's own declaration, so a call through it is checked as a direct call would be
 * (MHD_start_daemon keeps its variadic prototype). */
#ifndef VIGIL_WEB_MHD_LIB_H
#define VIGIL_WEB_MHD_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#define MHD_LIB_SONAME "libmicrohttpd.so.12"

/* The functions vigil calls, each member named after its function. */
struct mhd_lib {
        void *handle;
        __typeof__(MHD_start_daemon) *MHD_start_daemon;
        __typeof__(MHD_stop_daemon) *MHD_stop_daemon;
        __typeof__(MHD_get_daemon_info) *MHD_get_daemon_info;
        __typeof__(MHD_is_feature_supported) *MHD_is_feature_supported;
        __typeof__(MHD_create_response_from_buffer) *MHD_create_response_from_buffer;
        __typeof__(MHD_add_response_header) *MHD_add_response_header;
        __typeof__(MHD_queue_response) *MHD_queue_response;
        __typeof__(MHD_destroy_response) *MHD_destroy_response;
        __typeof__(MHD_lookup_connection_value) *MHD_lookup_connection_value;
        __typeof__(MHD_get_connection_values) *MHD_get_connection_values;
        __typeof__(MHD_get_connection_info) *MHD_get_connection_info;
        __typeof__(MHD_basic_auth_get_username_password) *MHD_basic_auth_get_username_password;
        __typeof__(MHD_queue_basic_auth_fail_response) *MHD_queue_basic_auth_fail_response;
        __typeof__(MHD_free) *MHD_free;
        __typeof__(MHD_suspend_connection) *MHD_suspend_connection;
        __typeof__(MHD_resume_connection) *MHD_resume_connection;
};

/* Open soname (NULL: MHD_LIB_SONAME) and fill *lib. 0, or -ENOENT with one line in err
 * (cap bytes) naming the package to install and the loader's reason. */
int mhd_lib_open(struct mhd_lib *lib, const char *soname, char *err, size_t cap);

/* Give back what mhd_lib_open took (the library itself stays mapped) and clear *lib.
 * Accepts a cleared or failed *lib. */
void mhd_lib_close(struct mhd_lib *lib);

#endif
