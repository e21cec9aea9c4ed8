/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the one-value host files: /proc/loadavg (proc_loadavg_parse),
 * /proc/uptime (proc_uptime_parse), a hwmon or thermal-zone temperature
 * (host_temp_parse_millic), a cpufreq kHz file (cpufreq_parse_khz) and the shared field
 * reader (host_field_double). Every value taken must lie in its documented range. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/host_field.h"
#include "collect/host_temp.h"
#include "collect/proc_loadavg.h"
#include "collect/proc_uptime.h"
#include "collect/sys_cpufreq.h"
#include "util/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        struct proc_loadavg la;
        int r = proc_loadavg_parse(s, size, &la);
        for (int i = 0; i < 3; i++) {
                if (!isnan(la.load[i]) && !(la.load[i] >= 0))
                        __builtin_trap();
                if (r == 0 && isnan(la.load[i]))
                        __builtin_trap();
        }
        double v = -1;
        if (proc_uptime_parse(s, size, &v) == 0 && !(v >= 0))
                __builtin_trap();
        v = NAN;
        if (host_temp_parse_millic(s, size, &v) == 0 && !(v >= -273.15 && v <= 1000))
                __builtin_trap();
        v = -1;
        if (cpufreq_parse_khz(s, size, &v) == 0 && !(v >= 0))
                __builtin_trap();
        struct cursor c = cur_make(s, size);
        while (host_field_double(&c, &v) == 0) {
                if (!(v >= 0))
                        __builtin_trap();
        }
        return 0;
}
