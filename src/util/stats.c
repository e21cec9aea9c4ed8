/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming statistics. See stats.h. */
#include "util/stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hot.h"

void stat_acc_init(struct stat_acc *a)
{
        a->n = 0;
        a->min = NAN;
        a->max = NAN;
        a->sum = 0;
}

VIGIL_HOT void stat_acc_add(struct stat_acc *a, double v)
{
        if (isnan(v))
                return;
        if (a->n == 0 || v < a->min)
                a->min = v;
        if (a->n == 0 || v > a->max)
                a->max = v;
        a->sum += v;
        a->n++;
}

double stat_acc_mean(const struct stat_acc *a)
{
        return a->n ? a->sum / (double)a->n : NAN;
}

/* ---- decimated series ---- */

/* A double as float, clamped to float's range (out-of-range conversion is undefined). */
static float to_float(double v)
{
        if (v > FLT_MAX)
                return FLT_MAX;
        if (v < -FLT_MAX)
                return -FLT_MAX;
        return (float)v;
}

int stat_series_init(struct stat_series *s, size_t cap)
{
        memset(s, 0, sizeof(*s));
        if (cap == 0 || cap > (1u << 26))
                return -EINVAL;
        if (cap < 8)
                cap = 8;
        cap += cap & 1;
        s->p = calloc(cap, sizeof(*s->p));
        if (!s->p)
                return -ENOMEM;
        s->cap = cap;
        s->stride = 1;
        return 0;
}

void stat_series_free(struct stat_series *s)
{
        if (!s)
                return;
        free(s->p);
        s->p = NULL;
        s->n = s->cap = 0;
}

/* Fold point b (later) into a (earlier). */
static void point_merge(struct stat_point *a, const struct stat_point *b)
{
        bool a_min = a->min <= b->min, a_max = a->max >= b->max;
        bool min_first;
        if (a_min && a_max)
                min_first = a->flags & STAT_P_MIN_FIRST;
        else if (!a_min && !a_max)
                min_first = b->flags & STAT_P_MIN_FIRST;
        else
                min_first = a_min; /* the earlier bucket holds the minimum */
        a->min = a_min ? a->min : b->min;
        a->max = a_max ? a->max : b->max;
        a->span_s = to_float(b->t + b->span_s - a->t);
        a->sum += b->sum;
        a->n += b->n;
        a->flags = (uint8_t)((a->flags & STAT_P_GAP_BEFORE) | (min_first ? STAT_P_MIN_FIRST : 0));
}

static void series_halve(struct stat_series *s)
{
        size_t k = 0;
        for (size_t i = 0; i < s->n; i += 2, k++) {
                s->p[k] = s->p[i];
                if (i + 1 < s->n)
                        point_merge(&s->p[k], &s->p[i + 1]);
        }
        s->n = k;
        s->stride *= 2;
}

VIGIL_HOT void stat_series_add(struct stat_series *s, double t, double v)
{
        if (!s->p)
                return;
        if (isnan(v)) {
                s->gap_pending = true;
                return;
        }
        struct stat_point *last = s->n ? &s->p[s->n - 1] : NULL;
        if (last && last->n < s->stride && !s->gap_pending) {
                float fv = to_float(v);
                if (fv < last->min) {
                        last->min = fv;
                        last->flags &= (uint8_t)~STAT_P_MIN_FIRST;
                }
                if (fv > last->max) {
                        last->max = fv;
                        last->flags |= STAT_P_MIN_FIRST;
                }
                last->sum += v;
                last->n++;
                last->span_s = to_float(t - last->t);
                s->total++;
                return;
        }
        if (s->n == s->cap)
                series_halve(s);
        struct stat_point *p = &s->p[s->n++];
        p->t = t;
        p->sum = v;
        p->span_s = 0;
        p->min = p->max = to_float(v);
        p->n = 1;
        p->flags = STAT_P_MIN_FIRST | (s->gap_pending ? STAT_P_GAP_BEFORE : 0);
        s->gap_pending = false;
        s->total++;
}

bool stat_series_exact(const struct stat_series *s)
{
        return s->stride == 1 && s->n == s->total;
}

/* ---- first vs last quarter ---- */

