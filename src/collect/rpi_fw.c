/* SPDX-License-Identifier: Apache-2.0 */
/* Firmware values by mailbox (one request for all) or by vcgencmd. See rpi_fw.h.
 *
 *   tag 0x00030047 [3] -> [3, 1500398464]     ARM clock as measured, Hz */
#include "collect/rpi_fw.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "collect/rpi_gencmd.h"
#include "collect/rpi_vcgencmd.h"
#include "util/hot.h"

/* The request word of get-throttled is a mask of sticky bits to clear: the kernel's
 * own pollers (raspberrypi-hwmon, and the firmware driver's get_throttled file) send
 * 0xffff under the comment "Request firmware to clear sticky bits", and the firmware
 * maintainers note that `vcgencmd get_throttled` with an extra argument resets the
 * "has occurred" bits while the plain command does not. vigil only observes: it sends
 * 0, so the since-boot history (bits 16-19) stays for every other reader. */
#define THROTTLED_REQUEST_KEEP_STICKY 0u

#define NO_ARG UINT32_MAX /* the tag takes no id: its value is the whole answer */

static const struct {
        uint32_t tag;
        uint32_t arg; /* the id sent and echoed in the answer's first word */
} plan[RPI_V_COUNT] = {
    [RPI_V_TEMP] = {MBOX_TAG_GET_TEMPERATURE, 0},
    [RPI_V_VOLT] = {MBOX_TAG_GET_VOLTAGE, MBOX_VOLTAGE_CORE},
    [RPI_V_ARM] = {MBOX_TAG_GET_CLOCK_MEASURED, MBOX_CLOCK_ARM},
    [RPI_V_CORE] = {MBOX_TAG_GET_CLOCK_MEASURED, MBOX_CLOCK_CORE},
    [RPI_V_V3D] = {MBOX_TAG_GET_CLOCK_MEASURED, MBOX_CLOCK_V3D},
    [RPI_V_H264] = {MBOX_TAG_GET_CLOCK_MEASURED, MBOX_CLOCK_H264},
    [RPI_V_PIXEL] = {MBOX_TAG_GET_CLOCK_MEASURED, MBOX_CLOCK_PIXEL},
    [RPI_V_ARM_MAX] = {MBOX_TAG_GET_MAX_CLOCK_RATE, MBOX_CLOCK_ARM},
    [RPI_V_THROTTLED] = {MBOX_TAG_GET_THROTTLED, NO_ARG},
};

VIGIL_HOT unsigned rpi_fw_tags(unsigned mask, struct mbox_tag *tags, uint8_t *which)
{
        unsigned n = 0;
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                if (!(mask & RPI_V_BIT(v)))
                        continue;
                struct mbox_tag *t = &tags[n];
                memset(t, 0, sizeof(*t));
                t->id = plan[v].tag;
                if (plan[v].arg == NO_ARG) {
                        t->buf_words = 1;
                        t->nin = 1;
                        t->in[0] = THROTTLED_REQUEST_KEEP_STICKY;
                } else {
                        t->buf_words = 2;
                        t->nin = 1;
                        t->in[0] = plan[v].arg;
                }
                which[n++] = (uint8_t)v;
        }
        return n;
}

/* The value of one decoded tag, or NAN. */
static double tag_value(const struct mbox_tag *t, enum rpi_value v)
{
        uint32_t w0, w1;
        if (plan[v].arg == NO_ARG)
                return mbox_tag_word(t, 0, &w0) == 0 ? (double)w0 : NAN;
        if (mbox_tag_word(t, 0, &w0) < 0 || mbox_tag_word(t, 1, &w1) < 0 || w0 != plan[v].arg)
                return NAN;
        switch (v) {
        case RPI_V_TEMP:
                return (double)w1 / 1000.0;
        case RPI_V_VOLT:
                return mbox_voltage_v(w1);
        default:
                /* A stopped clock measures 0 Hz: a value, as vcgencmd prints it. */
                return (double)w1;
        }
}

VIGIL_HOT unsigned rpi_fw_decode(const struct mbox_tag *tags, const uint8_t *which, unsigned ntags,
                                 double *vals)
{
        unsigned got = 0;
        for (unsigned i = 0; i < ntags; i++) {
                double x = tag_value(&tags[i], (enum rpi_value)which[i]);
                if (isnan(x))
                        continue;
                vals[which[i]] = x;
                got |= RPI_V_BIT(which[i]);
        }
        return got;
}

