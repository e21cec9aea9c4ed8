/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded string builder. See strbuf.h. */
#include "util/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/hot.h"

VIGIL_HOT void sb_init_fixed(struct strbuf *sb, char *storage, size_t cap)
{
        sb->buf = storage;
        sb->cap = cap;
        sb->max = cap;
        sb->len = 0;
        sb->heap = false;
        sb->overflow = false;
        if (cap)
                storage[0] = '\0';
}

int sb_init_heap(struct strbuf *sb, size_t initial, size_t max)
{
        if (initial < 16)
                initial = 16;
        if (max < initial)
                max = initial;
        sb->buf = malloc(initial);
        if (!sb->buf)
                return -ENOMEM;
        sb->buf[0] = '\0';
        sb->cap = initial;
        sb->max = max;
        sb->len = 0;
        sb->heap = true;
        sb->overflow = false;
        return 0;
}

void sb_free(struct strbuf *sb)
{
        if (sb && sb->heap) {
                free(sb->buf);
                sb->buf = NULL;
                sb->cap = sb->len = 0;
        }
}

void sb_reset(struct strbuf *sb)
{
        sb->len = 0;
        sb->overflow = false;
        if (sb->cap)
                sb->buf[0] = '\0';
}

/* Make room for n more bytes plus the NUL; false when the bound forbids it. */
static bool sb_room(struct strbuf *sb, size_t n)
{
        if (sb->len + n + 1 <= sb->cap)
                return true;
        if (!sb->heap || sb->len + n + 1 > sb->max)
                return false;
        size_t want = sb->cap * 2;
        while (want < sb->len + n + 1)
                want *= 2;
        if (want > sb->max)
                want = sb->max;
        char *nb = realloc(sb->buf, want);
        if (!nb)
                return false;
        sb->buf = nb;
        sb->cap = want;
        return true;
}

VIGIL_HOT void sb_put(struct strbuf *sb, const char *s, size_t n)
{
        if (!sb_room(sb, n)) {
                sb->overflow = true;
                return;
        }
        memcpy(sb->buf + sb->len, s, n);
        sb->len += n;
        sb->buf[sb->len] = '\0';
}

void sb_put_printable(struct strbuf *sb, const char *s, size_t n, bool newlines)
{
        static const char hex[] = "0123456789abcdef";
        size_t from = 0;
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)s[i];
                if ((ch >= 0x20 && ch != 0x7f) || (ch == '\n' && newlines))
                        continue;
                sb_put(sb, s + from, i - from);
                char esc[4] = {'\\', 'x', hex[ch >> 4], hex[ch & 15]};
                sb_put(sb, esc, 4);
                from = i + 1;
        }
        sb_put(sb, s + from, n - from);
}

VIGIL_HOT void sb_putc(struct strbuf *sb, char ch)
{
        sb_put(sb, &ch, 1);
}

VIGIL_HOT void sb_puts(struct strbuf *sb, const char *s)
{
        sb_put(sb, s, strlen(s));
}

VIGIL_HOT void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
        va_list ap;
        char small[256];
        va_start(ap, fmt);
        int n = vsnprintf(small, sizeof(small), fmt, ap);
        va_end(ap);
        if (n < 0) {
                sb->overflow = true;
                return;
        }
        if ((size_t)n < sizeof(small)) {
                sb_put(sb, small, (size_t)n);
                return;
        }
        if (!sb_room(sb, (size_t)n)) {
                sb->overflow = true;
                return;
        }
        va_start(ap, fmt);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb->len += (size_t)n;
}

VIGIL_HOT void sb_csv_cell(struct strbuf *sb, const char *s)
{
        if (!strpbrk(s, ",\"\r\n")) {
                sb_puts(sb, s);
                return;
        }
        sb_putc(sb, '"');
        for (; *s; s++) {
                if (*s == '"')
                        sb_putc(sb, '"');
                sb_putc(sb, *s);
        }
        sb_putc(sb, '"');
}

VIGIL_HOT void sb_fixed(struct strbuf *sb, char sep, double v, int decimals)
{
        char t[1 + NUMFMT_MAX];
        size_t lead = sep != '\0';
        /* Straight into the buffer when the longest number fits (a row's cells: no
         * copy through t). */
        if (sb->len + 1 + NUMFMT_MAX + 1 <= sb->cap) {
                char *p = sb->buf + sb->len;
                size_t n = numfmt_fixed(p + lead, v, decimals);
                if (n) {
                        if (lead)
                                p[0] = sep;
                        sb->len += lead + n;
                        sb->buf[sb->len] = '\0';
                        return;
                }
                *p = '\0';
        }
        t[0] = sep;
        size_t n = numfmt_fixed(t + lead, v, decimals);
        if (n)
                sb_put(sb, t, lead + n);
        else
                sb_printf(sb, "%.*s%.*f", (int)lead, t, decimals, v);
}