double stat_quarter_delta(const double *v, size_t n)
{
        if (n < 8)
                return NAN;
        size_t k = n / 4 > 1 ? n / 4 : 1;
        double head = 0, tail = 0;
        for (size_t i = 0; i < k; i++)
                head += v[i];
        for (size_t i = n - k; i < n; i++)
                tail += v[i];
        return tail / (double)k - head / (double)k;
}

/* Sum of the values with ordinal positions [from, to) in the series, taking a
 * straddling point's share at its mean. */
static double series_range_sum(const struct stat_series *s, uint64_t from, uint64_t to)
{
        double sum = 0;
        uint64_t pos = 0;
        for (size_t i = 0; i < s->n && pos < to; i++) {
                const struct stat_point *p = &s->p[i];
                uint64_t a = pos, b = pos + p->n;
                pos = b;
                if (b <= from)
                        continue;
                uint64_t lo = a > from ? a : from, hi = b < to ? b : to;
                if (lo == a && hi == b)
                        sum += p->sum;
                else
                        sum += p->sum / (double)p->n * (double)(hi - lo);
        }
        return sum;
}

double stat_series_quarter_delta(const struct stat_series *s)
{
        uint64_t n = s->total;
        if (n < 8)
                return NAN;
        uint64_t k = n / 4 > 1 ? n / 4 : 1;
        double head = series_range_sum(s, 0, k);
        double tail = series_range_sum(s, n - k, n);
        return tail / (double)k - head / (double)k;
}

/* ---- selection and Theil-Sen ---- */

static void swap_d(double *a, double *b)
{
        double t = *a;
        *a = *b;
        *b = t;
}

/* Reorder v so v[k] is the k-th smallest and nothing after it is smaller (Hoare
 * partition with a median-of-three pivot; expected O(n)). */
static void select_kth(double *v, size_t n, size_t k)
{
        size_t lo = 0, hi = n - 1;
        while (hi > lo) {
                size_t mid = lo + (hi - lo) / 2;
                if (v[mid] < v[lo])
                        swap_d(&v[mid], &v[lo]);
                if (v[hi] < v[lo])
                        swap_d(&v[hi], &v[lo]);
                if (v[hi] < v[mid])
                        swap_d(&v[hi], &v[mid]);
                double pivot = v[mid];
                size_t i = lo, j = hi;
                while (i <= j) {
                        while (v[i] < pivot)
                                i++;
                        while (v[j] > pivot)
                                j--;
                        if (i <= j) {
                                swap_d(&v[i], &v[j]);
                                i++;
                                if (j == 0)
                                        break;
                                j--;
                        }
                }
                /* Now v[lo..j] <= pivot <= v[i..hi], and j < i. */
                if (k <= j)
                        hi = j;
                else if (k >= i)
                        lo = i;
                else
                        return;
        }
}

double stat_median(double *v, size_t n)
{
        if (n == 0)
                return NAN;
        size_t k = n / 2;
        select_kth(v, n, k);
        if (n & 1)
                return v[k];
        double below = v[0];
        for (size_t i = 1; i < k; i++) {
                if (v[i] > below)
                        below = v[i];
        }
        return (below + v[k]) / 2;
}

int stat_theil_sen(const double *x, const double *y, size_t n, double *ret_slope, double *ret_level)
{
        if (n < 2 || n > 65536)
                return -EINVAL;
        size_t pairs = n * (n - 1) / 2;
        double *sl = malloc(pairs * sizeof(*sl));
        if (!sl)
                return -ENOMEM;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                for (size_t j = i + 1; j < n; j++) {
                        double dx = x[j] - x[i];
                        if (dx != 0)
                                sl[m++] = (y[j] - y[i]) / dx;
                }
        }
        if (m == 0) {
                free(sl);
                return -EINVAL;
        }
        double slope = stat_median(sl, m);
        /* Reuse the buffer for the levels (n <= pairs when n >= 3; n == 2 gives m == 1). */
        double level;
        if (n == 2) {
                level = y[1];
        } else {
                for (size_t i = 0; i < n; i++)
                        sl[i] = y[i] + slope * (x[n - 1] - x[i]);
                level = stat_median(sl, n);
        }
        free(sl);
        *ret_slope = slope;
        *ret_level = level;
        return 0;
}

static int cmp_double(const void *l, const void *r)
{
        double a = *(const double *)l, b = *(const double *)r;
        return a < b ? -1 : a > b;
}

