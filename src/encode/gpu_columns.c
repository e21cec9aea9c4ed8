/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU CSV row writer. See gpu_columns.h. */
#include "encode/gpu_columns.h"

#include <string.h>

#include <pthread.h>

#include "core/frame_fields.h"
#include "util/numfmt.h"
#include "util/hot.h"

/* The columns at their positions, from the csv slots of gpu_fields[]. */
#define GPU_COLUMNS_MAX 64
static struct gpu_column columns[GPU_COLUMNS_MAX];
static size_t ncolumns;
static bool columns_ok;
static pthread_once_t columns_once = PTHREAD_ONCE_INIT;

/* Put slot s of row d at its position; false when the position is taken or too far. */
static bool place(const struct field_desc *d, const struct gpu_csv_slot *s, bool *taken)
{
        if (!s->name)
                return true;
        if (s->pos >= GPU_COLUMNS_MAX || taken[s->pos])
                return false;
        taken[s->pos] = true;
        columns[s->pos] = (struct gpu_column){.name = s->name,
                                              .cell = s->cell,
                                              .off = d->off,
                                              .valid_off = d->valid_off,
                                              .decimals = s->decimals,
                                              .files = s->files};
        if (s->pos + 1 > ncolumns)
                ncolumns = s->pos + 1;
        return true;
}

static void build_columns(void)
{
        bool taken[GPU_COLUMNS_MAX] = {false};
        bool ok = true;
        for (size_t i = 0; i < gpu_fields_count; i++)
                ok &= place(&gpu_fields[i], &gpu_fields[i].csv, taken) &&
                      place(&gpu_fields[i], &gpu_fields[i].csv2, taken);
        for (size_t i = 0; i < ncolumns; i++)
                ok &= taken[i];
        columns_ok = ok;
}

const struct gpu_column *gpu_columns_table(size_t *ret_n)
{
        pthread_once(&columns_once, build_columns);
        *ret_n = columns_ok ? ncolumns : 0;
        return columns_ok ? columns : NULL;
}

/* The table as the functions below walk it. */
#define COLUMNS                                                                                    \
        size_t gpu_columns_count;                                                                  \
        const struct gpu_column *gpu_columns = gpu_columns_table(&gpu_columns_count)

const char *gpu_column_name(enum gpu_cell cell, size_t off)
{
        COLUMNS;
        for (size_t i = 0; i < gpu_columns_count; i++)
                if (gpu_columns[i].cell == cell && gpu_columns[i].off == off)
                        return gpu_columns[i].name;
        return "";
}

const char *gpu_column_name_of(size_t off)
{
        COLUMNS;
        for (size_t i = 0; i < gpu_columns_count; i++)
                if (gpu_columns[i].off == off)
                        return gpu_columns[i].name;
        return "";
}

/* The member a column writes. */
#define COL_DOUBLE(g, c) (*(const double *)((const char *)(g) + (c)->off))

unsigned gpu_csv_columns(enum gpu_csv_file file, unsigned nfans)
{
        COLUMNS;
        unsigned n = 0;
        for (size_t i = 0; i < gpu_columns_count; i++) {
                if (!(gpu_columns[i].files & file))
                        continue;
                n += gpu_columns[i].cell == GC_PER_FAN ? nfans : 1;
        }
        return n;
}

/* The run of adjacent GC_PER_FAN columns starting at i in file: its end. */
static size_t fan_run_end(size_t i, enum gpu_csv_file file)
{
        COLUMNS;
        size_t end = i;
        while (end < gpu_columns_count && gpu_columns[end].cell == GC_PER_FAN &&
               (gpu_columns[end].files & file))
                end++;
        return end;
}

void gpu_csv_header(struct strbuf *sb, enum gpu_csv_file file, unsigned nfans)
{
        COLUMNS;
        bool first = true;
        for (size_t i = 0; i < gpu_columns_count;) {
                const struct gpu_column *c = &gpu_columns[i];
                if (!(c->files & file)) {
                        i++;
                        continue;
                }
                if (c->cell != GC_PER_FAN) {
                        sb_printf(sb, "%s%s", first ? "" : ",", c->name);
                        first = false;
                        i++;
                        continue;
                }
                size_t end = fan_run_end(i, file);
                for (unsigned k = 0; k < nfans; k++)
                        for (size_t j = i; j < end; j++) {
                                sb_printf(sb, "%s" GPU_COL_FAN_PREFIX "%u%s", first ? "" : ",", k,
                                          gpu_columns[j].name);
                                first = false;
                        }
                i = end;
        }
        sb_putc(sb, '\n');
}

static void cell_fixed(struct strbuf *sb, double v, int decimals)
{
        if (VAL_OK(v))
                sb_fixed(sb, ',', v, decimals);
        else
                sb_putc(sb, ',');
}

/* Whole MiB, as Python's used // (1024 * 1024). */
static void cell_mib(struct strbuf *sb, double bytes)
{
        char t[1 + NUMFMT_MAX];
        if (VAL_OK(bytes) && bytes >= 0) {
                t[0] = ',';
                sb_put(sb, t, 1 + numfmt_u64(t + 1, (unsigned long long)bytes >> 20));
        } else {
                sb_putc(sb, ',');
        }
}

