/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded text parsing: a cursor over a byte range that never reads past its end.
 * Every parser in vigil is built from these; none uses sscanf, atoi or strtok. */
#ifndef VIGIL_UTIL_PARSE_H
#define VIGIL_UTIL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cursor {
        const char *p;
        const char *end;
};

/* A cursor over s[0..n). s need not be NUL-terminated. */
struct cursor cur_make(const char *s, size_t n);
/* A cursor over a NUL-terminated string. */
struct cursor cur_str(const char *s);

/* The value of one hexadecimal digit (either case), or -1. */
int parse_hex_digit(char ch);

bool cur_eof(const struct cursor *c);
/* Skip spaces and tabs (not newlines). */
void cur_skip_blank(struct cursor *c);
/* Skip spaces, tabs and newlines. */
void cur_skip_space(struct cursor *c);
/* Move past the next '\n'; false when there is none (cursor then at end). */
bool cur_next_line(struct cursor *c);
/* Consume lit if the input starts with it; false (cursor unchanged) otherwise. */
bool cur_lit(struct cursor *c, const char *lit);
/* Move c past prefix at the start of the first line, from c on, that begins with it
 * (a line starts at c or after a '\n'); false, c unchanged, when none does. A search of
 * the bytes (memmem), not a walk of the lines: for one key of a long file. */
bool cur_find_line(struct cursor *c, const char *prefix);
/* Skip blanks, then parse an unsigned decimal. 0, -EINVAL (no digits) or -ERANGE.
 * *ret is untouched on failure. */
int cur_u64(struct cursor *c, uint64_t *ret);
/* Same, with an optional leading '-'. */
int cur_i64(struct cursor *c, int64_t *ret);
/* Skip blanks, then parse hexadecimal with an optional 0x prefix. */
int cur_hex(struct cursor *c, uint64_t *ret);
/* Skip blanks, then parse a finite decimal floating-point number (at most 63 chars). */
int cur_double(struct cursor *c, double *ret);
/* Skip blanks, then take a token up to the next blank or newline. -EINVAL if empty. */
int cur_word(struct cursor *c, const char **ret_start, size_t *ret_len);
/* The rest of the current line, without its '\n'; the cursor moves past the '\n'. */
void cur_line(struct cursor *c, const char **ret_start, size_t *ret_len);

/* Whole-string parsers: the value may be followed only by whitespace.
 * 0 or -EINVAL/-ERANGE; *ret untouched on failure. */
int parse_u64(const char *s, size_t n, uint64_t *ret);
int parse_i64(const char *s, size_t n, int64_t *ret);
int parse_double(const char *s, size_t n, double *ret);
/* A boolean as config files write it: 1/0, yes/no, true/false, on/off. */
int parse_bool(const char *s, bool *ret);
/* A duration: a number with an optional unit ms, s, m, h, d (default seconds).
 * Result in nanoseconds; must be > 0 and at most 30 days. */
int parse_duration_ns(const char *s, int64_t *ret);

/* Copy at most cap-1 bytes of s[0..n) into out and NUL-terminate. Returns the bytes copied. */
size_t copy_bounded(char *out, size_t cap, const char *s, size_t n);

#endif
