/* SPDX-License-Identifier: Apache-2.0 */
/* The host row and its columns, driven by the columns the area tables declare (the
 * host_csv slots of core/host_values.c, rpi_values.c, watch_values.c and
 * storage_values.c; the forms are core/fields.h's enum host_cell). The row's CSV text
 * is encode/host_row_csv.c's. */
#include "core/host_row.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <pthread.h>

#include "core/frame_fields.h"
#include "util/fmt.h"
#include "util/hot.h"

/* ---- the columns' names and formats ---- */

/* The areas whose tables declare columns, in the order the row is built: the host
 * first, since a Pi value fills only what it left empty (HCELL_ELSE). */
static const struct area {
        const struct field_desc *t;
        const size_t *n;
} areas[] = {
    {host_fields, &host_fields_count},       {rpi_fields, &rpi_fields_count},
    {watch_fields, &watch_fields_count},     {fs_fields, &fs_fields_count},
    {storage_fields, &storage_fields_count},
};
#define NAREAS (sizeof(areas) / sizeof(areas[0]))

/* Each column's name and format, a watch's own columns' suffixes and formats, and the
 * watches whose values go to the reference's columns instead of their own: built once
 * from the tables' host_csv slots. */
static struct host_col_info cols[HC_COUNT];
static struct host_col_info watch_cols[WC_COUNT];
static const char *ref_watches[HC_COUNT];
static size_t nref_watches;
static pthread_once_t cols_once = PTHREAD_ONCE_INIT;

static void set_col(enum host_col c, const char *name, enum host_col_fmt fmt)
{
        if ((unsigned)c < HC_COUNT)
                cols[c] = (struct host_col_info){.name = name, .fmt = fmt};
}

static void declare(const struct host_csv_slot *c)
{
        switch (c->cell) {
        case HCELL_VALUE:
        case HCELL_AT:
        case HCELL_SUM:
                set_col(c->col, c->name, c->fmt);
                break;
        case HCELL_TIME:
                set_col(c->col, c->name, HF_TIME);
                break;
        case HCELL_TEXT:
                set_col(c->col, c->name, HF_TEXT);
                cols[c->col].text = c->text;
                break;
        case HCELL_CORES:
                set_col(c->col, c->name, HF_CORES);
                cols[c->col].suffix = c->suffix;
                break;
        case HCELL_FS:
                set_col(c->col, c->name, c->fmt);
                set_col(c->col2, c->name2, c->fmt);
                break;
        case HCELL_WORD:
                set_col(c->col, c->name, HF_HEX);
                set_col(c->col2, c->name2, HF_FLAGS);
                cols[c->col2].text = c->text;
                break;
        case HCELL_WATCH:
                if (c->suffix && (unsigned)c->wcol < WC_COUNT)
                        watch_cols[c->wcol] =
                            (struct host_col_info){.name = c->suffix, .fmt = c->fmt};
                if (c->watch && nref_watches < HC_COUNT) {
                        set_col(c->col, c->name, c->fmt);
                        ref_watches[nref_watches++] = c->watch;
                }
                break;
        case HCELL_NONE:
        case HCELL_ELSE:
                break;
        }
}

static void build_cols(void)
{
        for (size_t a = 0; a < NAREAS; a++)
                for (size_t i = 0; i < *areas[a].n; i++)
                        declare(&areas[a].t[i].host_csv);
}

#define COLS pthread_once(&cols_once, build_cols)

const char *watch_col_suffix(enum watch_col c)
{
        COLS;
        return (unsigned)c < WC_COUNT && watch_cols[c].name ? watch_cols[c].name : "";
}

const char *host_col_name(enum host_col c)
{
        COLS;
        return (unsigned)c < HC_COUNT && cols[c].name ? cols[c].name : "";
}

enum host_col_fmt host_col_fmt(enum host_col c)
{
        COLS;
        return (unsigned)c < HC_COUNT ? cols[c].fmt : HF_TEXT;
}

bool host_col_numeric(enum host_col c)
{
        COLS;
        return (unsigned)c < HC_COUNT && cols[c].name && cols[c].fmt <= HF_INT;
}

