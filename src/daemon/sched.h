/* SPDX-License-Identifier: Apache-2.0 */
/* The scheduler: absolute deadlines on CLOCK_MONOTONIC, one series per clock.
 * Deadline k of a clock is origin + k * interval, always: a late wake-up never shifts
 * later deadlines, and deadlines that passed unsampled are counted as missed. */
#ifndef VIGIL_CORE_SCHED_H
#define VIGIL_CORE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vigil.h"

#define SCHED_LATENESS_BUCKETS 96

struct sched_clock {
        bool enabled;
        int64_t interval_ns;
        uint64_t k;      /* index of the next deadline */
        uint64_t missed; /* deadlines skipped because the loop woke too late */
};

struct sched {
        int64_t origin_ns;
        struct sched_clock c[VCLOCK_COUNT];
        /* Wake-up lateness behind the deadline, quarter-octave buckets from 1 us. */
        uint64_t lateness[SCHED_LATENESS_BUCKETS];
        uint64_t nlateness;
};

/* Start the series at origin_ns; the first deadline of each clock is one interval later. */
void sched_init(struct sched *s, int64_t origin_ns);
/* Enable a clock with its interval (> 0). */
void sched_enable(struct sched *s, enum vigil_clock c, int64_t interval_ns);
/* The earliest next deadline over the enabled clocks (INT64_MAX when none). */
int64_t sched_next(const struct sched *s);
/* The clocks due at now_ns (a VCLOCK_BIT mask), advancing each past now_ns. Deadlines
 * passed over count as missed; the wake-up's lateness is recorded. */
unsigned sched_due(struct sched *s, int64_t now_ns);
/* Total missed deadlines over all clocks. */
uint64_t sched_missed(const struct sched *s);
/* The upper bound of lateness bucket b in ns: 1 us * 2^(b/4). */
double sched_bucket_bound_ns(unsigned b);
/* The lateness bucket of ns: the first b whose bound is at least ns (the last bucket
 * for anything beyond it). */
unsigned sched_lateness_bucket(int64_t ns);
/* The q-quantile (0..1) of recorded lateness in nanoseconds (upper bucket bound);
 * -1 when nothing was recorded. */
int64_t sched_lateness_quantile(const struct sched *s, double q);

#endif
