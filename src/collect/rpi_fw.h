/* SPDX-License-Identifier: Apache-2.0 */
/* The firmware values vigil reads on a Raspberry Pi, and the three ways to ask for
 * them: the firmware's own text commands (gencmd, one mailbox request per command, as
 * vcgencmd sends them), property tags (all in one mailbox request), or one vcgencmd
 * run per value. gencmd and vcgencmd give the reference monitor's exact values. */
#ifndef VIGIL_COLLECT_RPI_FW_H
#define VIGIL_COLLECT_RPI_FW_H

#include <stdint.h>

#include "collect/rpi_mbox.h"
#include "collect/rpi_transport.h"

enum rpi_value {
        RPI_V_TEMP, /* degrees C */
        RPI_V_VOLT, /* core volts */
        RPI_V_ARM,  /* measured clocks, Hz */
        RPI_V_CORE,
        RPI_V_V3D,
        RPI_V_H264,
        RPI_V_PIXEL,
        RPI_V_ARM_MAX,   /* the ARM's maximum clock, Hz */
        RPI_V_THROTTLED, /* the get-throttled word */
        RPI_V_COUNT
};
#define RPI_V_BIT(v) (1u << (v))
#define RPI_V_ALL    ((1u << RPI_V_COUNT) - 1)

/* The mailbox tags for the values in mask, in enum order, into tags[] (room for
 * RPI_V_COUNT); which[i] gets the value tag i carries. Returns the tag count. */
unsigned rpi_fw_tags(unsigned mask, struct mbox_tag *tags, uint8_t *which);

/* Decoded tags -> values: vals[which[i]] for each tag whose answer is complete and
 * consistent (the echoed clock/voltage/sensor id matches the request). Values
 * not answered are left as they are. Returns the RPI_V_BIT mask of values set. */
unsigned rpi_fw_decode(const struct mbox_tag *tags, const uint8_t *which, unsigned ntags,
                       double *vals);

/* One mailbox round trip for the values in mask: build, call, decode. vals[] (NAN
 * where missing) gets what was answered, *ret_answered its mask. 0, or the
 * transport's -errno, or -EPROTO from a reply code the kernel never returns. */
int rpi_fw_query(const struct rpi_transport_ops *ops, void *priv, unsigned mask, double *vals,
                 unsigned *ret_answered);

/* The reference monitor's vcgencmd command for v ("measure_clock arm"), or NULL for a
 * value no command gives (the ARM's maximum clock). A static string. */
const char *rpi_fw_command(enum rpi_value v);

/* Parse a vcgencmd answer (text[0..n)) for v with the rpi_vcgencmd.h parsers:
 * 0 with *ret set, -EPROTO for an `error=N error_msg=...` answer, -EBADMSG for any
 * other text that is not the expected line (short, cut or malformed). */
int rpi_fw_parse_reply(enum rpi_value v, const char *text, size_t n, double *ret);

/* One value through the firmware's gencmd tag on an open transport, one request per
 * command. 0 with *ret set; -ENOTSUP (no command for v); the transport's -errno
 * (EINVAL: the firmware failed the request; EPERM: the node refuses the tag);
 * -ENODATA (gencmd left unanswered); -EPROTO (the firmware's error word was set, or
 * an error=N answer); -EBADMSG (an answer that does not parse). */
int rpi_fw_gencmd(const struct rpi_transport_ops *ops, void *priv, enum rpi_value v, double *ret);

/* One value by running `prog ARGS` (vcgencmd), allowed timeout_ms, and parsing its
 * answer. 0 with *ret set, -ENOTSUP for a value vcgencmd does not give, or the
 * runner's/parser's -errno (-ETIMEDOUT when it ran out of time). */
int rpi_fw_vcgencmd(const char *prog, enum rpi_value v, int timeout_ms, double *ret);

#endif
