/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of a DRM connector's sysfs files and of a monitor's EDID, and of the CEC
 * power status reply. Pure functions on bytes; they never log. */
#ifndef VIGIL_COLLECT_DISPLAY_PARSE_H
#define VIGIL_COLLECT_DISPLAY_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A connector's `status` text: 1 "connected", 0 "disconnected", NAN "unknown";
 * -EINVAL (as a negative return, *ret untouched) for any other text. */
int drm_parse_status(const char *s, double *ret);
/* `enabled`: 1 "enabled", 0 "disabled"; -EINVAL otherwise. */
int drm_parse_enabled(const char *s, double *ret);
/* `dpms`: 0 "On", 1 "Standby", 2 "Suspend", 3 "Off" (DRM_MODE_DPMS_*); -EINVAL
 * otherwise. */
int drm_parse_dpms(const char *s, double *ret);
/* The name of a DPMS value 0-3 ("On" .. "Off"), "?" otherwise. Static. */
const char *drm_dpms_name(double dpms);

/* What identifies a monitor, from its EDID's base block. Strings are NUL-terminated,
 * "" when the EDID has none. */
struct edid_ident {
        char name[16];          /* display product name descriptor (0xFC), at most 13 chars */
        char serial[16];        /* display product serial number descriptor (0xFF), else the
                           * base block's 32-bit serial number in decimal; "" when 0 */
        char id[16];            /* "GSM-5B7F": manufacturer ID letters and product code in hex */
        uint32_t serial_number; /* bytes 12-15, 0 when unused */
};

/* Parse the EDID base block (the first 128 bytes of buf; extensions are ignored).
 * 0, or -ENODATA for an empty file (no monitor), -EINVAL for a block shorter than 128
 * bytes, without the fixed header or with a wrong checksum. */
int edid_parse(const uint8_t *buf, size_t len, struct edid_ident *ret);

/* The CEC <Report Power Status> reply msg[0..len): its power status operand 0-3
 * (0 on, 1 standby, 2 in transition standby to on, 3 on to standby), or -EINVAL for a
 * message that is not one. */
int cec_parse_power_status(const uint8_t *msg, size_t len);
/* "on", "standby", "to-on", "to-standby"; "?" otherwise. Static. */
const char *cec_power_name(double status);

#endif
