/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the firmware's gencmd answer (collect/rpi_gencmd.c gencmd_decode,
 * gencmd_error_code; collect/rpi_fw.c rpi_fw_parse_reply). The first input byte picks
 * the value; vigil builds its request for that value's command, then the rest of the
 * input overwrites the buffer from word 4 (response word, error word, text), as a
 * misbehaving firmware could. A decoded text must be NUL-terminated within its bound;
 * a parsed value must be a number. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_gencmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        enum rpi_value v = (enum rpi_value)(data[0] % RPI_V_COUNT);
        const char *cmd = rpi_fw_command(v);
        if (!cmd)
                return 0;
        uint32_t buf[GENCMD_WORDS];
        size_t nwords;
        if (gencmd_build(buf, GENCMD_WORDS, cmd, &nwords) < 0)
                __builtin_trap();
        buf[1] = 0x80000000u; /* the kernel sets it on success */
        size_t room = (nwords - 4) * 4;
        memcpy(&buf[4], data + 1, size - 1 < room ? size - 1 : room);

        char out[128];
        uint32_t err = 0;
        int n = gencmd_decode(buf, nwords, out, sizeof(out), &err);
        if (n < 0)
                return 0;
        if ((size_t)n >= sizeof(out) || out[n] != '\0' || strlen(out) != (size_t)n)
                __builtin_trap();
        gencmd_error_code(out, (size_t)n);
        double x = NAN;
        int r = rpi_fw_parse_reply(v, out, (size_t)n, &x);
        if (r == 0 && isnan(x))
                __builtin_trap();
        if (r != 0 && r != -EPROTO && r != -EBADMSG)
                __builtin_trap();
        return 0;
}
