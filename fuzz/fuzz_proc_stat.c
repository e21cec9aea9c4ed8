/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: /proc/stat's cpu lines (collect/proc_stat.c proc_stat_parse) and the
 * busy share between two readings. The input is read whole, then from its middle on, so
 * the two readings differ; every share must be NAN or within 0..100. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/proc_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct proc_stat prev, cur; /* large: kept off the stack */

static void check_pct(double p)
{
        if (!isnan(p) && !(p >= 0 && p <= 100))
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        if (proc_stat_parse(s + size / 2, size - size / 2, &prev) == 0 && !prev.total.valid &&
            prev.ncpu == 0)
                __builtin_trap(); /* success needs some valid line */
        proc_stat_parse(s, size, &cur);
        if (cur.ncpu > VIGIL_MAX_CPUS || prev.ncpu > VIGIL_MAX_CPUS)
                __builtin_trap();
        check_pct(proc_stat_busy_pct(&prev.total, &cur.total));
        unsigned n = cur.ncpu < prev.ncpu ? cur.ncpu : prev.ncpu;
        for (unsigned i = 0; i < n; i++) {
                check_pct(proc_stat_busy_pct(&prev.cpu[i], &cur.cpu[i]));
                check_pct(proc_stat_busy_pct(&cur.cpu[i], &prev.cpu[i]));
        }
        return 0;
}
