/* SPDX-License-Identifier: Apache-2.0 */
/* Clocks. See clock.h. */
#include "util/clock.h"

#include <time.h>

#include "util/hot.h"

static int64_t read_clock(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

VIGIL_HOT int64_t now_mono_ns(void)
{
        return read_clock(CLOCK_MONOTONIC);
}

VIGIL_HOT int64_t now_real_ns(void)
{
        return read_clock(CLOCK_REALTIME);
}

int64_t now_boot_ns(void)
{
        return read_clock(CLOCK_BOOTTIME);
}

int64_t cpu_time_ns(void)
{
        return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

void cond_init_mono(pthread_cond_t *cond)
{
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(cond, &ca);
        pthread_condattr_destroy(&ca);
}
