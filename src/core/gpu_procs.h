/* SPDX-License-Identifier: Apache-2.0 */
/* The processes on one GPU, as NVML last listed them (compute and graphics contexts),
 * with the name and command line /proc gave for each pid. One list per GPU slot lives
 * in the frame (frame->gpu_procs[slot]); the NVML source refreshes it on a slow
 * cadence (--gpu-proc-interval) and at every Xid, crash or recovery, and keeps the last
 * list when the GPU stops answering, so a crash snapshot shows what ran before. */
#ifndef VIGIL_CORE_GPU_PROCS_H
#define VIGIL_CORE_GPU_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/workload.h"
#include "util/strbuf.h"

#define VIGIL_GPU_PROCS_MAX  16 /* processes kept per GPU (more are counted, not listed) */
#define VIGIL_GPU_PROC_NAME  16 /* /proc/PID/comm: at most 15 bytes (TASK_COMM_LEN 16) */
#define VIGIL_GPU_PROC_CMDLN 96 /* start of /proc/PID/cmdline, NULs as spaces */

enum gpu_proc_type { GPU_PROC_COMPUTE, GPU_PROC_GRAPHICS, GPU_PROC_TYPES };

struct gpu_proc {
        uint32_t pid;
        uint8_t type;      /* enum gpu_proc_type */
        double used_bytes; /* GPU memory of the process; NAN when NVML does not say */
        char name[VIGIL_GPU_PROC_NAME];
        char cmdline[VIGIL_GPU_PROC_CMDLN]; /* "" when /proc has no such pid (or no access) */
        struct workload work; /* its pod, Slurm step or unit (core/workload.h); WL_NONE */
};

struct gpu_proc_list {
        bool valid;                     /* a list was taken (n may be 0: nothing running) */
        bool supported[GPU_PROC_TYPES]; /* NVML answered this type's query */
        unsigned count[GPU_PROC_TYPES]; /* processes NVML reported, listed or not */
        int64_t taken_real_ns;          /* when it was taken (CLOCK_REALTIME) */
        char reason[16];                /* why: "start", "interval", "xid", "recovered", ... */
        unsigned n;                     /* entries in p[] (at most VIGIL_GPU_PROCS_MAX) */
        struct gpu_proc p[VIGIL_GPU_PROCS_MAX];
};

/* One line per process, "  PID TYPE NAME MEM CMDLINE", with a WORKLOAD column before
 * the command line (workload_format()) when any process has one, for snapshots and logs; "(none)" for an empty list,
 * "(not recorded)" when l is not valid. */
void gpu_procs_format(struct strbuf *sb, const struct gpu_proc_list *l);

/* The pids, "4242:python3,77:Xorg" (at most the first 8), for events.log. */
void gpu_procs_format_short(struct strbuf *sb, const struct gpu_proc_list *l);

/* The workloads of the same processes, "4242=pod:ml/train-0:<uid>:<id>,77=unit:gdm.service"
 * (those with one; at most the first 8 processes), "" when none has one: events.log's
 * workloads= key. */
void gpu_procs_format_workloads(struct strbuf *sb, const struct gpu_proc_list *l);

/* The name of a type: "compute" or "graphics". */
const char *gpu_proc_type_name(enum gpu_proc_type t);

#endif
