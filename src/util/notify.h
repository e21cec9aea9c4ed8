/* SPDX-License-Identifier: Apache-2.0 */
/* The service manager's notification protocol (sd_notify(3), "Notes"), without
 * libsystemd: one datagram carrying the state string, sent to the AF_UNIX socket named
 * by $NOTIFY_SOCKET (a path, or a Linux abstract name when it starts with '@'). The
 * manager gets the sender's credentials from the kernel (it sets SO_PASSCRED), so
 * nothing else travels with it. Outside a Type=notify service the variable is unset and
 * every call is a no-op. */
#ifndef VIGIL_UTIL_NOTIFY_H
#define VIGIL_UTIL_NOTIFY_H

#include <stdint.h>

/* Send state ("READY=1", "WATCHDOG=1", "STOPPING=1", or several "K=V" lines joined by
 * '\n') as one datagram. Returns 1 when sent, 0 when $NOTIFY_SOCKET is unset or empty,
 * -EAFNOSUPPORT for an address that is neither a path nor '@' (vsock), -ENAMETOOLONG
 * for one longer than sun_path, or the -errno of socket/sendto. Opens and closes its
 * own socket; the environment is left as it is. */
int notify_send(const char *state);

/* The watchdog timeout the manager expects keep-alives within, in nanoseconds, from
 * $WATCHDOG_USEC; 0 when there is none: unset, not a positive number, or
 * $WATCHDOG_PID is set and is not this process. Send "WATCHDOG=1" at half of it. */
int64_t notify_watchdog_ns(void);

#endif
