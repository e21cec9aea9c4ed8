/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the firmware's mailbox reply (collect/rpi_mbox.c mbox_decode,
 * mbox_tag_word; collect/rpi_fw.c rpi_fw_decode). vigil builds its full request for
 * every value, then the input overwrites the buffer from its first word, as a
 * misbehaving firmware or driver could; the rest keeps the request. Every value taken
 * must be a number, within the core voltage's plausible range for RPI_V_VOLT. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct mbox_tag tags[RPI_V_COUNT];
        uint8_t which[RPI_V_COUNT];
        uint32_t buf[MBOX_MAX_WORDS];
        size_t nwords;
        unsigned n = rpi_fw_tags(RPI_V_ALL, tags, which);
        if (mbox_build(buf, MBOX_MAX_WORDS, tags, n, &nwords) < 0)
                __builtin_trap();
        memcpy(buf, data, size < nwords * 4 ? size : nwords * 4);

        int r = mbox_decode(buf, nwords, tags, n);
        double vals[RPI_V_COUNT];
        for (unsigned i = 0; i < RPI_V_COUNT; i++)
                vals[i] = NAN;
        unsigned got = rpi_fw_decode(tags, which, n, vals);
        if (r == -EPROTO && got)
                __builtin_trap(); /* no tag answered in a rejected reply */
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                if (((got & RPI_V_BIT(v)) != 0) == (isnan(vals[v]) != 0))
                        __builtin_trap();
        }
        if ((got & RPI_V_BIT(RPI_V_VOLT)) && !(vals[RPI_V_VOLT] >= 0.2 && vals[RPI_V_VOLT] <= 2.5))
                __builtin_trap();
        for (unsigned i = 0; i < n; i++) {
                uint32_t w;
                for (unsigned k = 0; k < 4; k++)
                        mbox_tag_word(&tags[i], k, &w);
        }
        return 0;
}
