/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/stat: CPU time counters, the base of CPU usage. */
#ifndef VIGIL_COLLECT_PROC_STAT_H
#define VIGIL_COLLECT_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

/* The counters vigil uses, in the file's order. guest and guest_nice follow in the
 * file but are already counted in user and nice, so they are not kept. */
enum proc_stat_field {
        PS_USER,
        PS_NICE,
        PS_SYSTEM,
        PS_IDLE,
        PS_IOWAIT,
        PS_IRQ,
        PS_SOFTIRQ,
        PS_STEAL,
        PS_NFIELDS
};

/* One cpu line, in USER_HZ ticks. Fields absent on old kernels read 0. */
struct proc_stat_cpu {
        uint64_t t[PS_NFIELDS];
        bool valid; /* the line was complete and well formed */
};

struct proc_stat {
        struct proc_stat_cpu total; /* the "cpu " line */
        /* Highest cpuN seen plus one, at most VIGIL_MAX_CPUS. Entries [0, ncpu) have
         * valid set (false for numbers with no line: offline cores); entries above are
         * not written. */
        unsigned ncpu;
        struct proc_stat_cpu cpu[VIGIL_MAX_CPUS];
};

/* Parse the cpu lines of /proc/stat from s[0..n) (no NUL needed) into *ret. A line
 * counts only when it ends with '\n' (a cut buffer never yields a cut number), has at
 * least user, nice, system and idle, and no number overflows; otherwise that entry is
 * invalid. Lines for cpu numbers >= VIGIL_MAX_CPUS are skipped. Parsing stops at the
 * first other line after the cpu lines (the long intr line is never scanned).
 * Returns 0, or -EINVAL when no valid cpu line was found (*ret is still filled). */
int proc_stat_parse(const char *s, size_t n, struct proc_stat *ret);

/* Busy share in percent (0..100) between two readings of one cpu line, as psutil's
 * cpu_percent: total = user+nice+system+idle+iowait+irq+softirq+steal, busy = total -
 * idle - iowait. idle and iowait may step back a little (the kernel documents iowait
 * as unreliable): such a delta counts as 0, like psutil and top. Any other counter
 * going back means the counters were reset (hotplug, overflow): NAN. NAN also when
 * either reading is invalid or no time passed. */
double proc_stat_busy_pct(const struct proc_stat_cpu *prev, const struct proc_stat_cpu *cur);

/* The source (VCLOCK_HOST): host.ncpu (the most cores ever seen, so a core that goes
 * offline keeps its index and reads missing), host.cpu_total_pct, host.cpu_pct[N] for
 * line cpuN. */
struct vigil_source;
extern const struct vigil_source vigil_source_proc_stat;

#endif
