/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: /proc/meminfo (collect/proc_meminfo.c proc_meminfo_parse and
 * proc_meminfo_apply). A value is only ever valid on a line that was seen, and the
 * frame's memory fields are NAN or non-negative byte counts. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/proc_meminfo.h"
#include "core/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct host_frame h; /* large: kept off the stack */

static void check_bytes(double b)
{
        if (!isnan(b) && !(b >= 0))
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct proc_meminfo m;
        int r = proc_meminfo_parse((const char *)data, size, &m);
        if ((m.valid & ~m.seen) != 0)
                __builtin_trap();
        if (r == 0 && !(m.valid & (1u << MI_MEM_TOTAL)))
                __builtin_trap();
        proc_meminfo_apply(&m, &h);
        check_bytes(h.mem_total_bytes);
        check_bytes(h.mem_avail_bytes);
        check_bytes(h.mem_used_bytes);
        check_bytes(h.swap_total_bytes);
        check_bytes(h.swap_free_bytes);
        return 0;
}
