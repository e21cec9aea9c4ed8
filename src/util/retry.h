/* SPDX-License-Identifier: Apache-2.0 */
/* A retry gate: lets an action (reopening a file, rescanning a directory) happen at
 * most once per interval, driven by the caller's monotonic clock. */
#ifndef VIGIL_UTIL_RETRY_H
#define VIGIL_UTIL_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#define RETRY_INTERVAL_NS (60LL * 1000000000LL)

struct retry_gate {
        int64_t next_ns; /* the earliest time of the next retry */
        bool armed;      /* next_ns is set */
};

/* True when a retry may happen at mono_ns (CLOCK_MONOTONIC, ns); then the next one is
 * allowed interval_ns later. The first call only arms the gate and returns false: the
 * caller has just tried (at init). A zeroed gate is a valid, unarmed gate. */
bool retry_due(struct retry_gate *g, int64_t mono_ns, int64_t interval_ns);

#endif
