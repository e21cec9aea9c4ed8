/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/uptime: seconds since boot. */
#ifndef VIGIL_COLLECT_PROC_UPTIME_H
#define VIGIL_COLLECT_PROC_UPTIME_H

#include <stddef.h>

/* Parse the first field of s[0..n): a number >= 0 followed by a blank or newline.
 * 0 or -EINVAL; *ret_s untouched on failure. */
int proc_uptime_parse(const char *s, size_t n, double *ret_s);

/* The source (VCLOCK_HOST): host.uptime_s. */
struct vigil_source;
extern const struct vigil_source vigil_source_proc_uptime;

#endif
