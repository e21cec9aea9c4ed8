/* SPDX-License-Identifier: Apache-2.0 */
/* gencmd request and answer buffers. See rpi_gencmd.h.
 *
 *   [0x0000041c, 0x80000000, 0x00030080, 0x00000400, 0x8000000c, 0x00000000,
 *    "temp=47.2'C\0" ...]            the answer to measure_temp */
#include "collect/rpi_gencmd.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "collect/rpi_mbox.h"
#include "util/parse.h"
#include "util/hot.h"

#define W_SIZE  0
#define W_CODE  1
#define W_TAG   2
#define W_BUF   3
#define W_RESP  4
#define W_ERR   5
#define W_TEXT  6
#define N_TEXTW (GENCMD_TEXT_BYTES / 4)

VIGIL_HOT int gencmd_build(uint32_t *buf, size_t cap, const char *cmd, size_t *ret_words)
{
        size_t len = strnlen(cmd, GENCMD_TEXT_BYTES);
        if (len + 1 > GENCMD_TEXT_BYTES)
                return -ENAMETOOLONG;
        if (cap < GENCMD_WORDS)
                return -ENOSPC;
        buf[W_SIZE] = GENCMD_WORDS * 4;
        buf[W_CODE] = MBOX_PROCESS_REQUEST;
        buf[W_TAG] = GENCMD_TAG;
        buf[W_BUF] = GENCMD_TEXT_BYTES;
        buf[W_RESP] = 0;
        buf[W_ERR] = 0;
        memset(&buf[W_TEXT], 0, GENCMD_TEXT_BYTES);
        memcpy(&buf[W_TEXT], cmd, len);
        buf[W_TEXT + N_TEXTW] = 0; /* end tag */
        *ret_words = GENCMD_WORDS;
        return 0;
}

VIGIL_HOT int gencmd_decode(const uint32_t *buf, size_t nwords, char *out, size_t cap,
                            uint32_t *ret_err)
{
        if (nwords != GENCMD_WORDS || buf[W_SIZE] != GENCMD_WORDS * 4 ||
            buf[W_CODE] != MBOX_REPLY_SUCCESS || buf[W_TAG] != GENCMD_TAG || cap == 0)
                return -EPROTO;
        if (!(buf[W_RESP] & MBOX_TAG_RESPONSE_BIT))
                return -ENODATA;
        /* The reported length is not trusted (the firmware is known to under-report
         * it, raspberrypi/firmware#1968): the text ends at its NUL, as vcgencmd reads it. */
        const char *text = (const char *)&buf[W_TEXT];
        size_t len = strnlen(text, GENCMD_TEXT_BYTES);
        if (len == GENCMD_TEXT_BYTES)
                return -EBADMSG;
        if (len >= cap)
                len = cap - 1;
        memcpy(out, text, len);
        out[len] = '\0';
        *ret_err = buf[W_ERR];
        return (int)len;
}

VIGIL_HOT long gencmd_error_code(const char *text, size_t n)
{
        struct cursor c = cur_make(text, n);
        uint64_t v;
        cur_skip_space(&c);
        if (!cur_lit(&c, "error=") || cur_u64(&c, &v) < 0 || v > 0x7fffffff)
                return -1;
        return (long)v;
}
