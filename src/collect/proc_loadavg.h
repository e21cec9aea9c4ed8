/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/loadavg: the 1, 5 and 15 minute load averages. */
#ifndef VIGIL_COLLECT_PROC_LOADAVG_H
#define VIGIL_COLLECT_PROC_LOADAVG_H

#include <stddef.h>

struct proc_loadavg {
        double load[3]; /* 1, 5, 15 minutes; NAN when missing */
};

/* Parse s[0..n): each of the first three fields counts only when it is a number >= 0
 * followed by a blank or newline (a cut field is missing); a field after a bad one is
 * missing too. Returns 0 when all three were read, else -EINVAL. */
int proc_loadavg_parse(const char *s, size_t n, struct proc_loadavg *ret);

/* The source (VCLOCK_HOST): host.load1, load5, load15. */
struct vigil_source;
extern const struct vigil_source vigil_source_proc_loadavg;

#endif
