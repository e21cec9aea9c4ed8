/* SPDX-License-Identifier: Apache-2.0 */
/* CPU frequency scaling: every cpuN's scaling_cur_freq (the kernel's requested
 * frequency, not a measured clock), cpu0's governor and policy maximum. A machine
 * without cpufreq (most VMs) has missing values, and the source keeps running
 * (rescanning at most every 60 s, as it does when a CPU's files went away).
 *
 * Cores that share a policy (cpuN/cpufreq is a link to policyM, as on the Raspberry
 * Pi) share one read per sample. Frame: host.nfreq (highest cpuN with cpufreq + 1),
 * host.cpu_freq_hz[N], host.governor, host.cpu_max_freq_hz. */
#ifndef VIGIL_COLLECT_SYS_CPUFREQ_H
#define VIGIL_COLLECT_SYS_CPUFREQ_H

#include <stddef.h>

/* Parse a kHz value ("600000\n") into Hz. 0 or -EINVAL/-ERANGE; *ret_hz untouched on
 * failure. */
int cpufreq_parse_khz(const char *s, size_t n, double *ret_hz);

struct vigil_source;
extern const struct vigil_source vigil_source_sys_cpufreq;

#endif
