/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the Raspberry Pi's text values: the V3D gpu_stats table
 * (v3d_stats_parse, v3d_busy_ratio) and vcgencmd's one-line answers
 * (vcgencmd_parse_temp, _freq, _volt, _throttled). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/rpi_sysfs.h"
#include "collect/rpi_vcgencmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NQ 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        struct v3d_queue_stat a[NQ], b[NQ];
        unsigned na = v3d_stats_parse(s, size, a, NQ);
        unsigned nb = v3d_stats_parse(s + size / 2, size - size / 2, b, NQ);
        if (na > NQ || nb > NQ)
                __builtin_trap();
        for (unsigned i = 0; i < na && i < nb; i++) {
                if (strnlen(a[i].name, sizeof(a[i].name)) >= sizeof(a[i].name))
                        __builtin_trap();
                double r = v3d_busy_ratio(&b[i], &a[i]);
                if (!isnan(r) && !(r >= 0 && r <= 1))
                        __builtin_trap();
        }
        double v;
        uint32_t w;
        vcgencmd_parse_temp(s, size, &v);
        vcgencmd_parse_freq(s, size, &v);
        vcgencmd_parse_volt(s, size, &v);
        vcgencmd_parse_throttled(s, size, &w);
        return 0;
}
