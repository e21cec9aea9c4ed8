/* SPDX-License-Identifier: Apache-2.0 */
/* One GPU's summary. See gpu_acc.h.
 *
 * Sample of what it prints:
 *   GPU gpu0 SUMMARY over 36000 samples (18:00:00 -> 18:59:59)
 *   gpu_temp           min     41.0C   avg     63.2C   max     84.0C
 *   Anomaly flags:
 *     FAN_SPIKE                12
 *   Throttle reasons during this run (share of samples):
 *     SwPowerCap 12.5%, HwSlowdown 0.1%
 */
#include "report/gpu_acc.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/frame_fields.h"
#include "encode/gpu_columns.h"
#include "util/parse.h"

/* Each field's row of gpu_fields[] (its member, summary format and flags: the report
 * slot), by its id; found once. */
static const struct rep_slot *fields[GPU_F_COUNT];
static size_t field_off[GPU_F_COUNT];
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

static void find_fields(void)
{
        for (size_t i = 0; i < gpu_fields_count; i++) {
                const struct field_desc *d = &gpu_fields[i];
                if (d->rep.unit && d->rep.id < GPU_F_COUNT) {
                        fields[d->rep.id] = &d->rep;
                        field_off[d->rep.id] = d->off;
                }
        }
}

/* Field f's report slot. */
static const struct rep_slot *field(enum gpu_field f)
{
        pthread_once(&fields_once, find_fields);
        return fields[f];
}

const char *gpu_field_name(enum gpu_field f)
{
        if ((unsigned)f >= GPU_F_COUNT || !field(f))
                return "";
        return gpu_column_name_of(field_off[f]);
}

/* The flag types always listed, in this order (the reference logger's anomaly flags). */
static const char *const known_types[] = {
    "FAN_SPIKE", "TEMP_FAN_INV", "SPUR_THROT", "PWR+", "TDP_REDUCED", "TDP_RESTORED",
};
#define NKNOWN (sizeof(known_types) / sizeof(known_types[0]))

static bool chart_field(enum gpu_field f)
{
        return field(f)->flags & REP_CHART;
}

int gpu_acc_init(struct gpu_acc *a, const char *name, size_t series_cap, unsigned flags)
{
        memset(a, 0, sizeof(*a));
        copy_bounded(a->name, sizeof(a->name), name, strlen(name));
        a->first_t = a->last_t = NAN;
        a->first_failure_t = a->last_failure_t = NAN;
        for (unsigned i = 0; i < NKNOWN; i++)
                copy_bounded(a->type_name[i], sizeof(a->type_name[i]), known_types[i],
                             strlen(known_types[i]));
        a->ntypes = NKNOWN;
        for (unsigned r = 0; r < GPU_ACC_MAX_REASONS; r++)
                a->reason_since[r] = NAN;
        for (int f = 0; f < GPU_F_COUNT; f++)
                stat_acc_init(&a->acc[f]);
        for (int i = 0; i < GPU_ACC_MAX_FANS; i++) {
                stat_acc_init(&a->fan_speed[i]);
                stat_acc_init(&a->fan_target[i]);
        }
        if (!(flags & GPU_ACC_CHARTS))
                return 0;
        for (int f = 0; f < GPU_F_COUNT; f++) {
                if (chart_field(f) && stat_series_init(&a->series[f], series_cap) < 0)
                        goto out_free;
        }
        for (int i = 0; i < GPU_ACC_MAX_FANS; i++) {
                if (stat_series_init(&a->fan_series[i], series_cap) < 0)
                        goto out_free;
        }
        a->bands = calloc(GPU_ACC_MAX_BANDS, sizeof(*a->bands));
        a->marks = calloc(GPU_ACC_MAX_MARKS, sizeof(*a->marks));
        if (!a->bands || !a->marks)
                goto out_free;
        return 0;
out_free:
        gpu_acc_free(a);
        return -ENOMEM;
}

