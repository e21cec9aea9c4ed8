/* SPDX-License-Identifier: Apache-2.0 */
/* Processes the kernel ends, as its log tells it: the OOM killer's lines and the lines
 * of a process killed by a fault it did not handle. The formats, Linux 5.10 to 6.12:
 *
 *   oom_kill  Out of memory: Killed process 1234 (chromium) total-vm:1048576kB,
 *             anon-rss:524288kB, file-rss:2048kB, shmem-rss:1024kB, UID:1000
 *             pgtables:1200kB oom_score_adj:300
 *             (mm/oom_kill.c, __oom_kill_process: "%s: Killed process %d (%s)
 *             total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB,
 *             UID:%u pgtables:%lukB oom_score_adj:%hd"; the message is "Out of memory"
 *             (out_of_memory), "Memory cgroup out of memory" (mem_cgroup_out_of_memory)
 *             or "Out of memory (oom_kill_allocating_task)")
 *   oom_summary
 *             oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,
 *             mems_allowed=0,oom_memcg=/system.slice/player.service,
 *             task_memcg=/system.slice/player.service,task=chromium,pid=1234,uid=1000
 *             (mm/oom_kill.c, dump_oom_summary: "oom-kill:constraint=%s,nodemask=%*pbl",
 *             then cpuset_print_current_mems_allowed's ",cpuset=%s,mems_allowed=%*pbl",
 *             mem_cgroup_print_oom_context's ",oom_memcg=PATH" or ",global_oom" and
 *             ",task_memcg=PATH", then ",task=%s,pid=%d,uid=%d"; printed before the
 *             Killed line of the same victim)
 *   segfault  chromium[1234]: segfault at 0 ip 00007f3a2b1c4d5e sp 00007ffc9a8b7c60
 *             error 4 in libc.so.6[7f3a2b100000+195000] likely on CPU 2 (core 2,
 *             socket 0)   (arch/x86/mm/fault.c, show_signal_msg: "%s%s[%d]: segfault
 *             at %lx ip %px sp %px error %lx", " in " the mapping, from 6.2 the CPU)
 *   trap      traps: chromium[1234] general protection fault ip:7f3a2b1c4d5e
 *             sp:7ffc9a8b7c60 error:0 in libc.so.6[...]   (arch/x86/kernel/traps.c,
 *             pr_fmt "traps: ", show_signal: "%s[%d] %s%s ip:%lx sp:%lx error:%lx", the
 *             description "general protection fault", or "trap " and "int3", "divide
 *             error", "invalid opcode" ...)
 *   unhandled chromium[1234]: unhandled exception: DABT (lower EL), ESR 0x0000000092000006,
 *             level 2 translation fault in libEGL.so[...]   (arch/arm64/kernel/traps.c,
 *             arm64_show_signal: "%s[%d]: unhandled exception: ", with the ESR class
 *             when there is one, then the fault's name from arch/arm64/mm/fault.c's
 *             fault_info[], "level N translation fault", "level N permission fault")
 *
 * comm is the task's name, at most 15 bytes (TASK_COMM_LEN 16, include/linux/sched.h),
 * and may hold any byte but NUL: the pid is found as the "[digits]" that the fixed
 * text follows. Pure: no state, no logging. */
#ifndef VIGIL_COLLECT_HOST_KLOG_H
#define VIGIL_COLLECT_HOST_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum host_klog_kind {
        HKLOG_OOM_KILL,    /* "...: Killed process PID (COMM) ..." */
        HKLOG_OOM_SUMMARY, /* "oom-kill:constraint=...,task=COMM,pid=PID,uid=UID" */
        HKLOG_SEGFAULT,    /* "COMM[PID]: segfault at ..." */
        HKLOG_TRAP,        /* "traps: COMM[PID] general protection fault ..." */
        HKLOG_UNHANDLED,   /* "COMM[PID]: unhandled exception: ..." (arm64) */
        HKLOG_KIND_COUNT
};

#define HKLOG_COMM_MAX   64  /* comm, NUL included (the kernel's is 16 bytes) */
#define HKLOG_CGROUP_MAX 160 /* a cgroup path, cut beyond */
#define HKLOG_WHAT_MAX   80  /* what killed it, cut beyond */

struct host_klog_line {
        enum host_klog_kind kind;
        int32_t pid;
        char comm[HKLOG_COMM_MAX];
        /* OOM: killed by a memory cgroup's limit (the Killed line's "Memory cgroup out
         * of memory", the summary's CONSTRAINT_MEMCG) rather than the machine's. */
        bool memcg;
        /* oom_kill: anon-rss + file-rss + shmem-rss in kB; -1 when not on the line. */
        int64_t rss_kb;
        char cgroup[HKLOG_CGROUP_MAX]; /* oom_summary: task_memcg; "" when absent */
        /* What killed it, for a person: "segfault", "general protection fault",
         * "trap int3", "level 2 translation fault", "out of memory". */
        char what[HKLOG_WHAT_MAX];
};

/* Parse one kernel log record's text[0..len) (need not be NUL-terminated). 0, or
 * -ENOENT when it is none of the lines above (*ret is then untouched). */
int host_klog_parse(const char *text, size_t len, struct host_klog_line *ret);

/* "oom_kill", "oom_summary", "segfault", "trap", "unhandled"; "?" out of range. */
const char *host_klog_kind_name(enum host_klog_kind k);

#endif
