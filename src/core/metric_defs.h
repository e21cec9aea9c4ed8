/* SPDX-License-Identifier: Apache-2.0 */
/* The /metrics slot of a value's row (struct field_desc, core/fields.h): a value's
 * metric is defined once, in its row, and metrics/metrics.c renders each area's table in
 * its order. Rows come in two forms:
 *
 *   MR_SERIES: one series, the row's double member times scale, with an optional label
 *              key="val"; a row with a name starts a family, the rows after it without a
 *              name add series to that family.
 *   MR_CODE:   a family whose samples metrics/metrics.c builds in code (arrays, text
 *              labels, values derived from several members) by the render function of
 *              its code, at this place in the order; member names the members it reads
 *              when not only the row's own, space-separated (what it reads outside the
 *              area's struct in parentheses, last).
 *
 * Names follow the Prometheus conventions of metrics/metrics.h. */
#ifndef VIGIL_CORE_METRIC_DEFS_H
#define VIGIL_CORE_METRIC_DEFS_H

#include <stddef.h>

enum metric_row { MR_NONE, MR_SERIES, MR_CODE };

/* The code-rendered families (MR_CODE rows of the area tables): metrics/metrics.c has one
 * render function for each, by id. */
enum metric_code {
        MC_NONE,
        MC_HOST_CPU_USAGE,
        MC_HOST_SWAP_USED,
        MC_HOST_CPU_FREQUENCY,
        MC_HOST_TEMPERATURE,
        MC_HOST_GOVERNOR,
        MC_RPI_THROTTLED,
        MC_RPI_V3D_BUSY,
        MC_RPI_INFO,
        MC_STORAGE_ERRORS,
        MC_SD_INFO,
        MC_DISPLAY_INFO,
        MC_GPU_UP,
        MC_GPU_INFO,
        MC_GPU_PSTATE,
        MC_GPU_PROCESSES,
        MC_GPU_CLOCKS_EVENT_REASON,
        MC_GPU_RECOVERY_ACTION,
        MC_GPU_FAN_SPEED,
        MC_GPU_FAN_TARGET,
        MC_GPU_NVLINK_UP,
        MC_GPU_NVLINK_ERRORS,
        MC_COUNT
};

struct metric_def {
        enum metric_row row;
        const char *member;    /* MR_CODE: the members it reads, when not only the row's */
        const char *name;      /* family name; NULL: one more series of the family above */
        const char *type;      /* "gauge" or "counter" (NULL with name) */
        const char *help;      /* the # HELP text (NULL with name) */
        const char *key;       /* MR_SERIES: a label name, or NULL */
        const char *val;       /* its value */
        double scale;          /* MR_SERIES: the sample is the member times scale */
        enum metric_code code; /* MR_CODE: its render function */
};

#endif