void gpu_acc_free(struct gpu_acc *a)
{
        if (!a)
                return;
        for (int f = 0; f < GPU_F_COUNT; f++)
                stat_series_free(&a->series[f]);
        for (int i = 0; i < GPU_ACC_MAX_FANS; i++)
                stat_series_free(&a->fan_series[i]);
        free(a->bands);
        free(a->marks);
        a->bands = NULL;
        a->marks = NULL;
}

static void add_mark(struct gpu_acc *a, double t, const char *text)
{
        if (!a->marks)
                return;
        if (a->nmarks == GPU_ACC_MAX_MARKS) {
                a->dropped++;
                return;
        }
        struct gpu_mark *m = &a->marks[a->nmarks++];
        m->t = t;
        copy_bounded(m->text, sizeof(m->text), text, strlen(text));
}

/* Count one anomaly flag by its type: the text before '(' ("TDP_REDUCED(200W)"),
 * or "PWR+" for "PWR+75W". */
static void count_flag(struct gpu_acc *a, double t, const char *s, size_t n)
{
        size_t tn = 0;
        while (tn < n && s[tn] != '(')
                tn++;
        if (n >= 4 && memcmp(s, "PWR+", 4) == 0)
                tn = 4;
        if (tn == 0)
                return;
        char type[24];
        copy_bounded(type, sizeof(type), s, tn);
        for (unsigned i = 0; i < a->ntypes; i++) {
                if (strcmp(a->type_name[i], type) == 0) {
                        if (!a->type_count[i]++)
                                a->type_first_t[i] = t;
                        a->type_last_t[i] = t;
                        return;
                }
        }
        if (a->ntypes == GPU_ACC_MAX_TYPES) {
                a->dropped++;
                return;
        }
        memcpy(a->type_name[a->ntypes], type, sizeof(type));
        a->type_first_t[a->ntypes] = a->type_last_t[a->ntypes] = t;
        a->type_count[a->ntypes++] = 1;
}

static void note_flags(struct gpu_acc *a, double t, const char *flags)
{
        if (!flags || !*flags)
                return;
        for (const char *p = flags;;) {
                const char *bar = strchr(p, '|');
                size_t n = bar ? (size_t)(bar - p) : strlen(p);
                count_flag(a, t, p, n);
                if (!bar)
                        break;
                p = bar + 1;
        }
        add_mark(a, t, flags);
}

static unsigned reason_index(struct gpu_acc *a, const char *s, size_t n)
{
        char name[32];
        copy_bounded(name, sizeof(name), s, n);
        for (unsigned i = 0; i < a->nreasons; i++) {
                if (strcmp(a->reason_name[i], name) == 0)
                        return i;
        }
        if (a->nreasons == GPU_ACC_MAX_REASONS) {
                a->dropped++;
                return GPU_ACC_MAX_REASONS;
        }
        memcpy(a->reason_name[a->nreasons], name, sizeof(name));
        return a->nreasons++;
}

/* The set of reasons in a cell, as a bit mask of reason indexes. */
static unsigned reasons_mask(struct gpu_acc *a, const char *cell)
{
        if (!cell || !*cell || strcmp(cell, "None") == 0)
                return 0;
        if (strncmp(cell, a->last_reasons, sizeof(a->last_reasons)) == 0)
                return a->last_mask;
        unsigned mask = 0;
        for (const char *p = cell;;) {
                const char *bar = strchr(p, '|');
                size_t n = bar ? (size_t)(bar - p) : strlen(p);
                unsigned r = n ? reason_index(a, p, n) : GPU_ACC_MAX_REASONS;
                if (r < GPU_ACC_MAX_REASONS)
                        mask |= 1u << r;
                if (!bar)
                        break;
                p = bar + 1;
        }
        copy_bounded(a->last_reasons, sizeof(a->last_reasons), cell, strlen(cell));
        a->last_mask = mask;
        return mask;
}

