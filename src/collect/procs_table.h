/* SPDX-License-Identifier: Apache-2.0 */
/* The procs source's state and its pid table (procs_table.c); private to
 * src/collect/procs*.c. */
#ifndef VIGIL_COLLECT_PROCS_TABLE_H
#define VIGIL_COLLECT_PROCS_TABLE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/procs.h"

#define PROCS_MAX_PIDS    32768 /* pids tracked; beyond, every watch reads missing */
#define PROCS_MAX_MATCHES 4096  /* matching processes measured; beyond, counted only */
#define PROCS_MAX_FDS     256   /* kept-open stat and smaps_rollup fds, all slots together */
#define PROCS_CMDLINE_MAX 4096  /* bytes of a command line looked at */

enum { PE_CLASSIFY = 1 }; /* read the command line at the next scan */

/* One listed pid. */
struct proc_entry {
        int32_t pid;
        int32_t slot;  /* index in slots[] when matching and measured, else -1 */
        uint32_t mask; /* bit w: the command line contains watch w's pattern */
        uint32_t flags;
        uint64_t ino;          /* d_ino of /proc/PID when first listed */
        int64_t first_seen_ns; /* tick time it was first listed (a new process) */
};

/* One pid of a /proc listing. */
struct proc_listed {
        int32_t pid;
        uint64_t ino;
};

/* What is kept about a matching process between samples. */
struct proc_slot {
        int fd;            /* kept /proc/PID/stat, or -1: opened for each read */
        int pss_fd;        /* kept /proc/PID/smaps_rollup, or -1 (opened at the first PSS) */
        int32_t next_free; /* free-list link while unused */
        bool have_start, have_base, have_comm;
        uint32_t comm_hash;
        uint64_t starttime; /* clock ticks since boot */
        uint64_t cpu_ticks; /* utime+stime at base_ns */
        int64_t base_ns;
};

struct procs_state {
        const struct vigil_options *opt;
        unsigned nwatches;
        long clk_tck;
        int proc_fd;      /* root/proc */
        DIR *dir;         /* a second fd on root/proc, rewound for each scan */
        int uptime_fd;    /* root/proc/uptime under --root, else -1 */
        bool rooted;      /* --root given: ages from its proc/uptime, no self to skip */
        int32_t self_pid; /* vigil itself, never matched (0 under --root) */

        /* The pid table, sorted by pid; next[] is the merge's scratch, listed[] the
         * scan's. All three have cap entries. */
        struct proc_entry *ents, *next;
        struct proc_listed *listed;
        size_t nents, nlisted, cap;
        bool table_full; /* the last scan listed more than PROCS_MAX_PIDS pids */

        struct proc_slot *slots;
        size_t nslots, slots_cap; /* slots handed out so far, allocated */
        int32_t free_slot;        /* first free slot, -1: none */
        unsigned nfds;            /* kept fds (stat and smaps_rollup) */

        bool scanned;
        bool pss_read; /* a PSS tick ran: the first one runs with the first host tick */
        uint64_t cmdline_reads;
        unsigned pss_unreadable;
        int pss_errno;
        bool pss_warned;                 /* the missing permission has been reported */
        char buf[PROCS_CMDLINE_MAX + 1]; /* read buffer of every file */
};

/* open(2) /proc/PID/NAME (read-only, O_CLOEXEC) under the source's root. fd or -errno. */
int procs_open_pid_file(const struct procs_state *s, int32_t pid, const char *name);

/* Open the listing of /proc (s->proc_fd must be open). 0 or -errno. */
int procs_table_open(struct procs_state *s);

/* List /proc and bring the table up to date: vanished pids are dropped (their slots
 * released); new pids, and pids whose /proc inode changed, get PE_CLASSIFY and
 * first_seen_ns = now_ns (a changed one keeps its slot, its stat fd reopened).
 * 0, or -errno (the table is unchanged). */
int procs_table_scan(struct procs_state *s, int64_t now_ns);

/* Close every kept fd and free the table; accepts a half-opened state. */
void procs_table_close(struct procs_state *s);

/* A fresh measurement slot for pid, with its stat fd kept open while fewer than
 * PROCS_MAX_FDS are. The slot index, or -1 when PROCS_MAX_MATCHES are in use. */
int32_t procs_slot_acquire(struct procs_state *s, int32_t pid);

/* Give e's slot back (closing its fds); e->slot becomes -1. */
void procs_slot_release(struct procs_state *s, struct proc_entry *e);

/* Close the slot's kept smaps_rollup fd, if any (the process behind it may be another). */
void procs_slot_drop_pss(struct procs_state *s, struct proc_slot *sl);

#endif