static void cell_tlimit(struct strbuf *sb, const struct gpu_frame *g)
{
        /* The reference leaves gpu_tlimit empty when the threshold reads 0. */
        if (VAL_OK(g->temp_max_c) && g->temp_max_c != 0 && VAL_OK(g->temp_c))
                sb_fixed(sb, ',', g->temp_max_c - g->temp_c, 0);
        else
                sb_putc(sb, ',');
}

/* The validated 64-bit member a column writes, when its flag says it is valid. */
static bool col_mask(const struct gpu_frame *g, const struct gpu_column *c, uint64_t *ret)
{
        const char *base = (const char *)g;
        bool valid;
        memcpy(&valid, base + c->valid_off, sizeof(valid));
        if (!valid)
                return false;
        memcpy(ret, base + c->off, sizeof(*ret));
        return true;
}

static void cell_mask(struct strbuf *sb, const struct gpu_frame *g, const struct gpu_column *c)
{
        char t[1 + NUMFMT_MAX];
        uint64_t mask;
        t[0] = ',';
        if (col_mask(g, c, &mask))
                sb_put(sb, t, 1 + numfmt_hex04(t + 1, mask));
        else
                sb_putc(sb, ',');
}

static void cell_mask_names(struct strbuf *sb, const struct gpu_frame *g,
                            const struct gpu_column *c, const struct gpu_csv_style *st)
{
        uint64_t mask;
        sb_putc(sb, ',');
        if (st->mask_names && col_mask(g, c, &mask))
                st->mask_names(sb, mask);
}

/* The fan columns i..end for every fan of the file. */
static void cells_fans(struct strbuf *sb, const struct gpu_frame *g, size_t i, size_t end,
                       unsigned nfans)
{
        COLUMNS;
        for (unsigned k = 0; k < nfans; k++) {
                bool have = k < g->nfans && k < VIGIL_MAX_FANS;
                for (size_t j = i; j < end; j++) {
                        const double *v = &COL_DOUBLE(g, &gpu_columns[j]);
                        cell_fixed(sb, have ? v[k] : VAL_MISSING, 0);
                }
        }
}

static void cell_flags(struct strbuf *sb, const struct gpu_frame *g, const char *flags)
{
        char err[96];
        if (!flags && g->ok) {
                flags = g->flags;
        } else if (!flags) {
                memcpy(err, "NVML_FAILED:", 12);
                size_t n = strnlen(g->error, 80);
                memcpy(err + 12, g->error, n);
                err[12 + n] = '\0';
                flags = err;
        }
        sb_putc(sb, ',');
        sb_csv_cell(sb, flags);
}

static void cell_time(struct strbuf *sb, const struct gpu_frame *g, struct fmt_sec_cache *tc)
{
        char ts[40];
        size_t n = tc ? fmt_time_gpu_cached(tc, ts, sizeof(ts), g->sampled_real_ns)
                      : fmt_time_gpu(ts, sizeof(ts), g->sampled_real_ns);
        sb_put(sb, ts, n);
}

/* One cell of a sample that answered (not the time, flags or fans). */
static void cell_value(struct strbuf *sb, const struct gpu_frame *g, const struct gpu_column *c,
                       const struct gpu_csv_style *st)
{
        switch (c->cell) {
        case GC_FIXED:
                cell_fixed(sb, COL_DOUBLE(g, c), c->decimals);
                break;
        case GC_MIB:
                cell_mib(sb, COL_DOUBLE(g, c));
                break;
        case GC_TLIMIT:
                cell_tlimit(sb, g);
                break;
        case GC_MASK:
                cell_mask(sb, g, c);
                break;
        case GC_MASK_NAMES:
                cell_mask_names(sb, g, c, st);
                break;
        case GC_TIME:
        case GC_PER_FAN:
        case GC_FLAGS:
                break;
        }
}

VIGIL_HOT void gpu_csv_row(struct strbuf *sb, const struct gpu_frame *g, const char *flags,
                           const struct gpu_csv_style *st)
{
        COLUMNS;
        for (size_t i = 0; i < gpu_columns_count;) {
                const struct gpu_column *c = &gpu_columns[i];
                size_t next = i + 1;
                if (!(c->files & st->file)) {
                        i = next;
                        continue;
                }
                if (c->cell == GC_TIME) {
                        cell_time(sb, g, st->ts_cache);
                } else if (c->cell == GC_FLAGS) {
                        cell_flags(sb, g, flags);
                } else if (c->cell == GC_PER_FAN) {
                        next = fan_run_end(i, st->file);
                        if (g->ok)
                                cells_fans(sb, g, i, next, st->nfans);
                        else
                                for (size_t k = 0; k < (next - i) * st->nfans; k++)
                                        sb_putc(sb, ',');
                } else if (g->ok) {
                        cell_value(sb, g, c, st);
                } else {
                        sb_putc(sb, ','); /* a failed sample: every value empty */
                }
                i = next;
        }
        sb_putc(sb, '\n');
}