/* Open and close throttle spans as reasons come and go. */
static void note_reasons(struct gpu_acc *a, double t, unsigned mask)
{
        for (unsigned r = 0; r < a->nreasons; r++) {
                bool on = mask & (1u << r);
                if (on) {
                        a->reason_samples[r]++;
                        if (isnan(a->reason_since[r]))
                                a->reason_since[r] = t;
                        continue;
                }
                if (isnan(a->reason_since[r]))
                        continue;
                if (a->bands && a->nbands < GPU_ACC_MAX_BANDS)
                        a->bands[a->nbands++] = (struct gpu_band){a->reason_since[r], t, r};
                else if (a->bands)
                        a->dropped++;
                a->reason_since[r] = NAN;
        }
}

static void note_time(struct gpu_acc *a, const struct gpu_row *row)
{
        copy_bounded(a->last_ts, sizeof(a->last_ts), row->timestamp ? row->timestamp : "",
                     row->timestamp ? strlen(row->timestamp) : 0);
        if (a->rows == 0) {
                memcpy(a->first_ts, a->last_ts, sizeof(a->first_ts));
                a->first_t = row->t;
        } else if (isfinite(row->t) && isfinite(a->last_t)) {
                double dt = row->t - a->last_t;
                if (a->dt_est > 0 && dt > fmax(30, 10 * a->dt_est)) {
                        for (int f = 0; f < GPU_F_COUNT; f++)
                                a->series[f].gap_pending = true;
                        for (int i = 0; i < GPU_ACC_MAX_FANS; i++)
                                a->fan_series[i].gap_pending = true;
                } else if (dt > 0) {
                        a->dt_est = a->dt_est > 0 ? 0.9 * a->dt_est + 0.1 * dt : dt;
                }
        }
        a->last_t = row->t;
        a->rows++;
}

void gpu_acc_add(struct gpu_acc *a, const struct gpu_row *row)
{
        double t = row->t;
        note_time(a, row);
        if (row->failure) {
                if (a->failures++ == 0) {
                        copy_bounded(a->first_failure, sizeof(a->first_failure), row->failure,
                                     strlen(row->failure));
                        memcpy(a->first_failure_ts, a->last_ts, sizeof(a->first_ts));
                        a->first_failure_t = t;
                }
                a->last_failure_t = t;
                add_mark(a, t, row->failure);
                note_reasons(a, t, 0);
                for (int f = 0; f < GPU_F_COUNT; f++)
                        a->series[f].gap_pending = true;
                for (int i = 0; i < GPU_ACC_MAX_FANS; i++)
                        a->fan_series[i].gap_pending = true;
                return;
        }
        bool timed = isfinite(t);
        for (int f = 0; f < GPU_F_COUNT; f++) {
                stat_acc_add(&a->acc[f], row->v[f]);
                if (a->series[f].p && timed)
                        stat_series_add(&a->series[f], t, row->v[f]);
        }
        unsigned nf = row->nfans < GPU_ACC_MAX_FANS ? row->nfans : GPU_ACC_MAX_FANS;
        if (nf > a->nfans)
                a->nfans = nf;
        for (unsigned i = 0; i < nf; i++) {
                stat_acc_add(&a->fan_speed[i], row->fan_speed_pct[i]);
                stat_acc_add(&a->fan_target[i], row->fan_target_pct[i]);
                if (a->fan_series[i].p && timed)
                        stat_series_add(&a->fan_series[i], t, row->fan_speed_pct[i]);
        }
        note_flags(a, t, row->flags);
        note_reasons(a, t, reasons_mask(a, row->throttle_reasons));
}

bool gpu_acc_open_band(const struct gpu_acc *a, unsigned r, struct gpu_band *ret)
{
        if (r >= a->nreasons || isnan(a->reason_since[r]))
                return false;
        *ret = (struct gpu_band){a->reason_since[r], a->last_t, r};
        return true;
}

