/* SPDX-License-Identifier: Apache-2.0 */
/* Field descriptors: one row per member of a frame struct (core/frame.h), in member
 * order, saying what "missing" is for it and all that vigil's outputs know of the value:
 * its CSV columns, /metrics series, history and report. The tables are plain data, one
 * file per area: core/host_values.c, watch_values.c, rpi_values.c, storage_values.c
 * (file systems and storage) and gpu_values.c. Frame clearing and its test walk them
 * (test_fields fails for a member no row describes). */
#ifndef VIGIL_CORE_FIELDS_H
#define VIGIL_CORE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/host_row.h"
#include "core/metric_defs.h"

enum field_kind {
        FK_KEEP,      /* identity (index, name): survives clearing */
        FK_ZERO,      /* bookkeeping and counts: 0 / false when cleared */
        FK_DOUBLE,    /* a value or array of values: NAN when missing */
        FK_STRING,    /* text: "" when missing */
        FK_VALIDATED, /* an integer or bit mask: 0, and its validity flag false */
        FK_VALID,     /* the validity flag of an FK_VALIDATED field */
        FK_STRUCT,    /* a struct or array of structs, each cleared by its own table */
        FK_NONE,      /* no member: a row that only carries an output (a /metrics family
                       * of several members), at its place in the table's order */
};

/* Which GPU CSV files carry a column (bits). */
enum gpu_csv_file {
        GPU_CSV_DAILY = 1u << 0,    /* gpuN-YYYY-MM-DD.csv and the crash snapshot's row */
        GPU_CSV_RECORDER = 1u << 1, /* the flight recorder's dump */
        GPU_CSV_ALL = GPU_CSV_DAILY | GPU_CSV_RECORDER,
};

/* How a GPU CSV column's cell is written from its member. Every cell is empty when its
 * value is missing. */
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

/* A GPU CSV column (encode/gpu_columns.h); none when name is NULL. pos: its position in
 * the file (the reference logger's columns 0-20 in its order, then vigil's; never
 * renumber or rename a reference column). name: the header's (GC_PER_FAN: the text
 * after "fanK"). files: GPU_CSV_* bits (a column the recorder's dump carries must also
 * be stored in core/ring.c's compact sample, or the dump writes it empty). */
struct gpu_csv_slot {
        unsigned pos;
        const char *name;
        enum gpu_cell cell;
        int decimals; /* GC_FIXED */
        unsigned files;
};

/* How the dashboard's history keeps a value (core/history.h): at slot id of the area's
 * enum, reduced over a record's period by max, min or last (a double) or or (a
 * validated bit word: the union of the words read, low 32 bits); HIST_none: not kept. */
enum hist_reduce { HIST_none, HIST_max, HIST_min, HIST_last, HIST_or };
struct hist_keep {
        unsigned id;
        enum hist_reduce reduce;
};

/* How a value makes its columns of the host log (core/host_row.h). col is an enum
 * host_col position, fmt its enum host_col_fmt, div what the member is divided by for
 * the column's unit (HOST_DIV_MB, HOST_DIV_MHZ; 0: as it is). */
enum host_cell {
        HCELL_NONE,
        HCELL_VALUE, /* the member, at col */
        HCELL_AT,    /* element index of an array member, when index < the unsigned member at
                      * count_off; else empty */
        HCELL_ELSE,  /* the member at col where the column is still empty: a second source of
                      * a column an area read before this one declares (no name) */
        HCELL_FS,    /* one column per watched file system: FS_ROOT's at col, FS_LOG's at
                      * col2 (name2) */
        HCELL_SUM,   /* the sum of the member's n doubles, empty when one is missing */
        HCELL_TIME,  /* the row's time (ns since the epoch), ISO 8601 to the ms */
        HCELL_CORES, /* one column per core, name N suffix; the unsigned member at count_off
                      * counts them */
        HCELL_TEXT,  /* a string, copied into struct host_row at text (text_size bytes) */
        HCELL_WORD,  /* a validated bit word in hex at col, and its set conditions' names at
                      * col2 (name2), which names writes into struct host_row at text */
        HCELL_WATCH, /* a watch's value: with suffix, column wcol of each watch without
                      * reference columns (NAME suffix, rule); with watch, the reference
                      * monitor's column col of the watch so named (ref_rule) */
};

/* What a watch matching nothing has in a column: ANY the value as it is, SUM 0 (a sum
 * over no process), RUNNING empty. */
enum watch_rule { WR_ANY, WR_SUM, WR_RUNNING };

struct host_csv_slot {
        enum host_cell cell;
        enum host_col col;
        const char *name; /* the header's (HCELL_CORES: before the core's number) */
        enum host_col_fmt fmt;
        double div;
        enum host_col col2; /* HCELL_FS, HCELL_WORD */
        const char *name2;
        unsigned index;   /* HCELL_AT */
        size_t count_off; /* HCELL_AT, HCELL_CORES */
        unsigned n;       /* HCELL_SUM */
        const char *suffix;
        size_t text, text_size;
        size_t (*names)(const void *area, char *out, size_t cap); /* HCELL_WORD */
        enum watch_col wcol;
        enum watch_rule rule;
        const char *watch;
        enum watch_rule ref_rule;
};

