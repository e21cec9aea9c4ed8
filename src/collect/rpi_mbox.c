/* SPDX-License-Identifier: Apache-2.0 */
/* Mailbox property buffers: build and decode. See rpi_mbox.h.
 *
 *   [0x00000020, 0x00000000, 0x00030006, 0x00000008, 0x00000000, 0x00000000, 0x00000000,
 *    0x00000000]                       a request for the temperature (32 bytes)
 *   [0x00000020, 0x80000000, 0x00030006, 0x00000008, 0x80000008, 0x00000000, 0x0000b884,
 *    0x00000000]                       its answer: 47236 millidegrees C */
#include "collect/rpi_mbox.h"
#include "util/hot.h"

#include <errno.h>
#include <math.h>
#include <string.h>

size_t mbox_request_words(const struct mbox_tag *tags, unsigned ntags)
{
        size_t words = 3; /* size, request code, end tag */
        for (unsigned i = 0; i < ntags; i++)
                words += 3 + tags[i].buf_words;
        return words;
}

static bool tag_valid(const struct mbox_tag *t)
{
        return t->id != 0 && t->buf_words >= 1 && t->buf_words <= MBOX_VALUE_WORDS &&
               t->nin <= t->buf_words;
}

VIGIL_HOT int mbox_build(uint32_t *buf, size_t cap, const struct mbox_tag *tags, unsigned ntags,
                         size_t *ret_words)
{
        if (ntags == 0 || ntags > MBOX_MAX_TAGS)
                return -EINVAL;
        for (unsigned i = 0; i < ntags; i++)
                if (!tag_valid(&tags[i]))
                        return -EINVAL;
        size_t words = mbox_request_words(tags, ntags);
        if (words > cap)
                return -ENOSPC;
        size_t pos = 0;
        buf[pos++] = (uint32_t)(words * 4);
        buf[pos++] = MBOX_PROCESS_REQUEST;
        for (unsigned i = 0; i < ntags; i++) {
                const struct mbox_tag *t = &tags[i];
                buf[pos++] = t->id;
                buf[pos++] = t->buf_words * 4;
                buf[pos++] = 0; /* request: bit 31 clear */
                for (uint32_t w = 0; w < t->buf_words; w++)
                        buf[pos++] = w < t->nin ? t->in[w] : 0;
        }
        buf[pos++] = 0; /* end tag */
        *ret_words = pos;
        return 0;
}

static void clear_answers(struct mbox_tag *tags, unsigned ntags)
{
        for (unsigned i = 0; i < ntags; i++) {
                tags[i].answered = false;
                tags[i].resp_bytes = 0;
                memset(tags[i].out, 0, sizeof(tags[i].out));
        }
}

VIGIL_HOT int mbox_decode(const uint32_t *buf, size_t nwords, struct mbox_tag *tags, unsigned ntags)
{
        clear_answers(tags, ntags);
        if (ntags > MBOX_MAX_TAGS || nwords != mbox_request_words(tags, ntags) ||
            buf[0] != nwords * 4)
                return -EPROTO;
        if (buf[1] != MBOX_REPLY_SUCCESS)
                return -EPROTO;
        size_t pos = 2;
        for (unsigned i = 0; i < ntags; i++) {
                struct mbox_tag *t = &tags[i];
                uint32_t code = buf[pos + 2];
                if (buf[pos] == t->id && (code & MBOX_TAG_RESPONSE_BIT)) {
                        t->answered = true;
                        t->resp_bytes = code & MBOX_TAG_LEN_MASK;
                        for (uint32_t w = 0; w < t->buf_words; w++)
                                t->out[w] = buf[pos + 3 + w];
                }
                pos += 3 + t->buf_words;
        }
        return 0;
}

VIGIL_HOT int mbox_tag_word(const struct mbox_tag *t, unsigned index, uint32_t *ret)
{
        if (!t->answered)
                return -ENODATA;
        uint32_t have = t->resp_bytes;
        if (have > t->buf_words * 4)
                have = t->buf_words * 4;
        if ((uint64_t)index * 4 + 4 > have)
                return -EBADMSG;
        *ret = t->out[index];
        return 0;
}

/* Units of the get-voltage value. The firmware's property-interface page and vcmailbox(7)
 * still describe it as "offset from 1.2V in units of 0.025V", a description from the
 * first firmware; read that way, a Pi 4 core at ~0.85 V would be -14 (0xfffffff2).
 * The firmware in use answers in microvolts: the raspberrypi-hwmon voltage inputs
 * added in 2026 (reviewed by Broadcom, tested on a Pi 3B+, applied to hwmon) divide the
 * value by 1000 to get hwmon's millivolts, and `vcgencmd measure_volts core` prints the
 * same quantity as volt=0.8563V. So 856300 -> 0.8563 V. A value outside what a Pi's
 * core rail can be (0.2-2.5 V) is reported as missing rather than guessed at: an old
 * firmware answering in 25 mV steps yields small numbers and lands there. */
double mbox_voltage_v(uint32_t value)
{
        if (value == MBOX_VOLTAGE_INVALID)
                return NAN;
        double v = (double)value / 1e6;
        if (v < 0.2 || v > 2.5)
                return NAN;
        return v;
}