/* ---- text ---- */

static const char rule[] = "  ===================================================================="
                           "================\n";

static void stat_line(struct strbuf *out, const char *name, const struct stat_acc *s, int d,
                      const char *u)
{
        if (s->n == 0) {
                sb_printf(out, "  %-18s (no data)\n", name);
                return;
        }
        sb_printf(out, "  %-18s min %8.*f%s   avg %8.*f%s   max %8.*f%s\n", name, d, s->min, u, d,
                  stat_acc_mean(s), u, d, s->max, u);
}

/* The text summary's lines of the fields with flag (REP_TEXT or REP_TEXT_LAST). */
static void text_fields(const struct gpu_acc *a, struct strbuf *out, unsigned flag)
{
        for (int f = 0; f < GPU_F_COUNT; f++)
                if (field(f)->flags & flag)
                        stat_line(out, gpu_field_name(f), &a->acc[f], field(f)->decimals,
                                  field(f)->unit);
}

static void put_clock(struct strbuf *out, const char *ts)
{
        size_t n = strlen(ts);
        if (n > 11)
                sb_put(out, ts + 11, n - 11 < 8 ? n - 11 : 8);
}

static void text_reasons(const struct gpu_acc *a, struct strbuf *out)
{
        uint64_t samples = a->rows - a->failures;
        sb_puts(out, "\n  Throttle reasons during this run (share of samples):\n    ");
        unsigned shown = 0;
        for (unsigned r = 0; r < a->nreasons; r++) {
                if (a->reason_samples[r] == 0)
                        continue;
                double pct = samples ? 100.0 * (double)a->reason_samples[r] / (double)samples : 0;
                sb_printf(out, "%s%s %.1f%%", shown++ ? ", " : "", a->reason_name[r], pct);
        }
        if (!shown)
                sb_puts(out, "none");
        sb_putc(out, '\n');
}

void gpu_acc_text(const struct gpu_acc *a, struct strbuf *out)
{
        if (a->rows == 0)
                return;
        sb_putc(out, '\n');
        sb_puts(out, rule);
        sb_printf(out, "  GPU %s SUMMARY over %llu samples (", a->name,
                  (unsigned long long)a->rows);
        put_clock(out, a->first_ts);
        sb_puts(out, " -> ");
        put_clock(out, a->last_ts);
        sb_puts(out, ")\n");
        sb_puts(out, rule);
        text_fields(a, out, REP_TEXT);
        for (unsigned i = 0; i < a->nfans; i++) {
                char name[32];
                snprintf(name, sizeof(name), "fan%u_speed_pct", i);
                stat_line(out, name, &a->fan_speed[i], 1, "%");
                snprintf(name, sizeof(name), "fan%u_target_pct", i);
                stat_line(out, name, &a->fan_target[i], 1, "%");
        }
        text_fields(a, out, REP_TEXT_LAST);
        sb_puts(out, "\n  Anomaly flags:\n");
        for (unsigned i = 0; i < a->ntypes; i++)
                sb_printf(out, "    %-18s %8llu\n", a->type_name[i],
                          (unsigned long long)a->type_count[i]);
        if (a->failures)
                sb_printf(out, "  NVML failures: %llu rows (first at %s: %s)\n",
                          (unsigned long long)a->failures, a->first_failure_ts, a->first_failure);
        else
                sb_puts(out, "  NVML failures: none\n");
        text_reasons(a, out);
        sb_printf(out, "\n  Period: %s -> %s (%.1f h)\n", a->first_ts, a->last_ts,
                  isfinite(a->last_t - a->first_t) ? (a->last_t - a->first_t) / 3600 : 0.0);
        if (a->dropped)
                sb_printf(out,
                          "  (%llu chart marks, flag types or reasons beyond bounds not kept)\n",
                          (unsigned long long)a->dropped);
}
