/* The GPU CSV row, written once for every file that holds one: the daily gpuN-DATE.csv
 * (core/gpu_row.h) and the flight recorder's dump (core/ring.h). The columns, their
 * names, formats and positions are the csv slots of core/gpu_values.def. */
#ifndef VIGIL_CORE_GPU_COLUMNS_H
#define VIGIL_CORE_GPU_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "util/fmt.h"
#include "util/strbuf.h"

/* Which files carry a column (bits). */
enum gpu_csv_file {
        GPU_CSV_DAILY = 1u << 0,    /* gpuN-YYYY-MM-DD.csv and the crash snapshot's row */
        GPU_CSV_RECORDER = 1u << 1, /* the flight recorder's dump */
        GPU_CSV_ALL = GPU_CSV_DAILY | GPU_CSV_RECORDER,
};

/* How a column's cell is written from its member. Every cell is empty when its value
 * is missing. */
enum gpu_cell {
        GC_TIME,       /* sampled_real_ns as "YYYY/MM/DD HH:MM:SS.mmm" local time */
        GC_FIXED,      /* a double as "%.*f" with the column's decimals */
        GC_MIB,        /* bytes as whole MiB, rounded down (Python's // (1024 * 1024)) */
        GC_TLIMIT,     /* the reference's gpu_tlimit: temp_max_c - temp_c, empty when the
                        * threshold reads 0 */
        GC_MASK,       /* a validated bit mask as "0x%04llx" */
        GC_MASK_NAMES, /* the mask's names, by the writer's mask_names */
        GC_PER_FAN,    /* element K of a fan array, one column per fan; adjacent GC_PER_FAN
                        * columns interleave: fan0_a,fan0_b,fan1_a,fan1_b... */
        GC_FLAGS,      /* the flags text (the error row's "NVML_FAILED:<error>") */
};

struct gpu_column {
        const char *name; /* header name; GC_PER_FAN: the text after "fanK" */
        enum gpu_cell cell;
        size_t off;       /* offsetof the struct gpu_frame member it writes */
        size_t valid_off; /* GC_MASK, GC_MASK_NAMES: offsetof the member's bool flag */
        int decimals;
        unsigned files; /* enum gpu_csv_file bits */
};

/* The columns in file order (core/gpu_values.def's positions). */
extern const struct gpu_column gpu_columns[];
extern const size_t gpu_columns_count;

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