double stat_mann_kendall_z(const double *y, size_t n)
{
        if (n < 3 || n > 65536)
                return NAN;
        double s = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        s += (y[j] > y[i]) - (y[j] < y[i]);
        /* The variance of S with the correction for tied values: groups of t equal
         * values take t(t-1)(2t+5) off n(n-1)(2n+5), over 18. */
        double *v = malloc(n * sizeof(*v));
        if (!v)
                return NAN;
        memcpy(v, y, n * sizeof(*v));
        qsort(v, n, sizeof(*v), cmp_double);
        double dn = (double)n, var = dn * (dn - 1) * (2 * dn + 5);
        for (size_t i = 0; i < n;) {
                size_t j = i + 1;
                while (j < n && v[j] == v[i])
                        j++;
                double t = (double)(j - i);
                var -= t * (t - 1) * (2 * t + 5);
                i = j;
        }
        free(v);
        var /= 18;
        if (!(var > 0))
                return 0;
        /* With the continuity correction. */
        return s > 0 ? (s - 1) / sqrt(var) : s < 0 ? (s + 1) / sqrt(var) : 0;
}

/* The points of a series grouped so at most max_points remain: each group's mean time
 * (relative to the first point) into *ret_x, its mean value into *ret_y (one
 * allocation at *ret_x, the caller's to free), their number into *ret_m. */
static int series_points(const struct stat_series *s, size_t max_points, double **ret_x,
                         double **ret_y, size_t *ret_m)
{
        if (max_points < 2 || s->n < 2)
                return -EINVAL;
        size_t g = (s->n + max_points - 1) / max_points;
        size_t m = (s->n + g - 1) / g;
        double *x = malloc(2 * m * sizeof(double));
        if (!x)
                return -ENOMEM;
        double *y = x + m;
        double t0 = s->p[0].t; /* times relative to the first keep the sums exact */
        for (size_t k = 0; k < m; k++) {
                double tw = 0, sum = 0, cnt = 0;
                for (size_t i = k * g; i < (k + 1) * g && i < s->n; i++) {
                        const struct stat_point *p = &s->p[i];
                        double mid = p->t - t0 + (double)p->span_s / 2;
                        tw += mid * p->n;
                        sum += p->sum;
                        cnt += p->n;
                }
                x[k] = tw / cnt;
                y[k] = sum / cnt;
        }
        *ret_x = x;
        *ret_y = y;
        *ret_m = m;
        return 0;
}

int stat_series_theil_sen(const struct stat_series *s, size_t max_points, double *ret_slope,
                          double *ret_level)
{
        double *x, *y;
        size_t m;
        int r = series_points(s, max_points, &x, &y, &m);
        if (r < 0)
                return r;
        r = stat_theil_sen(x, y, m, ret_slope, ret_level);
        free(x);
        return r;
}

int stat_series_trend(const struct stat_series *s, size_t max_points, double *ret_slope,
                      double *ret_level, double *ret_z)
{
        double *x, *y, slope, level;
        size_t m;
        int r = series_points(s, max_points, &x, &y, &m);
        if (r < 0)
                return r;
        r = stat_theil_sen(x, y, m, &slope, &level);
        double z = stat_mann_kendall_z(y, m);
        free(x);
        if (r < 0)
                return r;
        *ret_slope = slope;
        *ret_level = level;
        *ret_z = z;
        return 0;
}

double stat_hours_to_zero(double level, double slope_per_h)
{
        if (isnan(level) || isnan(slope_per_h) || !(slope_per_h < 0))
                return NAN;
        if (level <= 0)
                return 0;
        return level / -slope_per_h;
}

size_t stat_series_chart(const struct stat_series *s, double *x, double *y, size_t cap)
{
        size_t k = 0;
        for (size_t i = 0; i < s->n; i++) {
                const struct stat_point *p = &s->p[i];
                if (k + 3 > cap)
                        break;
                if ((p->flags & STAT_P_GAP_BEFORE) && k) {
                        x[k] = p->t;
                        y[k++] = NAN;
                }
                if (p->n == 1) {
                        x[k] = p->t;
                        y[k++] = p->sum;
                        continue;
                }
                bool min_first = p->flags & STAT_P_MIN_FIRST;
                x[k] = p->t;
                y[k++] = min_first ? p->min : p->max;
                x[k] = p->t + p->span_s;
                y[k++] = min_first ? p->max : p->min;
        }
        return k;
}
