/* SPDX-License-Identifier: Apache-2.0 */
/* The host summary. See host_acc.h.
 *
 * The first block reproduces the reference monitor's summarise() character for
 * character:
 *
 *   ====================================================================================
 *   SUMMARY over 120 samples (18:12:47 -> 18:14:46)
 *   ====================================================================================
 *   cpu_total_pct      min     12.5%   avg     20.1%   max     35.0%
 *   ...
 *   Trend (the leak check):
 *   player_pss_mb      RISING      +3.2 (first->last quarter)
 *   ...
 *   Throttle / power events during this run:
 *     HAS:under-voltage occurred, HAS:throttling occurred
 */
#include "core/host_acc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/hot.h"

/* The reference's min/avg/max lines: field, decimals, unit. */
static const struct {
        enum host_col f;
        int decimals;
        const char *unit;
} ref_stats[] = {
    {HC_CPU_TOTAL, 1, "%"},     {HC_TEMP, 1, "C"},       {HC_ARM, 0, "MHz"},
    {HC_V3D, 0, "MHz"},         {HC_VOLT, 3, "V"},       {HC_MEM_AVAIL, 0, "MB"},
    {HC_PLAYER_PSS, 0, "MB"},   {HC_PLAYER_CPU, 1, "%"}, {HC_CHROMIUM_PROCS, 0, ""},
    {HC_CHROMIUM_PSS, 0, "MB"},
};

/* The reference's leak check, in its order. */
static const enum host_col ref_trend[] = {
    HC_PLAYER_PSS,
    HC_CHROMIUM_PROCS,
    HC_MEM_AVAIL,
    HC_TEMP,
};

/* vigil's slopes: field and unit per hour. */
static const struct {
        enum host_col f;
        const char *unit;
} slope_fields[] = {
    {HC_MEM_AVAIL, "MB/h"},    {HC_PLAYER_PSS, "MB/h"}, {HC_CHROMIUM_PROCS, "procs/h"},
    {HC_CHROMIUM_PSS, "MB/h"}, {HC_SHM_USED, "MB/h"},   {HC_TEMP, "C/h"},
};

static bool series_wanted(enum host_col f, unsigned flags)
{
        /* The HTML report may chart any column (report/html.c picks). */
        if (flags & HOST_ACC_CHARTS)
                return host_col_numeric(f);
        for (size_t i = 0; i < sizeof(slope_fields) / sizeof(slope_fields[0]); i++) {
                if (slope_fields[i].f == f)
                        return true;
        }
        return false;
}

int host_acc_init(struct host_acc *a, size_t series_cap, unsigned flags)
{
        memset(a, 0, sizeof(*a));
        a->first_t = a->last_t = NAN;
        for (int f = 0; f < HC_COUNT; f++) {
                stat_acc_init(&a->acc[f]);
                if (!series_wanted(f, flags))
                        continue;
                if (stat_series_init(&a->series[f], series_cap) < 0)
                        goto out_free;
        }
        if (flags & HOST_ACC_CHARTS) {
                a->changes = calloc(HOST_ACC_MAX_CHANGES, sizeof(*a->changes));
                if (!a->changes)
                        goto out_free;
        }
        return 0;
out_free:
        host_acc_free(a);
        return -ENOMEM;
}

void host_acc_free(struct host_acc *a)
{
        if (!a)
                return;
        for (int f = 0; f < HC_COUNT; f++)
                stat_series_free(&a->series[f]);
        free(a->changes);
        a->changes = NULL;
}

static void add_flag(struct host_acc *a, const char *s, size_t n)
{
        char tmp[HOST_ACC_FLAG_LEN];
        copy_bounded(tmp, sizeof(tmp), s, n);
        for (unsigned i = 0; i < a->nflags; i++) {
                if (strcmp(a->flags[i], tmp) == 0)
                        return;
        }
        if (a->nflags == HOST_ACC_MAX_FLAGS) {
                a->flags_dropped = true;
                return;
        }
        memcpy(a->flags[a->nflags++], tmp, sizeof(tmp));
}

