/* SPDX-License-Identifier: Apache-2.0 */
/* vigil's own plain-HTTP transport: HTTP/1.1 and 1.0 over TCP, no TLS, on one thread
 * of its own that polls the listening socket and every connection. It exists so that
 * --listen without TLS maps no TLS library: Debian's libmicrohttpd links GnuTLS and
 * initialises it at load, about 2.9 MB resident (bench/RESULTS.md, "Memory with
 * --listen").
 *
 * What it accepts (RFC 9112): a request line "METHOD SP origin-form SP HTTP/1.x", header
 * fields "name: value" (no line folding), a Host header in HTTP/1.1; the request head
 * within HTTP_CONNECTION_MEMORY bytes and HTTP_IDLE_TIMEOUT_S seconds. Anything else is
 * answered 400 (431: a head too large; 505: another HTTP version) and the connection
 * closed. A request with a body is answered (405 or 400) and the connection closed, its
 * body unread. Connections: HTTP_MAX_CONNECTIONS in all, HTTP_MAX_PER_IP from one
 * address (one more is closed at once), each closed after HTTP_IDLE_TIMEOUT_S without
 * traffic. Keep-alive as HTTP/1.1 has it (HTTP/1.0: when asked), pipelined requests
 * answered in order. */
#ifndef VIGIL_WEB_HTTP_PLAIN_H
#define VIGIL_WEB_HTTP_PLAIN_H

#include <stddef.h>
#include <sys/socket.h>

#include "web/http_handler.h"

struct http_plain;

/* Bind addr (len bytes), listen, and serve h's answers on a new thread, created with
 * every signal blocked. *ret_port: the port bound. 0, or -errno with one line in err
 * (cap bytes): "cannot listen on LISTEN: why", listen being the address as the user
 * wrote it. h must outlive the server. */
int http_plain_start(struct http_handler *h, const struct sockaddr_storage *addr, socklen_t len,
                     const char *listen, struct http_plain **ret, unsigned *ret_port, char *err,
                     size_t cap);

/* Stop the thread, close every connection and the socket, free p. Accepts NULL. */
void http_plain_stop(struct http_plain *p);

#endif