/* A value in format fmt as written and read back: HF_PCT1 keeps one decimal. */
static double logged(enum host_col_fmt fmt, double v)
{
        return VAL_OK(v) && fmt == HF_PCT1 ? round(v * 10.0) / 10.0 : v;
}

VIGIL_HOT double host_col_logged(enum host_col c, double v)
{
        return logged(host_col_fmt(c), v);
}

double watch_col_logged(enum watch_col c, double v)
{
        COLS;
        return (unsigned)c < WC_COUNT ? logged(watch_cols[c].fmt, v) : v;
}

VIGIL_HOT const struct host_col_info *host_cols(void)
{
        COLS;
        return cols;
}

VIGIL_HOT const struct host_col_info *host_watch_cols(void)
{
        COLS;
        return watch_cols;
}

void host_core_col_name(char *buf, size_t cap, unsigned i)
{
        COLS;
        snprintf(buf, cap, "%s%u%s", cols[HC_CPUS].name, i, cols[HC_CPUS].suffix);
}

/* ---- the row ---- */

/* The member at off of the struct at base. */
static double dbl_at(const void *base, size_t off)
{
        double v;
        memcpy(&v, (const char *)base + off, sizeof(v));
        return v;
}

static unsigned uint_at(const void *base, size_t off)
{
        unsigned v;
        memcpy(&v, (const char *)base + off, sizeof(v));
        return v;
}

/* v in the column's unit (div 0: as it is). */
static double scaled(double v, double div)
{
        if (div == 0)
                return v;
        return VAL_OK(v) ? v / div : VAL_MISSING;
}

/* A watch's value in its column's unit, as the reference has it for a watch matching
 * nothing: a sum over no process is 0 (its chromium_pss_mb); the player's own values
 * are empty. */
static double watch_cell(const struct watch_frame *w, double v, double div, enum watch_rule rule)
{
        bool none = VAL_OK(w->count) && w->count == 0;
        if (rule == WR_SUM && none)
                return 0.0;
        if (rule == WR_RUNNING && !(VAL_OK(w->count) && w->count > 0))
                return VAL_MISSING;
        return scaled(v, div);
}

/* The sum of the n doubles at p, NAN when one is missing. */
static double sum(const char *p, unsigned n)
{
        double total = 0;
        for (unsigned k = 0; k < n; k++) {
                double v = dbl_at(p, k * sizeof(double));
                total = VAL_OK(v) ? total + v : VAL_MISSING;
        }
        return total;
}

static const struct watch_frame *find_watch(const struct frame *f, const char *name)
{
        for (unsigned i = 0; i < f->nwatches; i++)
                if (strcmp(f->watches[i].name, name) == 0)
                        return &f->watches[i];
        return NULL;
}

static bool is_ref_watch(const char *name)
{
        for (size_t i = 0; i < nref_watches; i++)
                if (strcmp(ref_watches[i], name) == 0)
                        return true;
        return false;
}

/* The columns of one area's table whose values are the members of src (the forms of
 * one struct; HCELL_FS and HCELL_WATCH are the passes below). */
