/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/meminfo: memory and swap totals. */
#ifndef VIGIL_COLLECT_PROC_MEMINFO_H
#define VIGIL_COLLECT_PROC_MEMINFO_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

enum meminfo_key {
        MI_MEM_TOTAL,
        MI_MEM_FREE,
        MI_MEM_AVAILABLE, /* since Linux 3.14 */
        MI_BUFFERS,
        MI_CACHED,
        MI_SWAP_TOTAL,
        MI_SWAP_FREE,
        MI_DIRTY,     /* file pages not yet written (NR_FILE_DIRTY, fs/proc/meminfo.c) */
        MI_WRITEBACK, /* pages being written (NR_WRITEBACK) */
        MI_NKEYS
};

struct proc_meminfo {
        uint64_t kb[MI_NKEYS];
        unsigned seen;  /* bit (1u << key): the key's line is there (well formed or not) */
        unsigned valid; /* bit (1u << key): kb[key] holds its value */
};

/* The machine's unwritten file data, Dirty plus Writeback, in kB; -1 when either line
 * was not read (util/fssync.h decides on it whether a sync round may take syncfs). */
long long proc_meminfo_unwritten_kb(const struct proc_meminfo *m);

/* Parse s[0..n). A value counts only on a complete line ('\n'-terminated) of the
 * form "Key:  <digits> kB" with no overflow. Returns 0 when MemTotal was read, else
 * -EINVAL (*ret is filled either way). */
int proc_meminfo_parse(const char *s, size_t n, struct proc_meminfo *ret);

/* The frame's memory fields from a parsed file, in bytes: mem_total, mem_avail
 * (MemAvailable; MemFree + Buffers + Cached only where the kernel has no MemAvailable
 * line), mem_used = total - available (NAN if available > total), swap_total,
 * swap_free, unwritten (Dirty + Writeback). Missing inputs give NAN. */
void proc_meminfo_apply(const struct proc_meminfo *m, struct host_frame *h);

/* The source (VCLOCK_HOST): the fields above. */
struct vigil_source;
extern const struct vigil_source vigil_source_proc_meminfo;

#endif
