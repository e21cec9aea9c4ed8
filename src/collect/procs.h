/* SPDX-License-Identifier: Apache-2.0 */
/* Process watches (--watch NAME=PATTERN): the pure parsers of /proc/PID files, the
 * source itself (vigil_source_procs) and the getters the daemon and tests use on its
 * state. The source is in procs.c, the parsers in procs_parse.c. */
#ifndef VIGIL_COLLECT_PROCS_H
#define VIGIL_COLLECT_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/vigil.h"

/* What vigil takes from one /proc/PID/stat line. */
struct proc_stat {
        char comm[64];        /* between the first '(' and the last ')', cut to 63 bytes */
        char state;           /* field 3: R, S, D, Z, X ... */
        uint64_t utime;       /* field 14, clock ticks */
        uint64_t stime;       /* field 15, clock ticks */
        uint64_t num_threads; /* field 20 */
        uint64_t starttime;   /* field 22, clock ticks since boot */
};

/* Parse /proc/PID/stat, "812 (python3) S 1 812 812 0 -1 4194560 ... 1500 ...".
 * The comm field may hold spaces and ')' itself, so the fields after it are read from
 * the LAST ')'. buf[0..len) need not be NUL-terminated. 0, or -EINVAL when the line
 * is malformed or stops before field 22; *ret is untouched on failure. */
int procs_parse_stat(const char *buf, size_t len, struct proc_stat *ret);

/* The "Pss:" line of /proc/PID/smaps_rollup, "Pss:  353 kB" (not Pss_Anon: and the
 * like), in kB. 0, or -ENODATA when there is no such line, -EINVAL when it does not
 * hold a number; *ret_kb is untouched on failure. */
int procs_parse_pss_kb(const char *buf, size_t len, uint64_t *ret_kb);

/* Turn a raw /proc/PID/cmdline into the string the reference matched, psutil's
 * ' '.join(cmdline): one trailing separator is dropped (a NUL, or a space when the
 * process rewrote its command line with spaces, as Chromium does), and when the
 * arguments are NUL-separated each NUL becomes a space. truncated: buf holds only the
 * start of a longer command line (its end is unknown: nothing is dropped, and NULs
 * become spaces if there are any). Works in place; returns the new length. */
size_t procs_cmdline_normalize(char *buf, size_t len, bool truncated);

/* True when the normalized command line cmd[0..len) contains pattern (a non-empty
 * NUL-terminated string). An empty command line (kernel threads, zombies) never
 * matches. */
bool procs_cmdline_match(const char *cmd, size_t len, const char *pattern);

/* True when the /proc/PID/cgroup text buf[0..len) puts the process in systemd unit
 * unit: a line's path ("0::/system.slice/player.service" under cgroup v2, one line
 * per hierarchy "4:pids:/system.slice/player.service" under v1;
 * Documentation/admin-guide/cgroup-v2.rst, "/proc/$PID/cgroup") has a component equal
 * to unit, the unit's own cgroup or one below it. */
bool procs_cgroup_in_unit(const char *buf, size_t len, const char *unit);

/* The source: runs on VCLOCK_HOST (count, CPU %, threads, oldest age of each watch)
 * and VCLOCK_PSS (PSS totals). init returns -ENODEV when there are no watches. */
extern const struct vigil_source vigil_source_procs;

/* The source's state, as its init hands it out (opaque). */
struct procs_state;

/* How many /proc/PID/cmdline files the source has read since init: each process is
 * classified once (again only when it is new, its pid was reused, or it may have
 * just exec'd), so on a steady machine this stops growing. */
uint64_t procs_cmdline_reads(const struct procs_state *s);

/* How many watched processes had an unreadable smaps_rollup at the last PSS sample
 * (their watch's PSS total is then missing), and in *ret_errno (may be NULL) the
 * positive errno of the first one, typically EACCES without ptrace permission. */
unsigned procs_pss_unreadable(const struct procs_state *s, int *ret_errno);

#endif
