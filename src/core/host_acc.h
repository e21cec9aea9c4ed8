/* SPDX-License-Identifier: Apache-2.0 */
/* The host summary: what the reference monitor's summarise() prints (min/avg/max,
 * the first-vs-last-quarter leak check, the throttle history), in its exact format,
 * followed by vigil's robust slopes and projections. Fed one row at a time, either
 * from host CSV rows (`vigil report`) or from the daemon's own values at each host
 * sample (its exit summary), so both print the same text for the same rows. */
#ifndef VIGIL_CORE_HOST_ACC_H
#define VIGIL_CORE_HOST_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/host_row.h"
#include "util/stats.h"
#include "util/strbuf.h"

/* One host sample. Values in the CSV's units (%, C, V, MHz, MB, counts); NAN when
 * missing. The strings are only read during host_acc_add(). */
struct host_acc_row {
        double t;                   /* Unix time, seconds */
        const char *timestamp;      /* as logged: "2026-12-02T18:12:47.123" */
        double v[HC_COUNT];         /* each numeric column (host_col_numeric) */
        const char *throttle_flags; /* comma-joined, as logged; NULL or "" for none */
};

#define HOST_ACC_MAX_FLAGS   64 /* distinct throttle flags remembered */
#define HOST_ACC_FLAG_LEN    64
#define HOST_ACC_MAX_CHANGES 2000 /* throttle-flag changes kept for chart markers */

struct host_flag_change {
        double t;
        char flags[160]; /* the flags from then on ("" = none) */
};

struct host_acc {
        uint64_t rows;
        char first_ts[40], last_ts[40];
        double first_t, last_t;
        struct stat_acc acc[HC_COUNT];
        struct stat_series series[HC_COUNT]; /* .p is NULL where not kept */
        double dt_est;                       /* typical time between rows */
        unsigned nflags;
        char flags[HOST_ACC_MAX_FLAGS][HOST_ACC_FLAG_LEN]; /* the union, unsorted */
        bool flags_dropped;                                /* more than fit */
        char last_flags[160];
        size_t nchanges;
        uint64_t changes_dropped;
        struct host_flag_change *changes; /* NULL unless charts are wanted */
};

/* What a slope per hour needs before it is printed, and a projection ("reaches 0 in
 * ~1.8 h") before it is made: a span of rows (the leak rule's, detect/trend.c), a
 * number of samples, and a trend the Mann-Kendall test finds at the 5 % level (|z| at
 * least 1.96, util/stats.h). A 15 s run says it has not enough data. */
#define HOST_ACC_TREND_MIN_SPAN_S  1800.0
#define HOST_ACC_TREND_MIN_SAMPLES 30
#define HOST_ACC_TREND_Z           1.96

/* Keep a series of every numeric column, any of which the HTML report may chart (not
 * only the trend fields'): about 30 series. */
#define HOST_ACC_CHARTS 0x1

/* Set up an empty accumulator; series keep at most series_cap points
 * (STAT_SERIES_CAP for the same figures as `vigil report`). flags: HOST_ACC_*.
 * 0 or -ENOMEM. Memory: about 32 bytes per series point, six series without
 * HOST_ACC_CHARTS. Free with host_acc_free() (NULL-safe, idempotent). */
int host_acc_init(struct host_acc *a, size_t series_cap, unsigned flags);
void host_acc_free(struct host_acc *a);

/* Add one row (rows in time order). Cheap: no allocation, no I/O. */
void host_acc_add(struct host_acc *a, const struct host_acc_row *row);

/* True when the rows came from a Raspberry Pi (firmware voltage or clocks, or throttle
 * flags, were recorded). */
bool host_acc_is_pi(const struct host_acc *a);

/* When the memory available runs out at its own trend's rate, in hours: its Theil-Sen
 * slope and level, over at least HOST_ACC_TREND_MIN_SPAN_S and _SAMPLES, falling with
 * a significant trend (|z| >= HOST_ACC_TREND_Z); NAN otherwise. The one projection the
 * summary's slopes and `vigil report`'s leak findings both give. */
double host_acc_runs_out_h(const struct host_acc *a);

/* Append the summary text to out: the reference summarise() block, exactly, then
 * vigil's slopes per hour and projections. Nothing when no row was added. On other
 * machines the Pi's rows, its throttle line and the Pi player's leak check (the
 * reference's trend rows, the player's and Chromium's slopes) are left out (not
 * "(no data)", "falling +0.0" or "(too few samples)"). */
void host_acc_text(const struct host_acc *a, struct strbuf *out);

/* host_acc_text() with HOST_ACC_TEXT_* flags. */
#define HOST_ACC_TEXT_NO_REF_TREND                                                                 \
        0x1 /* without the reference's leak-check rows (the Pi
                                        * player's), for a GPU server's exit summary */
/* The rule lines fit 80 columns (2 + 78 '=', not the reference's 84): the exit summary
 * on a terminal, where a longer rule wraps. */
#define HOST_ACC_TEXT_RULE_80 0x2
void host_acc_text_opt(const struct host_acc *a, struct strbuf *out, unsigned flags);

#endif