VIGIL_HOT int rpi_fw_query(const struct rpi_transport_ops *ops, void *priv, unsigned mask,
                           double *vals, unsigned *ret_answered)
{
        struct mbox_tag tags[RPI_V_COUNT];
        uint8_t which[RPI_V_COUNT];
        uint32_t buf[MBOX_MAX_WORDS];
        size_t nwords;
        *ret_answered = 0;
        unsigned n = rpi_fw_tags(mask, tags, which);
        if (n == 0)
                return 0;
        int r = mbox_build(buf, MBOX_MAX_WORDS, tags, n, &nwords);
        if (r < 0)
                return r;
        r = ops->call(priv, buf, nwords);
        if (r < 0)
                return r;
        r = mbox_decode(buf, nwords, tags, n);
        if (r < 0)
                return r;
        *ret_answered = rpi_fw_decode(tags, which, n, vals);
        return 0;
}

/* The reference monitor's calls (seeds: `vcgencmd measure_temp`, `measure_volts core`,
 * `measure_clock arm|core|v3d|h264|pixel`, `get_throttled`), as argv and as gencmd text. */
static const char *const vc_args[RPI_V_COUNT][4] = {
    [RPI_V_TEMP] = {"vcgencmd", "measure_temp", NULL},
    [RPI_V_VOLT] = {"vcgencmd", "measure_volts", "core", NULL},
    [RPI_V_ARM] = {"vcgencmd", "measure_clock", "arm", NULL},
    [RPI_V_CORE] = {"vcgencmd", "measure_clock", "core", NULL},
    [RPI_V_V3D] = {"vcgencmd", "measure_clock", "v3d", NULL},
    [RPI_V_H264] = {"vcgencmd", "measure_clock", "h264", NULL},
    [RPI_V_PIXEL] = {"vcgencmd", "measure_clock", "pixel", NULL},
    [RPI_V_THROTTLED] = {"vcgencmd", "get_throttled", NULL},
};

static const char *const gencmd_text[RPI_V_COUNT] = {
    [RPI_V_TEMP] = "measure_temp",         [RPI_V_VOLT] = "measure_volts core",
    [RPI_V_ARM] = "measure_clock arm",     [RPI_V_CORE] = "measure_clock core",
    [RPI_V_V3D] = "measure_clock v3d",     [RPI_V_H264] = "measure_clock h264",
    [RPI_V_PIXEL] = "measure_clock pixel", [RPI_V_THROTTLED] = "get_throttled",
};

VIGIL_HOT const char *rpi_fw_command(enum rpi_value v)
{
        return (unsigned)v < RPI_V_COUNT ? gencmd_text[v] : NULL;
}

VIGIL_HOT int rpi_fw_parse_reply(enum rpi_value v, const char *text, size_t n, double *ret)
{
        double x;
        uint32_t w;
        int r;
        if (gencmd_error_code(text, n) >= 0)
                return -EPROTO;
        switch (v) {
        case RPI_V_TEMP:
                r = vcgencmd_parse_temp(text, n, &x);
                break;
        case RPI_V_VOLT:
                r = vcgencmd_parse_volt(text, n, &x);
                break;
        case RPI_V_THROTTLED:
                r = vcgencmd_parse_throttled(text, n, &w);
                if (r == 0)
                        x = w;
                break;
        case RPI_V_ARM:
        case RPI_V_CORE:
        case RPI_V_V3D:
        case RPI_V_H264:
        case RPI_V_PIXEL:
                r = vcgencmd_parse_freq(text, n, &x);
                break;
        default:
                return -ENOTSUP;
        }
        if (r < 0)
                return -EBADMSG;
        *ret = x;
        return 0;
}

VIGIL_HOT int rpi_fw_gencmd(const struct rpi_transport_ops *ops, void *priv, enum rpi_value v,
                            double *ret)
{
        uint32_t buf[GENCMD_WORDS];
        char text[GENCMD_TEXT_BYTES];
        size_t nwords;
        uint32_t err;
        const char *cmd = rpi_fw_command(v);
        if (!cmd)
                return -ENOTSUP;
        int r = gencmd_build(buf, GENCMD_WORDS, cmd, &nwords);
        if (r < 0)
                return r;
        r = ops->call(priv, buf, nwords);
        if (r < 0)
                return r;
        int n = gencmd_decode(buf, nwords, text, sizeof(text), &err);
        if (n < 0)
                return n;
        if (err != 0)
                return -EPROTO;
        return rpi_fw_parse_reply(v, text, (size_t)n, ret);
}

int rpi_fw_vcgencmd(const char *prog, enum rpi_value v, int timeout_ms, double *ret)
{
        char out[VCGENCMD_OUTPUT_MAX];
        if (v >= RPI_V_COUNT || !vc_args[v][0])
                return -ENOTSUP;
        int n = vcgencmd_run(prog, vc_args[v], out, sizeof(out), timeout_ms);
        if (n < 0)
                return n;
        return rpi_fw_parse_reply(v, out, (size_t)n, ret);
}
