/* SPDX-License-Identifier: Apache-2.0 */
/* The summary of one GPU's log: min/avg/max of temperature, power, clocks and fans,
 * counts of each anomaly flag, NVML failure rows, and the throttle reasons seen (with
 * their share of samples). Fed row by row, like the host summary, so the daemon can
 * feed it from its own values. Keeps bounded lists of throttle spans and anomaly
 * moments for the HTML charts. */
#ifndef VIGIL_REPORT_GPU_ACC_H
#define VIGIL_REPORT_GPU_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "encode/gpu_columns.h"
#include "util/stats.h"
#include "util/strbuf.h"

/* The GPU columns the report reads back: enum gpu_field (core/fields.h), from the
 * report slots of gpu_fields[] (core/gpu_values.c). */

/* The CSV column name of a field: the writer's (core/gpu_values.c), "" if none. */
const char *gpu_field_name(enum gpu_field f);

#define GPU_ACC_MAX_FANS    8
#define GPU_ACC_MAX_TYPES   24   /* distinct anomaly flag types counted */
#define GPU_ACC_MAX_REASONS 16   /* distinct throttle reasons */
#define GPU_ACC_MAX_BANDS   4000 /* throttle spans kept for charts */
#define GPU_ACC_MAX_MARKS   4000 /* anomaly and failure moments kept for charts */

/* One GPU sample. Values in the CSV's units; NAN when missing. Strings are only read
 * during gpu_acc_add(). */
struct gpu_row {
        double t;              /* Unix time, seconds */
        const char *timestamp; /* as logged: "2026/12/02 18:12:47.123" */
        double v[GPU_F_COUNT];
        unsigned nfans;
        double fan_speed_pct[GPU_ACC_MAX_FANS];
        double fan_target_pct[GPU_ACC_MAX_FANS];
        const char *throttle_reasons; /* '|'-joined names, "None" for none */
        const char *flags;            /* '|'-joined anomaly flags, "" for none */
        const char *failure; /* non-NULL: a failure row ("NVML_FAILED:..."); values unused */
};

struct gpu_band {
        double t0, t1;
        unsigned reason; /* index into reasons[] */
};

struct gpu_mark {
        double t;
        char text[96];
};

struct gpu_acc {
        char name[32]; /* "gpu0" */
        uint64_t rows, failures;
        char first_ts[40], last_ts[40];
        double first_t, last_t, dt_est;
        struct stat_acc acc[GPU_F_COUNT];
        struct stat_acc fan_speed[GPU_ACC_MAX_FANS], fan_target[GPU_ACC_MAX_FANS];
        unsigned nfans;
        struct stat_series series[GPU_F_COUNT];          /* .p NULL unless charts */
        struct stat_series fan_series[GPU_ACC_MAX_FANS]; /* speeds, charts only */
        unsigned ntypes;
        char type_name[GPU_ACC_MAX_TYPES][24];
        uint64_t type_count[GPU_ACC_MAX_TYPES];
        double type_first_t[GPU_ACC_MAX_TYPES], type_last_t[GPU_ACC_MAX_TYPES]; /* Unix s */
        char first_failure[96], first_failure_ts[40];
        double first_failure_t, last_failure_t; /* Unix s; NAN without failures */
        unsigned nreasons;
        char reason_name[GPU_ACC_MAX_REASONS][32];
        uint64_t reason_samples[GPU_ACC_MAX_REASONS];
        double reason_since[GPU_ACC_MAX_REASONS]; /* NAN: not active now */
        char last_reasons[160];
        unsigned last_mask;
        struct gpu_band *bands; /* charts only */
        size_t nbands;
        struct gpu_mark *marks; /* charts only */
        size_t nmarks;
        uint64_t dropped; /* bands, marks, types or reasons beyond their bounds */
};

#define GPU_ACC_CHARTS 0x1

/* Set up an empty accumulator named name ("gpu0"). flags: GPU_ACC_CHARTS keeps the
 * series, spans and moments for charts. 0 or -ENOMEM; free with gpu_acc_free()
 * (NULL-safe, idempotent). */
int gpu_acc_init(struct gpu_acc *a, const char *name, size_t series_cap, unsigned flags);
void gpu_acc_free(struct gpu_acc *a);
/* Add one row (rows in time order). No allocation, no I/O. */
void gpu_acc_add(struct gpu_acc *a, const struct gpu_row *row);
/* The throttle span of reason r still open at the end, as [since, last_t]; false when
 * the reason is not active at the end. */
bool gpu_acc_open_band(const struct gpu_acc *a, unsigned r, struct gpu_band *ret);
/* Append the GPU's summary text to out; nothing when no row was added. */
void gpu_acc_text(const struct gpu_acc *a, struct strbuf *out);

#endif
