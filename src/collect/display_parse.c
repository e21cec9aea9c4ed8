/* SPDX-License-Identifier: Apache-2.0 */
/* DRM connector sysfs and EDID parsers. See display_parse.h.
 *
 * The sysfs texts are those of the kernel's drivers/gpu/drm/drm_sysfs.c (Linux 6.6):
 * status_show() writes drm_get_connector_status_name(), "connected", "disconnected" or
 * "unknown" (drm_connector.c), enabled_show() "enabled" or "disabled", dpms_show()
 * drm_get_dpms_name(), "On", "Standby", "Suspend" or "Off", each with a newline;
 * edid_show() the raw EDID blob, empty when no monitor answered. All four read what the
 * driver last detected (status_show() the connector's status with READ_ONCE(); Linux
 * 3.x ran the connector's detect() at every read): reading them probes nothing, so the
 * display source reads them every sample.
 *
 * The EDID layout is VESA E-EDID 1.4 (and 1.3), section 3: bytes 0-7 the header
 * 00 FF FF FF FF FF FF 00; 8-9 the manufacturer ID, big-endian, three 5-bit letters
 * ('A' = 1); 10-11 the product code, little-endian; 12-15 the serial number,
 * little-endian (0: unused); 54-125 four 18-byte descriptors; 127 the checksum (the
 * block's bytes sum to 0 mod 256). A display descriptor starts 00 00 00 TAG 00 and
 * holds up to 13 bytes of text in bytes 5-17, ended by 0x0A and padded with 0x20:
 * tag 0xFF the display product serial number, 0xFC the display product name
 * (section 3.10.3). */
#include "collect/display_parse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define EDID_BLOCK      128
#define EDID_DESC0      54
#define EDID_DESC_LEN   18
#define EDID_NDESC      4
#define EDID_TAG_NAME   0xFC
#define EDID_TAG_SERIAL 0xFF

static int word_index(const char *s, const char *const *words, unsigned n)
{
        size_t len = strcspn(s, "\n");
        for (unsigned i = 0; i < n; i++)
                if (strlen(words[i]) == len && !strncmp(s, words[i], len))
                        return (int)i;
        return -EINVAL;
}

int drm_parse_status(const char *s, double *ret)
{
        static const char *const w[] = {"connected", "disconnected", "unknown"};
        static const double v[] = {1, 0, NAN};
        int i = word_index(s, w, 3);
        if (i < 0)
                return i;
        *ret = v[i];
        return 0;
}

int drm_parse_enabled(const char *s, double *ret)
{
        static const char *const w[] = {"disabled", "enabled"};
        int i = word_index(s, w, 2);
        if (i < 0)
                return i;
        *ret = i;
        return 0;
}

static const char *const dpms_names[] = {"On", "Standby", "Suspend", "Off"};

int drm_parse_dpms(const char *s, double *ret)
{
        int i = word_index(s, dpms_names, 4);
        if (i < 0)
                return i;
        *ret = i;
        return 0;
}

const char *drm_dpms_name(double dpms)
{
        return dpms >= 0 && dpms <= 3 ? dpms_names[(int)dpms] : "?";
}

/* The text of a display descriptor d (13 bytes from d + 5) into out: up to the 0x0A,
 * trailing spaces dropped, bytes outside printable ASCII as '?'. */
static void desc_text(const uint8_t *d, char *out, size_t cap)
{
        size_t n = 0;
        for (size_t i = 5; i < EDID_DESC_LEN && d[i] != 0x0A && n + 1 < cap; i++)
                out[n++] = d[i] >= 0x20 && d[i] < 0x7F ? (char)d[i] : '?';
        while (n && out[n - 1] == ' ')
                n--;
        out[n] = '\0';
}

int edid_parse(const uint8_t *buf, size_t len, struct edid_ident *ret)
{
        static const uint8_t header[8] = {0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00};
        if (len == 0)
                return -ENODATA;
        if (len < EDID_BLOCK || memcmp(buf, header, sizeof(header)) != 0)
                return -EINVAL;
        uint8_t sum = 0;
        for (size_t i = 0; i < EDID_BLOCK; i++)
                sum = (uint8_t)(sum + buf[i]);
        if (sum != 0)
                return -EINVAL;
        struct edid_ident e;
        memset(&e, 0, sizeof(e));
        unsigned mfg = (unsigned)buf[8] << 8 | buf[9];
        char letters[4];
        for (unsigned k = 0; k < 3; k++) {
                unsigned c = (mfg >> (10 - 5 * k)) & 0x1F;
                letters[k] = c >= 1 && c <= 26 ? (char)('A' + c - 1) : '?';
        }
        letters[3] = '\0';
        unsigned product = (unsigned)buf[10] | (unsigned)buf[11] << 8;
        snprintf(e.id, sizeof(e.id), "%s-%04X", letters, product);
        e.serial_number = (uint32_t)buf[12] | (uint32_t)buf[13] << 8 | (uint32_t)buf[14] << 16 |
                          (uint32_t)buf[15] << 24;
        for (unsigned k = 0; k < EDID_NDESC; k++) {
                const uint8_t *d = buf + EDID_DESC0 + k * EDID_DESC_LEN;
                if (d[0] || d[1] || d[2])
                        continue; /* a detailed timing descriptor */
                if (d[3] == EDID_TAG_NAME)
                        desc_text(d, e.name, sizeof(e.name));
                else if (d[3] == EDID_TAG_SERIAL)
                        desc_text(d, e.serial, sizeof(e.serial));
        }
        if (!e.serial[0] && e.serial_number)
                snprintf(e.serial, sizeof(e.serial), "%u", (unsigned)e.serial_number);
        *ret = e;
        return 0;
}

/* CEC (HDMI 1.4b Supplement 1, CEC 13.13): <Report Power Status> is opcode 0x90 with one
 * operand, the [Power Status]; linux/cec.h names it CEC_MSG_REPORT_POWER_STATUS and the
 * values CEC_OP_POWER_STATUS_ON (0), _STANDBY (1), _TO_ON (2), _TO_STANDBY (3). */
#define CEC_OPCODE_REPORT_POWER_STATUS 0x90

int cec_parse_power_status(const uint8_t *msg, size_t len)
{
        if (len < 3 || msg[1] != CEC_OPCODE_REPORT_POWER_STATUS || msg[2] > 3)
                return -EINVAL;
        return msg[2];
}

const char *cec_power_name(double status)
{
        static const char *const names[] = {"on", "standby", "to-on", "to-standby"};
        return status >= 0 && status <= 3 ? names[(int)status] : "?";
}
