/* The /metrics families of the frame's values, one table per area, each from the metric
 * slots of the area's list (core/host_values.def, core/watch_values.def,
 * core/rpi_values.def, core/gpu_values.c): a value's metric is defined once, in its
 * entry, and sink/metrics.c renders the tables in their order. Rows come in two forms:
 *
 *   MR_SERIES: one series, a double member of the area's struct (by name and offset)
 *              times scale, with an optional label key="val"; a row with a name starts a
 *              family, the rows after it without a name add series to that family.
 *   MR_CODE:   a family whose samples sink/metrics.c builds in code (arrays, text
 *              labels, values derived from several members), at this place in the
 *              order; member names the members it reads, space-separated (what it
 *              reads outside the area's struct in parentheses, last).
 *
 * Names follow the Prometheus conventions of sink/metrics.h. */
#ifndef VIGIL_CORE_METRIC_DEFS_H
#define VIGIL_CORE_METRIC_DEFS_H

#include <stddef.h>

enum metric_row { MR_NONE, MR_SERIES, MR_CODE };

/* The GPU's code-rendered families (MR_CODE rows of core/gpu_values.c): sink/metrics.c
 * has one render function for each, by id. */
enum metric_code {
        MC_NONE,
        MC_GPU_UP,
        MC_GPU_INFO,
        MC_GPU_PSTATE,
        MC_GPU_PROCESSES,
        MC_GPU_CLOCKS_EVENT_REASON,
        MC_GPU_RECOVERY_ACTION,
        MC_GPU_FAN_SPEED,
        MC_GPU_FAN_TARGET,
        MC_COUNT
};

struct metric_def {
        enum metric_row row;
        const char *member;    /* the member of the area's struct it renders */
        const char *name;      /* family name; NULL: one more series of the family above */
        const char *type;      /* "gauge" or "counter" (NULL with name) */
        const char *help;      /* the # HELP text (NULL with name) */
        const char *key;       /* MR_SERIES: a label name, or NULL */
        const char *val;       /* its value */
        size_t off;            /* MR_SERIES: offsetof the double member */
        double scale;          /* MR_SERIES: the sample is the member times scale */
        enum metric_code code; /* MR_CODE of the GPU's table: its render function */
};

/* An area's table: its rows, in exposition order. */
struct metric_table {
        const struct metric_def *rows;
        size_t n;
};

/* struct host_frame (core/host_values.def); struct watch_frame, one series per watch
 * (core/watch_values.def); struct rpi_frame (core/rpi_values.def); struct gpu_frame,
 * one series per GPU (core/gpu_values.c). */
extern const struct metric_table host_metrics, watch_metrics, rpi_metrics;
/* struct fs_frame, one series per watched file system (core/fs_values.def); struct
 * storage_frame (core/storage_values.def): sink/metrics_storage.c renders both. */
extern const struct metric_table fs_metrics, storage_metrics;

#endif
