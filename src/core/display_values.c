/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct display_conn and struct display_frame (core/frame.h), one row
 * each, in member order. The screens of a signage player (collect/display.c): each DRM
 * connector's sysfs state and the monitor's EDID identity, and the TV's CEC power
 * status. /metrics has one series per connector of each family, labelled
 * connector="HDMI-A-1",card="card1" (metrics/metrics_display.c); a missing value has no
 * series. */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"

#define CONN_MEMBER(m)    FIELD_MEMBER(struct display_conn, m)
#define DISPLAY_MEMBER(m) FIELD_MEMBER(struct display_frame, m)

const struct field_desc display_conn_fields[] = {
    /* "card1": the DRM device the connector belongs to */
    {CONN_MEMBER(card), .kind = FK_STRING},
    /* "HDMI-A-1": the connector's name after "cardN-" */
    {CONN_MEMBER(name), .kind = FK_STRING},
    /* status: 1 "connected", 0 "disconnected"; NAN "unknown" */
    {CONN_MEMBER(connected), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_display_connected",
                .type = "gauge",
                .help = "1 when a monitor is connected to the connector (DRM sysfs status).",
                .scale = 1}},
    /* enabled: 1 "enabled" (a CRTC drives it), 0 "disabled" */
    {CONN_MEMBER(enabled), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_display_enabled",
                .type = "gauge",
                .help = "1 when the connector is driven by a display pipeline (DRM sysfs enabled).",
                .scale = 1}},
    /* dpms: 0 On, 1 Standby, 2 Suspend, 3 Off (DRM_MODE_DPMS_*) */
    {CONN_MEMBER(dpms), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_display_dpms",
                .type = "gauge",
                .help = "The connector's DPMS state: 0 On, 1 Standby, 2 Suspend, 3 Off.",
                .scale = 1}},
    /* EDID display product name descriptor (0xFC) */
    {CONN_MEMBER(monitor), .kind = FK_STRING,
     .metric = {.row = MR_CODE,
                .member = "monitor serial edid_id",
                .name = "vigil_display_monitor_info",
                .type = "gauge",
                .help = "The connected monitor's identity from its EDID: name, serial number, "
                        "manufacturer and product code.",
                .code = MC_DISPLAY_INFO}},
    /* EDID serial number descriptor (0xFF), else the base block's 32-bit serial */
    {CONN_MEMBER(serial), .kind = FK_STRING},
    /* "GSM-5B7F": the base block's manufacturer ID and product code */
    {CONN_MEMBER(edid_id), .kind = FK_STRING},
};

const size_t display_conn_fields_count =
    sizeof(display_conn_fields) / sizeof(display_conn_fields[0]);

const struct field_desc display_fields[] = {
    /* connectors found */
    {DISPLAY_MEMBER(nconn), .kind = FK_ZERO},
    /* display_conn_fields above */
    {DISPLAY_MEMBER(conn), .kind = FK_STRUCT, .sub = display_conn_fields,
     .nsub = &display_conn_fields_count, .elem = sizeof(struct display_conn)},
    /* the TV's CEC REPORT_POWER_STATUS: 0 on, 1 standby, 2 to on, 3 to standby */
    {DISPLAY_MEMBER(cec_power), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_display_cec_power_status",
                .type = "gauge",
                .help = "The TV's power status over HDMI-CEC: 0 on, 1 standby, 2 going on, 3 "
                        "going to standby.",
                .scale = 1}},
};

const size_t display_fields_count = sizeof(display_fields) / sizeof(display_fields[0]);