/* The union of the comma-separated flags, as the reference builds it. */
static void note_flags(struct host_acc *a, double t, const char *flags)
{
        if (!flags)
                flags = "";
        if (strncmp(flags, a->last_flags, sizeof(a->last_flags)) == 0 && a->rows > 0)
                return;
        copy_bounded(a->last_flags, sizeof(a->last_flags), flags, strlen(flags));
        if (a->changes && (a->rows > 0 || *flags)) {
                if (a->nchanges < HOST_ACC_MAX_CHANGES) {
                        struct host_flag_change *c = &a->changes[a->nchanges++];
                        c->t = t;
                        copy_bounded(c->flags, sizeof(c->flags), flags, strlen(flags));
                } else {
                        a->changes_dropped++;
                }
        }
        if (!*flags)
                return;
        for (const char *p = flags;;) {
                const char *comma = strchr(p, ',');
                size_t n = comma ? (size_t)(comma - p) : strlen(p);
                add_flag(a, p, n);
                if (!comma)
                        break;
                p = comma + 1;
        }
}

static void copy_ts(char *dst, size_t cap, const char *ts)
{
        if (!ts)
                ts = "";
        copy_bounded(dst, cap, ts, strlen(ts));
}

VIGIL_HOT void host_acc_add(struct host_acc *a, const struct host_acc_row *row)
{
        double t = row->t;
        if (a->rows == 0) {
                copy_ts(a->first_ts, sizeof(a->first_ts), row->timestamp);
                a->first_t = t;
        } else if (isfinite(t) && isfinite(a->last_t)) {
                /* A pause much longer than usual (vigil was stopped) breaks the charts. */
                double dt = t - a->last_t;
                bool gap = a->dt_est > 0 && dt > fmax(30, 10 * a->dt_est);
                if (gap) {
                        for (int f = 0; f < HC_COUNT; f++)
                                a->series[f].gap_pending = true;
                } else if (dt > 0) {
                        a->dt_est = a->dt_est > 0 ? 0.9 * a->dt_est + 0.1 * dt : dt;
                }
        }
        copy_ts(a->last_ts, sizeof(a->last_ts), row->timestamp);
        a->last_t = t;
        for (int f = 0; f < HC_COUNT; f++) {
                stat_acc_add(&a->acc[f], row->v[f]);
                if (a->series[f].p && isfinite(t))
                        stat_series_add(&a->series[f], t, row->v[f]);
        }
        note_flags(a, t, row->throttle_flags);
        a->rows++;
}

/* ---- text ---- */

static const char rule[] = "  ===================================================================="
                           "================\n";

/* "HH:MM:SS" of a logged time stamp: the reference's timestamp[11:19]. */
static void put_clock(struct strbuf *out, const char *ts)
{
        size_t n = strlen(ts);
        if (n > 11)
                sb_put(out, ts + 11, n - 11 < 8 ? n - 11 : 8);
}

bool host_acc_is_pi(const struct host_acc *a)
{
        static const enum host_col pi_fields[] = {HC_VOLT, HC_ARM, HC_CORE, HC_V3D};
        for (size_t i = 0; i < sizeof(pi_fields) / sizeof(pi_fields[0]); i++)
                if (a->acc[pi_fields[i]].n)
                        return true;
        return a->nflags > 0;
}

static void text_stats(const struct host_acc *a, struct strbuf *out)
{
        bool pi = host_acc_is_pi(a);
        for (size_t i = 0; i < sizeof(ref_stats) / sizeof(ref_stats[0]); i++) {
                const struct stat_acc *s = &a->acc[ref_stats[i].f];
                const char *name = host_col_name(ref_stats[i].f);
                int d = ref_stats[i].decimals;
                const char *u = ref_stats[i].unit;
                if (s->n == 0) {
                        if (pi) /* elsewhere a row without data is a source it lacks */
                                sb_printf(out, "  %-18s (no data)\n", name);
                        continue;
                }
                sb_printf(out, "  %-18s min %8.*f%s   avg %8.*f%s   max %8.*f%s\n", name, d, s->min,
                          u, d, stat_acc_mean(s), u, d, s->max, u);
        }
}

