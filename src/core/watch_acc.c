/* SPDX-License-Identifier: Apache-2.0 */
/* The watches' own columns in the report. See watch_acc.h. The section reads:
 *
 *   Watches (min / avg / max, slope per hour):
 *   kiosk_procs        min        2   avg      2.0   max        3     +0.0 procs/h
 *   kiosk_pss_mb       min     81.2   avg     84.0   max     90.1     +1.2 MB/h
 */
#include "core/watch_acc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void watch_acc_init(struct watch_acc *a, size_t series_cap)
{
        memset(a, 0, sizeof(*a));
        a->series_cap = series_cap;
}

int watch_acc_slot(struct watch_acc *a, const char *name, size_t len)
{
        if (len == 0 || len >= sizeof(a->w[0].name))
                return -EINVAL;
        for (unsigned i = 0; i < a->n; i++)
                if (strlen(a->w[i].name) == len && memcmp(a->w[i].name, name, len) == 0)
                        return (int)i;
        if (a->n == WATCH_ACC_MAX)
                return -ENOSPC;
        struct watch_acc_one *w = &a->w[a->n];
        if (stat_series_init(&w->procs, a->series_cap) < 0 ||
            stat_series_init(&w->pss, a->series_cap) < 0) {
                stat_series_free(&w->procs);
                return -ENOMEM;
        }
        memcpy(w->name, name, len);
        w->name[len] = '\0';
        for (int c = 0; c < WC_COUNT; c++)
                stat_acc_init(&w->acc[c]);
        return (int)a->n++;
}

void watch_acc_add(struct watch_acc *a, unsigned slot, double t, const double v[WC_COUNT])
{
        if (slot >= a->n)
                return;
        struct watch_acc_one *w = &a->w[slot];
        for (int c = 0; c < WC_COUNT; c++)
                stat_acc_add(&w->acc[c], v[c]);
        if (isfinite(t)) {
                stat_series_add(&w->procs, t, v[WC_PROCS]);
                stat_series_add(&w->pss, t, v[WC_PSS_MB]);
        }
}

/* Decimals of each column's min and max (counts are whole). */
static const int decimals[WC_COUNT] = {0, 1, 1, 0};

static void text_slope(const struct stat_series *s, const char *unit, struct strbuf *out)
{
        double slope, level;
        if (s->total < 8 || stat_series_theil_sen(s, STAT_TS_MAX_POINTS, &slope, &level) < 0)
                return;
        sb_printf(out, "   %+8.1f %s", slope * 3600, unit);
}

static void text_one(const struct watch_acc_one *w, struct strbuf *out)
{
        for (int c = 0; c < WC_COUNT; c++) {
                char col[64];
                const struct stat_acc *s = &w->acc[c];
                snprintf(col, sizeof(col), "%s%s", w->name, watch_col_suffix(c));
                if (s->n == 0) {
                        sb_printf(out, "  %-18s (no data)\n", col);
                        continue;
                }
                int d = decimals[c];
                sb_printf(out, "  %-18s min %8.*f   avg %8.1f   max %8.*f", col, d, s->min,
                          stat_acc_mean(s), d, s->max);
                if (c == WC_PROCS)
                        text_slope(&w->procs, "procs/h", out);
                if (c == WC_PSS_MB)
                        text_slope(&w->pss, "MB/h", out);
                sb_putc(out, '\n');
        }
}

void watch_acc_text(const struct watch_acc *a, struct strbuf *out)
{
        if (a->n == 0)
                return;
        sb_puts(out, "\n  Watches (min / avg / max, slope per hour):\n");
        for (unsigned i = 0; i < a->n; i++)
                text_one(&a->w[i], out);
}

void watch_acc_free(struct watch_acc *a)
{
        if (!a)
                return;
        for (unsigned i = 0; i < a->n; i++) {
                stat_series_free(&a->w[i].procs);
                stat_series_free(&a->w[i].pss);
        }
        a->n = 0;
}
