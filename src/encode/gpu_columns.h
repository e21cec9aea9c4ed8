/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU CSV row, written once for every file that holds one: the daily gpuN-DATE.csv
 * (encode/gpu_row.h) and the flight recorder's dump (encode/ring_csv.h). The columns, their
 * names, formats and positions are the csv slots of core/gpu_values.c. */
#ifndef VIGIL_ENCODE_GPU_COLUMNS_H
#define VIGIL_ENCODE_GPU_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "core/fields.h"
#include "core/frame.h"
#include "util/fmt.h"
#include "util/strbuf.h"

struct gpu_column {
        const char *name; /* header name; GC_PER_FAN: the text after "fanK" */
        enum gpu_cell cell;
        size_t off;       /* offsetof the struct gpu_frame member it writes */
        size_t valid_off; /* GC_MASK, GC_MASK_NAMES: offsetof the member's bool flag */
        int decimals;
        unsigned files; /* enum gpu_csv_file bits */
};

/* The columns in file order, from the csv slots of gpu_fields[] (core/gpu_values.c) at
 * their positions; *ret_n of them. NULL when two slots claim one position or a
 * position is left out (test_fields fails then). */
const struct gpu_column *gpu_columns_table(size_t *ret_n);

/* A GC_PER_FAN column's header name is this, the fan's number, then its name. */
#define GPU_COL_FAN_PREFIX "fan"

/* The header name of the column that writes the struct gpu_frame member at off as cell
 * (GC_PER_FAN: the text after "fanK"), for a reader that finds the writer's columns by
 * member; "" when no column does (no header cell vigil writes is empty). */
const char *gpu_column_name(enum gpu_cell cell, size_t off);
/* The header name of the first column that writes the member at off, whatever its cell;
 * "" when none does. */
const char *gpu_column_name_of(size_t off);
/* The same for a member named in the source: GPU_COLUMN_NAME(GC_FIXED, temp_c). */
#define GPU_COLUMN_NAME(cell, member) gpu_column_name(cell, offsetof(struct gpu_frame, member))

/* How one file writes its rows. */
struct gpu_csv_style {
        enum gpu_csv_file file; /* GPU_CSV_DAILY or GPU_CSV_RECORDER */
        unsigned nfans;         /* fan columns in the file (its header is fixed) */
        /* Appends the names of a mask's bits (the GC_MASK_NAMES cell, without its ','),
         * or NULL when the file has no such column. */
        void (*mask_names)(struct strbuf *sb, uint64_t mask);
        /* Kept by the caller across rows (or NULL): see fmt_time_gpu_cached. */
        struct fmt_sec_cache *ts_cache;
};

/* Columns of a file with nfans fans. */
unsigned gpu_csv_columns(enum gpu_csv_file file, unsigned nfans);
/* Append the header line (with '\n') of a file with nfans fans. */
void gpu_csv_header(struct strbuf *sb, enum gpu_csv_file file, unsigned nfans);
/* Append g's row (with '\n') in st's file. Fans beyond g->nfans are empty cells, fans
 * beyond st->nfans left out. flags is the flags column's text, or NULL for g's own:
 * g->flags, or for a failed sample (!g->ok) "NVML_FAILED:" and at most 80 characters of
 * g->error. A failed sample's other cells are empty. */
void gpu_csv_row(struct strbuf *sb, const struct gpu_frame *g, const char *flags,
                 const struct gpu_csv_style *st);

#endif
