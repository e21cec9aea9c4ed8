/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the INI config file (core/options.c options_load_stream), read
 * from memory. A rejected file names a line; an accepted one leaves options inside
 * their limits (watches within the table).
 * Link: -linih */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vigil_options o; /* large: kept off the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char err[700];
        if (size == 0)
                return 0; /* fmemopen refuses an empty buffer */
        FILE *fp = fmemopen((void *)data, size, "r");
        if (!fp)
                return 0;
        options_defaults(&o);
        err[0] = '\0';
        int r = options_load_stream(&o, fp, "fuzz.conf", err, sizeof(err));
        fclose(fp);
        if (r < 0 && strncmp(err, "config fuzz.conf: ", 18) != 0)
                __builtin_trap();
        if (r == 0) {
                if (o.nwatches > VIGIL_MAX_WATCHES || o.interval_ns <= 0 || o.gpu_interval_ns <= 0)
                        __builtin_trap();
                for (unsigned i = 0; i < o.nwatches; i++) {
                        if (!o.watches[i].name[0] || !o.watches[i].pattern[0])
                                __builtin_trap();
                }
        }
        return 0;
}
