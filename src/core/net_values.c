/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct net_iface and struct net_frame (core/frame.h), one row each, in
 * member order. The network of a signage player (collect/net.c): each physical
 * interface's link, Wi-Fi signal and quality, whether a default route exists and
 * whether the remote-write receiver answers. /metrics has one series per interface of
 * each family, labelled interface="wlan0"; a missing value has no series. */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"

#define IF_MEMBER(m)  FIELD_MEMBER(struct net_iface, m)
#define NET_MEMBER(m) FIELD_MEMBER(struct net_frame, m)

const struct field_desc net_if_fields[] = {
    /* "eth0", "wlan0" */
    {IF_MEMBER(name), .kind = FK_STRING},
    /* operstate: 1 "up", 0 anything else */
    {IF_MEMBER(up), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_up",
                .type = "gauge",
                .help = "1 when the interface's operational state is up (sysfs operstate).",
                .scale = 1}},
    /* carrier: 1/0; NAN while the interface is administratively down */
    {IF_MEMBER(carrier), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_carrier",
                .type = "gauge",
                .help = "1 when the interface has a link (sysfs carrier).",
                .scale = 1}},
    /* carrier_changes: link up and down transitions since the device appeared */
    {IF_MEMBER(carrier_changes), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_carrier_changes_total",
                .type = "counter",
                .help = "Link state changes of the interface since it appeared (sysfs "
                        "carrier_changes).",
                .scale = 1}},
    /* /proc/net/wireless level, in dBm */
    {IF_MEMBER(wifi_signal_dbm), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_wifi_signal_dbm",
                .type = "gauge",
                .help = "Wi-Fi signal level in dBm (/proc/net/wireless).",
                .scale = 1}},
    /* /proc/net/wireless link quality (the driver's scale, 70 for mac80211) */
    {IF_MEMBER(wifi_quality), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_wifi_link_quality",
                .type = "gauge",
                .help = "Wi-Fi link quality as the driver reports it (/proc/net/wireless; "
                        "mac80211 drivers: 0-70).",
                .scale = 1}},
};

const size_t net_if_fields_count = sizeof(net_if_fields) / sizeof(net_if_fields[0]);

const struct field_desc net_fields[] = {
    /* interfaces found */
    {NET_MEMBER(nif), .kind = FK_ZERO},
    /* net_if_fields above */
    {NET_MEMBER(ifs), .kind = FK_STRUCT, .sub = net_if_fields, .nsub = &net_if_fields_count,
     .elem = sizeof(struct net_iface)},
    /* 1 when /proc/net/route or /proc/net/ipv6_route has a default route */
    {NET_MEMBER(default_route), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_default_route",
                .type = "gauge",
                .help = "1 when an IPv4 or IPv6 default route exists.",
                .scale = 1}},
    /* the remote-write receiver answered the last push (1) or not (0); NAN without one */
    {NET_MEMBER(push_reachable), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_network_push_reachable",
                .type = "gauge",
                .help = "1 when the remote-write receiver accepted the last push, 0 when it "
                        "failed.",
                .scale = 1}},
};

const size_t net_fields_count = sizeof(net_fields) / sizeof(net_fields[0]);
