/* SPDX-License-Identifier: Apache-2.0 */
/* The watches of the host log that have columns of their own (every --watch other
 * than player and chromium): NAME_procs, NAME_pss_mb, NAME_cpu_pct, NAME_threads.
 * `vigil report` and the daemon's exit summary summarise each: min/avg/max of the four,
 * and the robust slope of its process count and PSS (a leak shows as either rising). */
#ifndef VIGIL_CORE_WATCH_ACC_H
#define VIGIL_CORE_WATCH_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "core/host_row.h"
#include "util/stats.h"
#include "util/strbuf.h"

#define WATCH_ACC_MAX 16 /* the daemon's --watch limit */

struct watch_acc_one {
        char name[32];
        struct stat_acc acc[WC_COUNT];
        struct stat_series procs, pss; /* for the slopes */
};

struct watch_acc {
        unsigned n;
        size_t series_cap;
        struct watch_acc_one w[WATCH_ACC_MAX];
};

/* Set up empty; series keep at most series_cap points each. */
void watch_acc_init(struct watch_acc *a, size_t series_cap);
/* The slot of the watch named name[0..len) (added when new). -ENOSPC when
 * WATCH_ACC_MAX watches are known, -ENOMEM, -EINVAL for a name too long. */
int watch_acc_slot(struct watch_acc *a, const char *name, size_t len);
/* One row of a watch: values in the CSV's units, NAN when missing; t in seconds. */
void watch_acc_add(struct watch_acc *a, unsigned slot, double t, const double v[WC_COUNT]);
/* The "Watches" section (nothing when no watch was seen). */
void watch_acc_text(const struct watch_acc *a, struct strbuf *out);
/* Free the series (idempotent). */
void watch_acc_free(struct watch_acc *a);

#endif
