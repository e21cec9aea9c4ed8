/* SPDX-License-Identifier: Apache-2.0 */
/* Clocks. Scheduling uses CLOCK_MONOTONIC only; wall time is for labels and file names. */
#ifndef VIGIL_UTIL_CLOCK_H
#define VIGIL_UTIL_CLOCK_H

#include <pthread.h>
#include <stdint.h>

#define NSEC_PER_SEC  1000000000LL
#define NSEC_PER_MSEC 1000000LL

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_mono_ns(void);
/* CLOCK_REALTIME in nanoseconds since the epoch. */
int64_t now_real_ns(void);
/* CLOCK_BOOTTIME in nanoseconds (counts suspend; matches /proc/uptime). */
int64_t now_boot_ns(void);
/* CPU time of this process (user+system) in nanoseconds. */
int64_t cpu_time_ns(void);
/* Initialise a condition variable whose timed waits take CLOCK_MONOTONIC deadlines. */
void cond_init_mono(pthread_cond_t *cond);

#endif
