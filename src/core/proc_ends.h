/* SPDX-License-Identifier: Apache-2.0 */
/* Who the watched processes are, and which processes the kernel ended: what the process
 * watches (collect/procs.c) and the kernel log's process lines (detect/kernel_host.c)
 * hand to the detectors that name a victim or a cause (detect/kernel_host.c,
 * detect/watch_live.c). Both live in the daemon's context (core/vigil.h), owned by the
 * main loop. */
#ifndef VIGIL_CORE_PROC_ENDS_H
#define VIGIL_CORE_PROC_ENDS_H

#include <stdbool.h>
#include <stdint.h>

#define WATCH_PIDS_MAX 32 /* pids of a watch kept per tick: the lowest ones */
#define PROC_ENDS_MAX  16 /* processes the kernel ended, newest kept */

/* One watch's processes at the last host tick. */
struct watch_procs {
        bool known;     /* the tick's scan listed every process (else nothing below) */
        unsigned count; /* live matches */
        unsigned npids; /* used entries of pids[], the lowest pids when more match */
        int32_t pids[WATCH_PIDS_MAX];
        int32_t leader;        /* the oldest match (earliest start): the player itself; 0 none */
        uint64_t leader_start; /* its start time, clock ticks since boot */
        char leader_comm[64];  /* its comm (/proc/PID/stat field 2) */
};

/* True when pid is one of w's listed processes. */
bool watch_procs_has(const struct watch_procs *w, int32_t pid);

/* A process the kernel's log says it ended. */
struct proc_end {
        int32_t pid;
        char comm[64];
        char what[80]; /* "out of memory", "segfault", "general protection fault" ... */
        int watch;     /* the watch it belonged to, -1: none */
        int64_t mono_ns;
};

struct proc_ends {
        struct proc_end e[PROC_ENDS_MAX];
        unsigned n;    /* used entries */
        unsigned next; /* the entry the next end overwrites */
};

/* Remember one end (the oldest is forgotten past PROC_ENDS_MAX). */
void proc_ends_add(struct proc_ends *p, const struct proc_end *e);

/* The newest end at or after since_ns of process pid, or else of watch (>= 0) when
 * pid is 0 or not found; NULL when none. An OOM kill is preferred over a fault line of
 * the same process (the kernel may print both for one death). */
const struct proc_end *proc_ends_find(const struct proc_ends *p, int32_t pid, int watch,
                                      int64_t since_ns);

#endif