VIGIL_HOT static void build_area(struct host_row *r, const struct field_desc *t, size_t n,
                                 const void *src)
{
        for (size_t i = 0; i < n; i++) {
                const struct host_csv_slot *c = &t[i].host_csv;
                const char *m = (const char *)src + t[i].off;
                switch (c->cell) {
                case HCELL_VALUE:
                        r->v[c->col] = scaled(dbl_at(m, 0), c->div);
                        break;
                case HCELL_AT:
                        r->v[c->col] = c->index < uint_at(src, c->count_off)
                                           ? scaled(dbl_at(m, c->index * sizeof(double)), c->div)
                                           : VAL_MISSING;
                        break;
                case HCELL_ELSE:
                        if (!VAL_OK(r->v[c->col]))
                                r->v[c->col] = scaled(dbl_at(m, 0), c->div);
                        break;
                case HCELL_SUM:
                        r->v[c->col] = sum(m, c->n);
                        break;
                case HCELL_TIME:
                        memcpy(&r->real_ns, m, sizeof(r->real_ns));
                        break;
                case HCELL_TEXT:
                        snprintf((char *)r + c->text, c->text_size, "%s", m);
                        break;
                case HCELL_CORES: {
                        unsigned count = uint_at(src, c->count_off);
                        r->ncpu = count < VIGIL_MAX_CPUS ? count : VIGIL_MAX_CPUS;
                        for (unsigned k = 0; k < r->ncpu; k++)
                                r->cpu[k] = dbl_at(m, k * sizeof(double));
                        break;
                }
                case HCELL_WORD: {
                        /* 32 bits: exact in the row's double cell. */
                        bool valid;
                        uint64_t word;
                        memcpy(&valid, (const char *)src + t[i].valid_off, sizeof(valid));
                        memcpy(&word, m, sizeof(word));
                        r->v[c->col] = valid ? (double)word : VAL_MISSING;
                        if (c->names)
                                c->names(src, (char *)r + c->text, c->text_size);
                        break;
                }
                case HCELL_NONE:
                case HCELL_FS:
                case HCELL_WATCH:
                        break;
                }
        }
}

/* One column per watched file system. */
static void build_fs(struct host_row *r, const struct fs_frame *root, const struct fs_frame *log)
{
        for (size_t i = 0; i < fs_fields_count; i++) {
                const struct host_csv_slot *c = &fs_fields[i].host_csv;
                if (c->cell != HCELL_FS)
                        continue;
                r->v[c->col] = scaled(dbl_at(root, fs_fields[i].off), c->div);
                r->v[c->col2] = scaled(dbl_at(log, fs_fields[i].off), c->div);
        }
}

/* The reference's columns of the watches it names. */
static void build_ref_watches(struct host_row *r, const struct frame *f)
{
        for (size_t i = 0; i < watch_fields_count; i++) {
                const struct host_csv_slot *c = &watch_fields[i].host_csv;
                if (c->cell != HCELL_WATCH || !c->watch)
                        continue;
                const struct watch_frame *w = find_watch(f, c->watch);
                r->v[c->col] =
                    w ? watch_cell(w, dbl_at(w, watch_fields[i].off), c->div, c->ref_rule)
                      : VAL_MISSING;
        }
}

/* Every other watch is recorded in columns of its own. */
static void build_own_watches(struct host_row *r, const struct frame *f)
{
        r->nwatch = 0;
        for (unsigned i = 0; i < f->nwatches && i < VIGIL_MAX_WATCHES; i++) {
                const struct watch_frame *w = &f->watches[i];
                if (is_ref_watch(w->name))
                        continue;
                struct host_row_watch *o = &r->w[r->nwatch++];
                snprintf(o->name, sizeof(o->name), "%s", w->name);
                for (size_t k = 0; k < watch_fields_count; k++) {
                        const struct host_csv_slot *c = &watch_fields[k].host_csv;
                        if (c->cell == HCELL_WATCH && c->suffix)
                                o->v[c->wcol] =
                                    watch_cell(w, dbl_at(w, watch_fields[k].off), c->div, c->rule);
                }
        }
}

VIGIL_HOT void host_row_build(struct host_row *r, const struct frame *f)
{
        for (unsigned i = 0; i < HC_COUNT; i++)
                r->v[i] = VAL_MISSING;
        r->real_ns = 0;
        r->ncpu = 0;
        r->governor[0] = r->throttle_flags[0] = '\0';
        COLS;
        /* The host first: a Pi value fills only what it left empty (HCELL_ELSE). */
        build_area(r, host_fields, host_fields_count, &f->host);
        build_area(r, rpi_fields, rpi_fields_count, &f->rpi);
        build_ref_watches(r, f);
        build_own_watches(r, f);
        build_fs(r, &f->storage.fs[FS_ROOT], &f->storage.fs[FS_LOG]);
        build_area(r, storage_fields, storage_fields_count, &f->storage);
}
