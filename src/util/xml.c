/* SPDX-License-Identifier: Apache-2.0 */
/* XML/HTML text escaping. See xml.h. */
#include "util/xml.h"

#include <stdint.h>
#include <string.h>

#define REPLACEMENT_CHAR "\xEF\xBF\xBD"

/* Length of the valid UTF-8 sequence at s[0..n) (2..4), or 0 when it is not one. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
        unsigned char c = s[0];
        size_t len;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
                len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
                len = 3;
                if (c == 0xE0)
                        lo = 0xA0; /* no overlong forms */
                if (c == 0xED)
                        hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
                len = 4;
                if (c == 0xF0)
                        lo = 0x90;
                if (c == 0xF4)
                        hi = 0x8F; /* nothing above U+10FFFF */
        } else {
                return 0;
        }
        if (n < len || s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < len; i++) {
                if (s[i] < 0x80 || s[i] > 0xBF)
                        return 0;
        }
        return len;
}

static const char *entity(unsigned char c)
{
        switch (c) {
        case '&':
                return "&amp;";
        case '<':
                return "&lt;";
        case '>':
                return "&gt;";
        case '"':
                return "&quot;";
        case '\'':
                return "&#39;";
        default:
                return NULL;
        }
}

void sb_xml_escape(struct strbuf *sb, const char *s, size_t n)
{
        const unsigned char *p = (const unsigned char *)s;
        size_t run = 0; /* bytes at p[i - run .. i) that need no change */
        size_t i = 0;
        while (i < n) {
                unsigned char c = p[i];
                if (c >= 0x20 && c < 0x7F && !entity(c)) {
                        run++;
                        i++;
                        continue;
                }
                if (c >= 0x80) {
                        size_t len = utf8_seq_len(p + i, n - i);
                        if (len) {
                                run += len;
                                i += len;
                                continue;
                        }
                }
                sb_put(sb, (const char *)p + i - run, run);
                run = 0;
                if (entity(c))
                        sb_puts(sb, entity(c));
                else if (c == '\t' || c == '\n' || c == '\r')
                        sb_putc(sb, (char)c);
                else if (c < 0x20 || c == 0x7F)
                        sb_putc(sb, '?');
                else
                        sb_puts(sb, REPLACEMENT_CHAR);
                i++;
        }
        sb_put(sb, (const char *)p + i - run, run);
}

void sb_xml_puts(struct strbuf *sb, const char *s)
{
        if (s)
                sb_xml_escape(sb, s, strlen(s));
}
