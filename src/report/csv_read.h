/* SPDX-License-Identifier: Apache-2.0 */
/* A streaming CSV reader for vigil's own logs: RFC 4180 quoting as Python's csv
 * module writes it (doubled quotes, quoted commas and newlines, \r\n or \n line ends),
 * bounded line length and field count, large buffered reads, and transparent gzip
 * (a compressed old day reads like a plain one).
 *
 * Damage is skipped, never fatal: a record longer than CSV_MAX_LINE, with more than
 * CSV_MAX_FIELDS fields or holding a NUL byte is dropped and counted in `skipped`; a
 * last line without its newline (a torn write) is dropped and counted in `torn`. */
#ifndef VIGIL_REPORT_CSV_READ_H
#define VIGIL_REPORT_CSV_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/zlib_lib.h"

#define CSV_MAX_LINE   65536
#define CSV_MAX_FIELDS 512
#define CSV_BUF_SIZE   (256 * 1024)

struct csv_field {
        const char *s; /* not NUL-terminated; valid until the next csv_reader_next() */
        size_t len;
};

struct csv_reader {
        void *gz;          /* the open file (a gzFile); NULL when reading memory */
        struct zlib_lib z; /* zlib, loaded while a file is open */
        const char *mem;   /* memory source */
        size_t mem_len, mem_pos;
        char *buf;         /* CSV_BUF_SIZE bytes */
        size_t start, end; /* unread bytes are buf[start..end) */
        size_t read_max;   /* bytes asked per refill (tests lower it to split lines) */
        bool eof;
        bool skipping; /* dropping the rest of an over-long line */
        unsigned nfields;
        struct csv_field f[CSV_MAX_FIELDS];
        uint64_t records; /* records returned */
        uint64_t skipped; /* damaged records dropped (callers may add their own) */
        uint64_t torn;    /* unterminated last lines dropped */
};

/* Open path for reading (plain or gzip). 0 or -errno; on failure nothing to close. */
int csv_reader_open(struct csv_reader *r, const char *path);
/* Read from data[0..n), which the caller keeps alive until csv_reader_close(). */
int csv_reader_mem(struct csv_reader *r, const char *data, size_t n);
/* The next record into r->f[0..r->nfields). 1: a record; 0: end of input; -EIO (or
 * another -errno) when reading failed. Blank lines are passed over. */
int csv_reader_next(struct csv_reader *r);
/* Release the reader (NULL-safe, idempotent). */
void csv_reader_close(struct csv_reader *r);

/* A cell as a number: NAN when it is empty or not entirely a finite decimal number.
 * Plain decimals of up to 15 significant digits take an exact fast path; anything
 * else goes through strtod. The result is the correctly rounded double either way. */
double csv_cell_double(const struct csv_field *f);
/* True when the cell equals the NUL-terminated string s. */
bool csv_cell_is(const struct csv_field *f, const char *s);

#endif
