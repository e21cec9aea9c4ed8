/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem's read-back of the CSV logs (report/postmortem.h): the newest day of
 * every log (host, gpuN), when each went quiet, its rows of the last minute before the
 * end, a GPU's minimum and maximum over its last 10 s, a Pi's last throttled word.
 * Reads only a bounded tail of each file (PM_TAIL_BYTES); a torn last line (a row cut
 * by the crash) is left out and noted. Nothing here fails: a file that cannot be read
 * is one line of the section. */
#ifndef VIGIL_REPORT_PM_CSV_H
#define VIGIL_REPORT_PM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define PM_WINDOW_S   60.0              /* rows shown before the end */
#define PM_STATS_S    10.0              /* a GPU's min/max window */
#define PM_TAIL_BYTES (2 * 1024 * 1024) /* read from the end of each file */
#define PM_LAST_BYTES (64 * 1024)       /* read to find the last row */
#define PM_MAX_ROWS   600               /* rows shown per file (evenly thinned past it) */
#define PM_MAX_FILES  40                /* logs examined (host and 32 GPUs fit) */

struct pm_csv_file {
        char name[96];      /* "gpu0-2026-12-03.csv" */
        bool gpu;           /* a gpuN log (else the host's) */
        double last_t;      /* Unix seconds of the last whole row; NAN when none */
        bool torn;          /* the file ended in a partial row */
        char last_row[512]; /* the last whole row, cut to fit; "" when none */
};

/* The newest daily CSV (not compressed) of every log in dir, host first, then GPUs in
 * name order, with their last rows (pm_csv_last). Returns the number found (at most
 * max), or -errno when dir cannot be read. */
int pm_csv_find(const char *dir, struct pm_csv_file *files, unsigned max);
/* Fill f->last_t, f->torn and f->last_row from the end of dir/f->name. 0 or -errno. */
int pm_csv_last(const char *dir, struct pm_csv_file *f);
/* Append f's section: the rows of the PM_WINDOW_S seconds before its last row (header
 * first), then for a GPU the min/max of temperature, power, clocks and fans and the
 * throttle reasons seen in the last PM_STATS_S seconds, for a Pi host the last
 * throttled word, voltage and temperature. */
void pm_csv_section(struct strbuf *out, const char *dir, const struct pm_csv_file *f);

/* What the host log's rows of the last seconds before the end say of power and heat
 * (a Raspberry Pi's throttled word, the temperature). */
struct pm_pi_end {
        unsigned rows;           /* host rows in the window */
        unsigned undervolt_rows; /* of which with throttled bit 0, under-voltage now */
        unsigned softtemp_rows;  /* with bit 3, the soft temperature limit active */
        uint32_t throttled_or;   /* the words of the window ORed */
        double max_temp_c;       /* NAN when no row has a temperature */
};

/* Scan the host log f's rows of the window_s seconds before its last row into *ret.
 * 0, or -errno when the file cannot be read (*ret then empty). */
int pm_csv_pi_end(const char *dir, const struct pm_csv_file *f, double window_s,
                  struct pm_pi_end *ret);

/* Split one CSV line s[0..n) into at most max cells (quotes removed from a quoted
 * cell; vigil's cells hold no doubled quotes that matter here). Returns the count. */
unsigned pm_csv_split(const char *s, size_t n, const char **cell, size_t *len, unsigned max);

#endif