/* "39 s", "12 min", "2.5 h". */
static void put_span(struct strbuf *out, double s)
{
        if (!(s >= 0))
                s = 0;
        if (s < 120)
                sb_printf(out, "%.0f s", s);
        else if (s < 7200)
                sb_printf(out, "%.0f min", s / 60);
        else
                sb_printf(out, "%.1f h", s / 3600);
}

/* The reference's leak check: the mean of the last quarter of a column's values less
 * that of the first. A verdict from seconds of data ("falling +0.0" over 5 s) is noise:
 * below the span and the samples a slope needs (HOST_ACC_TREND_MIN_*) the row says so
 * instead of RISING / falling, the one place this block departs from the reference. A
 * column without values has no row, as in the reference. */
static void text_trend(const struct host_acc *a, struct strbuf *out)
{
        double span_s = a->last_t - a->first_t;
        sb_puts(out, "\n  Trend (the leak check):\n");
        for (size_t i = 0; i < sizeof(ref_trend) / sizeof(ref_trend[0]); i++) {
                const struct stat_series *s = &a->series[ref_trend[i]];
                const char *name = host_col_name(ref_trend[i]);
                if (s->total == 0)
                        continue;
                if (!(span_s >= HOST_ACC_TREND_MIN_SPAN_S) ||
                    s->total < HOST_ACC_TREND_MIN_SAMPLES) {
                        sb_printf(out, "  %-18s too short to tell (", name);
                        put_span(out, span_s);
                        if (s->total < HOST_ACC_TREND_MIN_SAMPLES)
                                sb_printf(out, ", %llu samples", (unsigned long long)s->total);
                        sb_puts(out, ")\n");
                        continue;
                }
                double delta = stat_series_quarter_delta(s);
                if (isnan(delta))
                        continue;
                sb_printf(out, "  %-18s %s  %+8.1f (first->last quarter)\n", name,
                          delta > 0 ? "RISING " : "falling", delta);
        }
}

static int cmp_str(const void *l, const void *r)
{
        return strcmp(*(const char *const *)l, *(const char *const *)r);
}

static void text_flags(const struct host_acc *a, struct strbuf *out)
{
        const char *sorted[HOST_ACC_MAX_FLAGS];
        for (unsigned i = 0; i < a->nflags; i++)
                sorted[i] = a->flags[i];
        qsort(sorted, a->nflags, sizeof(sorted[0]), cmp_str);
        sb_puts(out, "\n  Throttle / power events during this run:\n    ");
        for (unsigned i = 0; i < a->nflags; i++) {
                if (i)
                        sb_puts(out, ", ");
                sb_puts(out, sorted[i]);
        }
        if (a->nflags == 0)
                sb_puts(out, "none \xE2\x80\x94 clean");
        sb_putc(out, '\n');
}

static void text_projection(const struct host_acc *a, enum host_col f, double level, double slope_h,
                            struct strbuf *out)
{
        if (f == HC_MEM_AVAIL) {
                double h = stat_hours_to_zero(level, slope_h);
                if (!isnan(h))
                        sb_printf(out, "  (reaches 0 in ~%.1f h)", h);
                return;
        }
        if (f != HC_SHM_USED || !(slope_h > 0))
                return;
        double total = a->acc[HC_SHM_TOTAL].max; /* NAN when the column is absent */
        if (isnan(total)) {
                sb_puts(out, "  (/dev/shm size unknown: no projection)");
                return;
        }
        double h = stat_hours_to_zero(total - level, -slope_h);
        if (!isnan(h))
                sb_printf(out, "  (fills /dev/shm in ~%.1f h)", h);
}

double host_acc_runs_out_h(const struct host_acc *a)
{
        const struct stat_series *s = &a->series[HC_MEM_AVAIL];
        double slope, level, z, span_s = a->last_t - a->first_t;
        if (!s->p || s->total < 8 || s->total < HOST_ACC_TREND_MIN_SAMPLES ||
            !(span_s >= HOST_ACC_TREND_MIN_SPAN_S) ||
            stat_series_trend(s, STAT_TS_MAX_POINTS, &slope, &level, &z) < 0)
                return NAN;
        double slope_h = slope * 3600;
        if (!(isfinite(z) && fabs(z) >= HOST_ACC_TREND_Z && (z > 0) == (slope_h > 0)))
                return NAN;
        return stat_hours_to_zero(level, slope_h);
}

