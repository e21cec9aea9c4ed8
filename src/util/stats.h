/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming statistics with bounded memory: exact count/min/max/sum per field, a
 * decimated time series for trends and charts, the reference monitor's
 * first-vs-last-quarter delta, and a robust (Theil-Sen) slope. Pure functions; no I/O. */
#ifndef VIGIL_UTIL_STATS_H
#define VIGIL_UTIL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Points kept by a series unless told otherwise, and the points Theil-Sen works on
 * (1024 points: 523,776 pairs, 4 MB of slopes for the time of one call). */
#define STAT_SERIES_CAP    4096
#define STAT_TS_MAX_POINTS 1024

/* Exact count, minimum, maximum and sum of the values seen. */
struct stat_acc {
        uint64_t n;
        double min, max;
        double sum; /* summed left to right, as Python's sum() up to 3.11 */
};

void stat_acc_init(struct stat_acc *a);
/* Add one value; NAN (missing) is ignored. */
void stat_acc_add(struct stat_acc *a, double v);
/* sum / n, or NAN when no value was added. */
double stat_acc_mean(const struct stat_acc *a);

/* One point of a decimated series: a bucket of consecutive values. */
struct stat_point {
        double t;       /* time of its first value, seconds */
        double sum;     /* sum of its values */
        float span_s;   /* time from its first to its last value */
        float min, max; /* for charts */
        uint32_t n;     /* values in the bucket */
        uint8_t flags;  /* STAT_P_* */
};
#define STAT_P_MIN_FIRST  0x1 /* the minimum came before the maximum */
#define STAT_P_GAP_BEFORE 0x2 /* values were missing just before this bucket */

/* A time series that keeps at most cap points whatever its length: while it fits,
 * one point per value; when full, neighbouring points are merged in pairs and the
 * number of values per point (stride) doubles. Order and time stamps are kept. */
struct stat_series {
        struct stat_point *p;
        size_t n, cap;
        uint64_t stride; /* values per full point */
        uint64_t total;  /* values added */
        bool gap_pending;
};

/* cap is rounded up to an even number of at least 8. 0, -EINVAL (cap 0) or -ENOMEM.
 * The series owns its memory: stat_series_free() it (NULL-safe, idempotent). */
int stat_series_init(struct stat_series *s, size_t cap);
void stat_series_free(struct stat_series *s);
/* Append value v taken at time t (seconds, not decreasing). NAN v marks a gap. */
void stat_series_add(struct stat_series *s, double t, double v);
/* True while every value is its own point (nothing was merged). */
bool stat_series_exact(const struct stat_series *s);

/* The reference monitor's trend(): mean of the last max(1, n/4) values minus mean of
 * the first max(1, n/4) values; NAN when n < 8. Sums run left to right as Python's. */
double stat_quarter_delta(const double *v, size_t n);
/* The same over a series: exact while stat_series_exact(); once merged, the points
 * that straddle a quarter's edge count with the share of their values inside it
 * (an approximation within one point's width of the exact figure). */
double stat_series_quarter_delta(const struct stat_series *s);

/* Theil-Sen estimator: the median of the slopes (y[j]-y[i])/(x[j]-x[i]) over all pairs
 * with different x, and the level of that line at x[n-1]: the median of
 * y[i] + slope * (x[n-1] - x[i]). Medians of an even count are the mean of the two
 * middle values. O(n^2) memory and time (keep n <= STAT_TS_MAX_POINTS).
 * 0, -EINVAL (no two distinct x) or -ENOMEM; outputs untouched on failure. */
int stat_theil_sen(const double *x, const double *y, size_t n, double *ret_slope,
                   double *ret_level);
/* Theil-Sen over a series: each point counts as its mean value at its mean time;
 * neighbouring points are grouped so at most max_points (>= 2) take part.
 * ret_slope is per second; ret_level is the line's value at the last point's time. */
int stat_series_theil_sen(const struct stat_series *s, size_t max_points, double *ret_slope,
                          double *ret_level);

/* The Mann-Kendall trend test on y[0..n) in time order: the normal score z of
 * S = sum over i < j of sign(y[j] - y[i]), with the variance corrected for ties and a
 * continuity correction (Kendall, Rank Correlation Methods, 1975; Gilbert, Statistical
 * Methods for Environmental Pollution Monitoring, 1987, section 16.4). |z| >= 1.96: a
 * monotonic trend at the 5 % level (two-sided). NAN when n < 3 (or out of memory);
 * 0 when every value is the same. */
double stat_mann_kendall_z(const double *y, size_t n);

/* stat_series_theil_sen() and, on the same points, the Mann-Kendall z of the trend
 * (ret_z NAN below 3 points). Outputs untouched on failure. */
int stat_series_trend(const struct stat_series *s, size_t max_points, double *ret_slope,
                      double *ret_level, double *ret_z);

/* Hours until a level falling at slope_per_h (negative) reaches zero; 0 when it
 * already has; NAN when it is not falling or an input is missing. */
double stat_hours_to_zero(double level, double slope_per_h);

/* Chart points of a series into x[], y[] (room for cap entries; 3 per point is always
 * enough): per point its minimum and maximum in the order they came, at the point's
 * first and last time, and a NAN y where a gap was recorded. Returns the count. */
size_t stat_series_chart(const struct stat_series *s, double *x, double *y, size_t cap);

/* The median of v[0..n) by selection (v is reordered); NAN when n is 0. */
double stat_median(double *v, size_t n);

#endif
