/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of the network files: /proc/net/wireless, /proc/net/route,
 * /proc/net/ipv6_route and a sysfs interface's operstate. Pure; they never log. */
#ifndef VIGIL_COLLECT_NET_PARSE_H
#define VIGIL_COLLECT_NET_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* One interface's line of /proc/net/wireless. */
struct wireless_stats {
        double quality; /* link quality; NAN when not updated (no '.' after it) */
        double level;   /* signal level: dBm when negative, else the driver's relative scale;
                         * NAN when not updated */
};

/* The line of interface name in the /proc/net/wireless text buf[0..len) into *ret:
 * 0, -ENOENT when the interface has no line, -EINVAL for a malformed one. */
int net_parse_wireless(const char *buf, size_t len, const char *name, struct wireless_stats *ret);

/* Whether the /proc/net/route text buf[0..len) has a usable default route (destination
 * and mask 0, RTF_UP set). */
bool net_route_has_default(const char *buf, size_t len);
/* The same for /proc/net/ipv6_route (::/0, RTF_UP set, not RTF_REJECT, not on lo). */
bool net_ipv6_route_has_default(const char *buf, size_t len);

/* operstate (Documentation/ABI/testing/sysfs-class-net): 1 "up", 0 "down",
 * "lowerlayerdown", "dormant", "notpresent", "testing"; NAN "unknown"; -EINVAL for other
 * text. */
int net_parse_operstate(const char *s, double *ret);

#endif