static void text_slopes(const struct host_acc *a, struct strbuf *out, unsigned flags)
{
        double span_s = a->last_t - a->first_t;
        sb_printf(out, "\n  Period: %s -> %s (%.1f h)\n", a->first_ts, a->last_ts,
                  isfinite(span_s) ? span_s / 3600 : 0.0);
        sb_puts(out, "  Slope per hour (Theil-Sen, robust to spikes):\n");
        bool decimated = false;
        for (size_t i = 0; i < sizeof(slope_fields) / sizeof(slope_fields[0]); i++) {
                enum host_col f = slope_fields[i].f;
                const struct stat_series *s = &a->series[f];
                double slope, level, z;
                if (s->total == 0 && (flags & HOST_ACC_TEXT_NO_REF_TREND))
                        continue; /* a GPU server has no player to watch */
                if (s->total < 8 ||
                    stat_series_trend(s, STAT_TS_MAX_POINTS, &slope, &level, &z) < 0) {
                        sb_printf(out, "  %-18s (too few samples)\n", host_col_name(f));
                        continue;
                }
                /* A slope over seconds is noise; one over enough time is said, and
                 * projected only when the data show a trend at all. */
                if (!(span_s >= HOST_ACC_TREND_MIN_SPAN_S) ||
                    s->total < HOST_ACC_TREND_MIN_SAMPLES) {
                        sb_printf(out, "  %-18s (not enough data for a trend: ", host_col_name(f));
                        put_span(out, span_s);
                        sb_printf(out, ", %llu samples; it needs %.0f min, %d samples)\n",
                                  (unsigned long long)s->total, HOST_ACC_TREND_MIN_SPAN_S / 60,
                                  HOST_ACC_TREND_MIN_SAMPLES);
                        continue;
                }
                decimated |= !stat_series_exact(s);
                double slope_h = slope * 3600;
                sb_printf(out, "  %-18s %+8.1f %s", host_col_name(f), slope_h,
                          slope_fields[i].unit);
                if (isfinite(z) && fabs(z) >= HOST_ACC_TREND_Z && (z > 0) == (slope_h > 0))
                        text_projection(a, f, level, slope_h, out);
                else
                        sb_puts(out, "  (no significant trend)");
                sb_putc(out, '\n');
        }
        if (decimated)
                sb_printf(out, "  (more samples than %zu per series: trends use merged points)\n",
                          a->series[HC_MEM_AVAIL].cap);
        if (a->flags_dropped)
                sb_printf(out, "  (more than %d distinct throttle flags: some not listed)\n",
                          HOST_ACC_MAX_FLAGS);
}

void host_acc_text(const struct host_acc *a, struct strbuf *out)
{
        /* The leak check's rows are the Pi player's: a machine without a Pi has none. */
        host_acc_text_opt(a, out, host_acc_is_pi(a) ? 0 : HOST_ACC_TEXT_NO_REF_TREND);
}

void host_acc_text_opt(const struct host_acc *a, struct strbuf *out, unsigned flags)
{
        if (a->rows == 0)
                return;
        /* The reference's rule is 84 '=' after two spaces; on an 80-column terminal 78. */
        const char *eq = rule + 2 + (flags & HOST_ACC_TEXT_RULE_80 ? 84 - 78 : 0);
        sb_putc(out, '\n');
        sb_printf(out, "  %s", eq);
        sb_printf(out, "  SUMMARY over %llu samples (", (unsigned long long)a->rows);
        put_clock(out, a->first_ts);
        sb_puts(out, " -> ");
        put_clock(out, a->last_ts);
        sb_puts(out, ")\n");
        sb_printf(out, "  %s", eq);
        text_stats(a, out);
        if (!(flags & HOST_ACC_TEXT_NO_REF_TREND))
                text_trend(a, out);
        if (host_acc_is_pi(a))
                text_flags(a, out);
        text_slopes(a, out, flags);
}
