/* SPDX-License-Identifier: Apache-2.0 */
/* The VideoCore firmware's mailbox property interface: building one request buffer
 * that carries many tags, and decoding the firmware's answer in place. Pure functions
 * over u32 words; the transport that carries the buffer is in rpi_transport.h.
 *
 * Buffer: [total_bytes, 0 (request), tag..., 0 (end tag)], each tag
 * [id, value_buffer_bytes, 0 (request), value words...]. In each tag it answered, the
 * firmware sets bit 31 of word 2 and the value length in bytes in bits 0-30; tags it
 * does not know are left unanswered (bit 31 clear). Sources: the firmware's mailbox
 * property interface page and vcmailbox(7).
 *
 * What user space sees (raspberrypi/linux drivers/char/broadcom/vcio.c
 * vcio_user_property_list() and drivers/firmware/raspberrypi.c
 * rpi_firmware_property_list()): when the firmware's reply code is not 0x80000000
 * the ioctl fails with EINVAL and the buffer is not copied back; on success the
 * kernel writes 0x80000000 into word 1 itself. A partial answer never arrives. */
#ifndef VIGIL_COLLECT_RPI_MBOX_H
#define VIGIL_COLLECT_RPI_MBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MBOX_TAG_GET_TEMPERATURE     0x00030006u /* in: id 0; out: id, millidegrees C */
#define MBOX_TAG_GET_MAX_TEMPERATURE 0x0003000au /* same layout */
#define MBOX_TAG_GET_CLOCK_RATE      0x00030002u /* in: clock id; out: id, Hz (set rate) */
#define MBOX_TAG_GET_MAX_CLOCK_RATE  0x00030004u /* in: clock id; out: id, Hz */
#define MBOX_TAG_GET_CLOCK_MEASURED  0x00030047u /* in: clock id; out: id, Hz (measured) */
#define MBOX_TAG_GET_VOLTAGE         0x00030003u /* in: voltage id; out: id, microvolts */
#define MBOX_TAG_GET_THROTTLED       0x00030046u /* one u32 in (sticky-clear mask), out */

#define MBOX_CLOCK_ARM    3u
#define MBOX_CLOCK_CORE   4u
#define MBOX_CLOCK_V3D    5u
#define MBOX_CLOCK_H264   6u
#define MBOX_CLOCK_PIXEL  9u
#define MBOX_VOLTAGE_CORE 1u

#define MBOX_PROCESS_REQUEST  0x00000000u
#define MBOX_REPLY_SUCCESS    0x80000000u
#define MBOX_TAG_RESPONSE_BIT 0x80000000u
#define MBOX_TAG_LEN_MASK     0x7fffffffu
#define MBOX_VOLTAGE_INVALID  0x80000000u /* get-voltage value: the id was not valid */

#define MBOX_VALUE_WORDS 2  /* the largest value buffer vigil uses, in words */
#define MBOX_MAX_TAGS    16 /* tags in one request */
/* Words of the largest request: header 2 + tags * (3 + value) + end tag. */
#define MBOX_MAX_WORDS (2 + MBOX_MAX_TAGS * (3 + MBOX_VALUE_WORDS) + 1)

/* One tag of a request, and what the firmware answered for it. */
struct mbox_tag {
        uint32_t id;
        uint32_t buf_words; /* value buffer size in words, 1..MBOX_VALUE_WORDS */
        uint32_t nin;       /* request words in in[] (<= buf_words) */
        uint32_t in[MBOX_VALUE_WORDS];
        /* Set by mbox_decode(): */
        bool answered;                  /* response bit set on this tag */
        uint32_t resp_bytes;            /* the value length the firmware reported */
        uint32_t out[MBOX_VALUE_WORDS]; /* the value buffer after the call */
};

/* Words a request with these tags takes (header, tags, end tag). */
size_t mbox_request_words(const struct mbox_tag *tags, unsigned ntags);

/* Build the request for tags[0..ntags) into buf (cap words). Unused request words of
 * a value buffer are 0. *ret_words gets the length in words (buf[0] is that times 4).
 * 0, -EINVAL (no tags, too many, a bad buf_words/nin) or -ENOSPC (cap too small). */
int mbox_build(uint32_t *buf, size_t cap, const struct mbox_tag *tags, unsigned ntags,
               size_t *ret_words);

/* Decode the answer in buf (nwords, as built by mbox_build for the same tags) into
 * tags[]: a tag is answered when its id is intact and its response bit is set; its
 * value words are copied whatever their reported length (see mbox_tag_word).
 * Returns 0 on reply code 0x80000000; -EPROTO on any other reply code (the kernel
 * never returns one) or a buffer whose size word changed (no tag answered). */
int mbox_decode(const uint32_t *buf, size_t nwords, struct mbox_tag *tags, unsigned ntags);

/* Value word `index` of an answered tag. The word must lie inside both the reported
 * length and the value buffer (a response longer than the buffer was truncated; its
 * first words still read as the older, shorter layout). 0, -ENODATA (unanswered) or
 * -EBADMSG (a short reply that does not reach this word). *ret untouched on failure. */
int mbox_tag_word(const struct mbox_tag *t, unsigned index, uint32_t *ret);

/* Core voltage in volts from the get-voltage value. The value is in microvolts (see
 * rpi_mbox.c for the evidence). NAN for 0x80000000 (invalid id) or an implausible
 * value outside 0.2-2.5 V. */
double mbox_voltage_v(uint32_t value);

#endif
