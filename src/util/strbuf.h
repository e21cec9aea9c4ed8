/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded string builder: appends never overflow; past the bound the builder
 * records overflow and drops the rest, so callers check once at the end. */
#ifndef VIGIL_UTIL_STRBUF_H
#define VIGIL_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
        char *buf; /* always NUL-terminated */
        size_t len;
        size_t cap;    /* bytes allocated */
        size_t max;    /* growth bound (heap) or cap (fixed) */
        bool heap;     /* buf is owned and may grow up to max */
        bool overflow; /* something was dropped */
};

/* A builder over caller storage of cap bytes (cap >= 1). */
void sb_init_fixed(struct strbuf *sb, char *storage, size_t cap);
/* A growing builder owning its memory, bounded by max bytes. 0 or -ENOMEM. */
int sb_init_heap(struct strbuf *sb, size_t initial, size_t max);
void sb_free(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_putc(struct strbuf *sb, char ch);
void sb_put(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s[0..n) with its control bytes (below 0x20, and 0x7f: NUL, escape sequences,
 * carriage returns of a binary or damaged log) written as \xNN, as the kernel writes
 * them to /dev/kmsg; '\n' is kept when newlines is true. Other bytes as they are. */
void sb_put_printable(struct strbuf *sb, const char *s, size_t n, bool newlines);
/* Append sep (none when '\0': a CSV writer's ',') then "%.*f" of v with decimals 0..3:
 * the bytes printf writes, by numfmt_fixed (util/numfmt.h) where it can, by printf
 * where it declines (infinities, |v| >= 2^64). One append, for the rows' hot paths. */
void sb_fixed(struct strbuf *sb, char sep, double v, int decimals);
/* Append a CSV cell: quoted (RFC 4180, as Python's csv module does) when it holds
 * a comma, quote, CR or LF. */
void sb_csv_cell(struct strbuf *sb, const char *s);

#endif
