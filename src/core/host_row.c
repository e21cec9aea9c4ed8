/* The host row and its CSV form, driven by the columns the area tables declare (the
 * csv slot of core/host_values.def, rpi_values.def, watch_values.def, fs_values.def
 * and storage_values.def; the forms are core/value_def.h's). Formats follow the
 * reference monitor's Python csv.DictWriter output: repr() of floats, psutil's
 * one-decimal percentages, hex(). */
#include "core/host_row.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/rpi_throttle.h"
#include "core/value_def.h"
#include "util/fmt.h"

/* The tables' divisors. */
#define MB  (1024.0 * 1024.0)
#define MHZ 1e6

/* ---- the columns' names and formats ---- */

struct col {
        const char *name;
        enum host_col_fmt fmt;
        const char *suffix; /* HF_CORES: after the core's number */
        size_t text;        /* HF_TEXT, HF_FLAGS: the string's offset in struct host_row */
};

/* Each column's name and format, from the tables' csv slots. */
#define VALUE   VD_AREA_CSV
#define VALUE_V VD_AREA_V_CSV
#define VALUE_S VD_AREA_CSV
#define EXTRA   VD_SKIP
#include "core/host_col_off.h"
#undef VD_HCOL
#undef VD_HCOL_AT
#undef VD_HCOL_SUM
#undef VD_HCOL_TIME
#undef VD_HCOL_TEXT
#undef VD_HCOL_CORES
#undef VD_HCOL_FS
#undef VD_HCOL_WORD
#undef VD_WREF
#undef VD_WCOL_REF
#define VD_HCOL(ctx, id, name_, fmt_, div)    [HC_##id] = {.name = name_, .fmt = HF_##fmt_},
#define VD_HCOL_AT(ctx, id, name_, fmt_, ...) [HC_##id] = {.name = name_, .fmt = HF_##fmt_},
#define VD_HCOL_SUM(ctx, id, name_, fmt_, n)  [HC_##id] = {.name = name_, .fmt = HF_##fmt_},
#define VD_HCOL_TIME(ctx, id, name_)          [HC_##id] = {.name = name_, .fmt = HF_TIME},
#define VD_HCOL_TEXT(ctx, id, name_, buf)                                                          \
        [HC_##id] = {.name = name_, .fmt = HF_TEXT, .text = offsetof(struct host_row, buf)},
#define VD_HCOL_CORES(ctx, id, pre, suf, count)                                                    \
        [HC_##id] = {.name = pre, .fmt = HF_CORES, .suffix = suf},
#define VD_HCOL_FS(ctx, rid, rname, lid, lname, fmt_, div)                                         \
        [HC_##rid] = {.name = rname, .fmt = HF_##fmt_},                                            \
        [HC_##lid] = {.name = lname, .fmt = HF_##fmt_},
#define VD_HCOL_WORD(ctx, id, name_, fid, fname, buf)                                              \
        [HC_##id] = {.name = name_, .fmt = HF_HEX},                                                \
        [HC_##fid] = {.name = fname, .fmt = HF_FLAGS, .text = offsetof(struct host_row, buf)},
#define VD_WREF(ctx, id, name_, fmt_, div, watch, rule)                                            \
        [HC_##id] = {.name = name_, .fmt = HF_##fmt_},
#define VD_WCOL_REF(ctx, wid, suf, wfmt, div, rule, id, name_, watch, refrule)                     \
        [HC_##id] = {.name = name_, .fmt = HF_##wfmt},
static const struct col cols[HC_COUNT] = {
#include "core/host_values.def"
#include "core/rpi_values.def"
#include "core/watch_values.def"
#include "core/fs_values.def"
#include "core/storage_values.def"
};

/* A watch's own columns: suffix and format. */
#include "core/host_col_off.h"
#undef VD_WCOL
#undef VD_WCOL_REF
#define VD_WCOL(ctx, wid, suf, fmt_, div, rule)          [WC_##wid] = {.name = suf, .fmt = HF_##fmt_},
#define VD_WCOL_REF(ctx, wid, suf, fmt_, div, rule, ...) VD_WCOL(ctx, wid, suf, fmt_, div, rule)
static const struct col watch_cols[WC_COUNT] = {
#include "core/watch_values.def"
};

/* The watches whose values go to the reference's columns instead of their own. */
#include "core/host_col_off.h"
#undef VD_WREF
#undef VD_WCOL_REF
#define VD_WREF(ctx, id, name_, fmt_, div, watch, rule)                        watch,
#define VD_WCOL_REF(ctx, wid, suf, fmt_, div, rule, id, name_, watch, refrule) watch,
static const char *const ref_watches[] = {
#include "core/watch_values.def"
};

const char *watch_col_suffix(enum watch_col c)
{
        return (unsigned)c < WC_COUNT ? watch_cols[c].name : "";
}

const char *host_col_name(enum host_col c)
{
        return (unsigned)c < HC_COUNT && cols[c].name ? cols[c].name : "";
}

enum host_col_fmt host_col_fmt(enum host_col c)
{
        return (unsigned)c < HC_COUNT ? cols[c].fmt : HF_TEXT;
}

bool host_col_numeric(enum host_col c)
{
        return (unsigned)c < HC_COUNT && cols[c].name && cols[c].fmt <= HF_INT;
}

/* A value in format fmt as written and read back: HF_PCT1 keeps one decimal. */
static double logged(enum host_col_fmt fmt, double v)
{
        return VAL_OK(v) && fmt == HF_PCT1 ? round(v * 10.0) / 10.0 : v;
}

double host_col_logged(enum host_col c, double v)
{
        return logged(host_col_fmt(c), v);
}

double watch_col_logged(enum watch_col c, double v)
{
        return (unsigned)c < WC_COUNT ? logged(watch_cols[c].fmt, v) : v;
}

void host_core_col_name(char *buf, size_t cap, unsigned i)
{
        snprintf(buf, cap, "%s%u%s", cols[HC_CPUS].name, i, cols[HC_CPUS].suffix);
}

/* ---- the row ---- */

enum watch_rule { WR_ANY, WR_SUM, WR_RUNNING };

static double scaled(double v, double div)
{
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

/* The sum of v[0..n), NAN when one is missing. */
static double sum(const double *v, unsigned n)
{
        double total = 0;
        for (unsigned k = 0; k < n; k++)
                total = VAL_OK(v[k]) ? total + v[k] : VAL_MISSING;
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
        for (size_t i = 0; i < sizeof(ref_watches) / sizeof(ref_watches[0]); i++)
                if (strcmp(ref_watches[i], name) == 0)
                        return true;
        return false;
}

/* The columns of one area's table whose values are its members (src). */
#include "core/host_col_off.h"
#undef VD_HCOL
#undef VD_HCOL_AT
#undef VD_HCOL_ELSE
#undef VD_HCOL_SUM
#undef VD_HCOL_TIME
#undef VD_HCOL_TEXT
#undef VD_HCOL_CORES
#undef VD_HCOL_WORD
#define VD_HCOL(ctx, id, name_, fmt_, div) r->v[HC_##id] = scaled(src->VD_MEMBER(ctx), div);
#define VD_HCOL_AT(ctx, id, name_, fmt_, div, index, count)                                        \
        r->v[HC_##id] =                                                                            \
            (index) < src->count ? scaled(src->VD_MEMBER(ctx)[index], div) : VAL_MISSING;
#define VD_HCOL_ELSE(ctx, id, div)                                                                 \
        if (!VAL_OK(r->v[HC_##id]))                                                                \
                r->v[HC_##id] = scaled(src->VD_MEMBER(ctx), div);
#define VD_HCOL_SUM(ctx, id, name_, fmt_, n) r->v[HC_##id] = sum(src->VD_MEMBER(ctx), n);
#define VD_HCOL_TIME(ctx, id, name_)         r->real_ns = src->VD_MEMBER(ctx);
#define VD_HCOL_TEXT(ctx, id, name_, buf)                                                          \
        snprintf(r->buf, sizeof(r->buf), "%s", src->VD_MEMBER(ctx));
#define VD_HCOL_CORES(ctx, id, pre, suf, count)                                                    \
        r->count = src->count < VIGIL_MAX_CPUS ? src->count : VIGIL_MAX_CPUS;                      \
        for (unsigned i = 0; i < r->count; i++)                                                    \
                r->cpu[i] = src->VD_MEMBER(ctx)[i];
/* 32 bits: exact in the row's double cell. */
#define VD_HCOL_WORD(ctx, id, name_, fid, fname, buf)                                              \
        r->v[HC_##id] = src->VD_VALID(ctx) ? (double)src->VD_MEMBER(ctx) : VAL_MISSING;            \
        rpi_frame_flags(src, r->buf, sizeof(r->buf));

static void build_host(struct host_row *r, const struct host_frame *src)
{
#include "core/host_values.def"
}

static void build_rpi(struct host_row *r, const struct rpi_frame *src)
{
#include "core/rpi_values.def"
}

static void build_storage(struct host_row *r, const struct storage_frame *src)
{
#include "core/storage_values.def"
}

/* One column per watched file system. */
#include "core/host_col_off.h"
#undef VD_HCOL_FS
#define VD_HCOL_FS(ctx, rid, rname, lid, lname, fmt_, div)                                         \
        r->v[HC_##rid] = scaled(root->VD_MEMBER(ctx), div);                                        \
        r->v[HC_##lid] = scaled(log->VD_MEMBER(ctx), div);
static void build_fs(struct host_row *r, const struct fs_frame *root, const struct fs_frame *log)
{
#include "core/fs_values.def"
}

/* The reference's columns of the watches it names. */
#include "core/host_col_off.h"
#undef VD_WREF
#undef VD_WCOL_REF
#define VD_WREF(ctx, id, name_, fmt_, div, watch, rule)                                            \
        w = find_watch(f, watch);                                                                  \
        r->v[HC_##id] = w ? watch_cell(w, w->VD_MEMBER(ctx), div, WR_##rule) : VAL_MISSING;
#define VD_WCOL_REF(ctx, wid, suf, fmt_, div, rule, id, name_, watch, refrule)                     \
        VD_WREF(ctx, id, name_, fmt_, div, watch, refrule)
static void build_ref_watches(struct host_row *r, const struct frame *f)
{
        const struct watch_frame *w;
#include "core/watch_values.def"
}

/* Every other watch is recorded in columns of its own. */
#include "core/host_col_off.h"
#undef VD_WCOL
#undef VD_WCOL_REF
#define VD_WCOL(ctx, wid, suf, fmt_, div, rule)                                                    \
        o->v[WC_##wid] = watch_cell(w, w->VD_MEMBER(ctx), div, WR_##rule);
#define VD_WCOL_REF(ctx, wid, suf, fmt_, div, rule, ...) VD_WCOL(ctx, wid, suf, fmt_, div, rule)
static void build_own_watches(struct host_row *r, const struct frame *f)
{
        r->nwatch = 0;
        for (unsigned i = 0; i < f->nwatches && i < VIGIL_MAX_WATCHES; i++) {
                const struct watch_frame *w = &f->watches[i];
                if (is_ref_watch(w->name))
                        continue;
                struct host_row_watch *o = &r->w[r->nwatch++];
                snprintf(o->name, sizeof(o->name), "%s", w->name);
#include "core/watch_values.def"
        }
}
#include "core/host_col_off.h"
#undef VALUE
#undef VALUE_V
#undef VALUE_S
#undef EXTRA

void host_row_build(struct host_row *r, const struct frame *f)
{
        for (unsigned i = 0; i < HC_COUNT; i++)
                r->v[i] = VAL_MISSING;
        r->real_ns = 0;
        r->ncpu = 0;
        r->governor[0] = r->throttle_flags[0] = '\0';
        /* The host first: a Pi value fills only what it left empty (HCOL_ELSE). */
        build_host(r, &f->host);
        build_rpi(r, &f->rpi);
        build_ref_watches(r, f);
        build_own_watches(r, f);
        build_fs(r, &f->storage.fs[FS_ROOT], &f->storage.fs[FS_LOG]);
        build_storage(r, &f->storage);
}

/* ---- the CSV ---- */

void host_row_header(struct strbuf *out, unsigned ncpu, const struct host_row *r)
{
        char name[48];
        for (unsigned c = 0; c < HC_COUNT; c++) {
                if (cols[c].fmt != HF_CORES) {
                        sb_printf(out, c ? ",%s" : "%s", cols[c].name);
                        continue;
                }
                for (unsigned i = 0; i < ncpu; i++) {
                        host_core_col_name(name, sizeof(name), i);
                        sb_printf(out, ",%s", name);
                }
        }
        for (unsigned i = 0; i < r->nwatch; i++)
                for (unsigned k = 0; k < WC_COUNT; k++)
                        sb_printf(out, ",%s%s", r->w[i].name, watch_col_suffix(k));
        sb_putc(out, '\n');
}

static void put_value(struct strbuf *out, enum host_col_fmt fmt, double v)
{
        char buf[48];
        if (!VAL_OK(v))
                return;
        switch (fmt) {
        case HF_PY:
                fmt_pyfloat(buf, sizeof(buf), v);
                sb_puts(out, buf);
                break;
        case HF_PCT1:
                sb_fixed(out, '\0', v, 1);
                break;
        case HF_INT:
                sb_fixed(out, '\0', v, 0);
                break;
        case HF_HEX:
                sb_printf(out, "0x%llx", (unsigned long long)v);
                break;
        default:
                break;
        }
}

void host_row_csv(struct strbuf *out, const struct host_row *r, unsigned ncpu)
{
        char ts[40];
        for (unsigned c = 0; c < HC_COUNT; c++) {
                if (cols[c].fmt == HF_CORES) { /* as many cells as the header has */
                        for (unsigned i = 0; i < ncpu; i++) {
                                sb_putc(out, ',');
                                if (i < r->ncpu)
                                        put_value(out, HF_PCT1, r->cpu[i]);
                        }
                        continue;
                }
                if (c)
                        sb_putc(out, ',');
                switch (cols[c].fmt) {
                case HF_TIME:
                        fmt_time_iso_ms(ts, sizeof(ts), r->real_ns);
                        sb_puts(out, ts);
                        break;
                case HF_TEXT:
                case HF_FLAGS:
                        sb_csv_cell(out, (const char *)r + cols[c].text);
                        break;
                default:
                        put_value(out, cols[c].fmt, r->v[c]);
                }
        }
        for (unsigned i = 0; i < r->nwatch; i++)
                for (unsigned k = 0; k < WC_COUNT; k++) {
                        sb_putc(out, ',');
                        put_value(out, watch_cols[k].fmt, r->w[i].v[k]);
                }
        sb_putc(out, '\n');
}