/* The GPU columns `vigil report` reads back: the rows of gpu_fields[] with a report
 * slot, by its id. */
enum gpu_field {
        GPU_F_PSTATE,
        GPU_F_TEMP,
        GPU_F_TLIMIT,
        GPU_F_POWER,
        GPU_F_POWER_LIMIT,
        GPU_F_GPU_CLOCK,
        GPU_F_MEM_CLOCK,
        GPU_F_GPU_UTIL,
        GPU_F_MEM_UTIL,
        GPU_F_VRAM_USED,
        GPU_F_PCIE_GEN,
        GPU_F_PCIE_WIDTH,
        GPU_F_S0_TEMP,
        GPU_F_COUNT
};

/* A report slot's flags: the field is a line of the text summary, in the table's
 * order, before the fans' lines (REP_TEXT) or after them (REP_TEXT_LAST); it is drawn
 * in the HTML report (REP_CHART: its series are kept). */
enum { REP_TEXT = 1u << 0, REP_TEXT_LAST = 1u << 1, REP_CHART = 1u << 2 };

/* How `vigil report` reads a GPU column back and summarises it (report/gpu_acc.h): at
 * GPU_F_<id> (above), with decimals and unit on its summary line, flags
 * REP_TEXT, REP_TEXT_LAST, REP_CHART; none when unit is NULL. */
struct rep_slot {
        unsigned id;
        int decimals;
        const char *unit;
        unsigned flags;
};

/* How often the source reads a value (GPU rows): every sample, or only at a sample of
 * the mid or the slow cadence (collect/nvml_read.h), the samples between carrying the
 * last value read (fields_copy_cadence), missing where that read did not answer. */
enum field_cadence {
        FC_SAMPLE, /* read by every sample */
        FC_MID,    /* NVML_READ_MID */
        FC_SLOW,   /* NVML_READ_SLOW_ONLY */
};

struct field_desc {
        const char *name; /* the member's name */
        enum field_kind kind;
        enum field_cadence cadence;
        size_t off, size; /* offsetof and sizeof the member (an array: all of it) */
        size_t valid_off; /* FK_VALIDATED: offsetof its bool validity flag */
        /* FK_STRUCT: the element's table and size (size / elem elements) */
        const struct field_desc *sub;
        const size_t *nsub;
        size_t elem;
        /* The value's outputs (zero: none). csv2: a second column of the GPU CSV;
         * host_csv: its columns of the host log (the host's, the Pi's, the watches' and
         * storage's tables). */
        struct gpu_csv_slot csv, csv2;
        struct host_csv_slot host_csv;
        struct metric_def metric;
        struct hist_keep hist;
        struct rep_slot rep;
};

/* A row's member of struct type st: its name, place and size. */
#define FIELD_MEMBER(st, m) .name = #m, .off = offsetof(st, m), .size = sizeof(((st *)0)->m)

/* Set every field of the struct at base (size bytes, its members described in member
 * order by t[0..n)) to missing: FK_DOUBLE elements NAN, FK_KEEP fields untouched,
 * FK_STRUCT elements by their own table, every other byte (padding included) zero.
 * The table is walked once, at its first clear (any thread): later clears copy the
 * cleared image's bytes in a few runs; should that first walk fail for memory, each
 * clear walks the table (fields_clear_walk). */
void fields_clear(void *base, size_t size, const struct field_desc *t, size_t n);

/* What fields_clear does, by a walk of the table's rows every call: the image
 * fields_clear copies is made with it, and tests compare the two. */
void fields_clear_walk(void *base, size_t size, const struct field_desc *t, size_t n);

/* Copy the FK_KEEP fields of src into dst (two structs t describes). In a few runs
 * once a fields_clear has seen t, by a walk of its rows before. */
void fields_copy_kept(void *dst, const void *src, const struct field_desc *t, size_t n);

/* Copy the fields of src whose row has cadence c into dst (two structs t describes): the
 * cached values of a cadence, in or out of a sample. A validated field's flag row has
 * its value row's cadence. In a few runs once a fields_clear has seen t. */
void fields_copy_cadence(void *dst, const void *src, const struct field_desc *t, size_t n,
                         enum field_cadence c);

/* Whether field d of the struct at base is missing, as fields_clear leaves it: every
 * element NAN (FK_DOUBLE), "" (FK_STRING), its flag false (FK_VALIDATED), all bytes
 * zero (FK_ZERO, FK_VALID), every field of every element but FK_KEEP ones (FK_STRUCT).
 * FK_KEEP fields are never missing; an FK_NONE row (no member) always is. */
bool field_missing(const void *base, const struct field_desc *d);

#endif
