/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTPS transport: libmicrohttpd with TLS from the web config, on MHD's own
 * polling thread. Only a web config with tls_server_config uses it (plain HTTP goes
 * through http_plain.h), so only such a run maps libmicrohttpd and GnuTLS. */
#ifndef VIGIL_WEB_HTTP_MHD_H
#define VIGIL_WEB_HTTP_MHD_H

#include <stddef.h>
#include <sys/socket.h>

#include "web/http_handler.h"

struct http_mhd;

/* Open libmicrohttpd (soname; NULL: libmicrohttpd.so.12), read the certificate and key
 * named by h->web, and serve h's answers over TLS on addr. *ret_port: the port bound. 0,
 * or -errno with one line in err (cap bytes): a library missing (-ENOENT, naming the
 * package), an unreadable PEM file, "cannot listen on LISTEN: why". h must outlive the
 * server. */
int http_mhd_start(struct http_handler *h, const struct sockaddr_storage *addr, socklen_t len,
                   const char *listen, const char *soname, struct http_mhd **ret,
                   unsigned *ret_port, char *err, size_t cap);

/* Stop serving, close every connection and free m. Accepts NULL. */
void http_mhd_stop(struct http_mhd *m);

#endif
