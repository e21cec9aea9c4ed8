/* SPDX-License-Identifier: Apache-2.0 */
/* The YAML subset reader. See conf_yaml.h.
 *
 * Line by line. The open mappings are a stack of indents: level 0 is the top (indent
 * 0), and each OPEN whose next line of content is indented deeper pushes that indent.
 * A line indented less pops back to the level of its indent (which must be one on the
 * stack), closing each mapping it leaves. The scalar rules are YAML 1.2's, section
 * 7.3 (quoted) and 7.3.3 (plain), cut down: a plain scalar may not start with an
 * indicator ("-?:,[]{}&*!|>'\"%@`") nor hold ": ", a " #" ends it (so "key:  # note"
 * opens a mapping), and a double-quoted one knows only the \" and \\ escapes. */
#include "util/conf_yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct level {
        unsigned indent;
        unsigned line;                   /* of the key that opened it */
        char key[CONF_YAML_MAX_KEY + 1]; /* "" at the top */
};

struct conf_yaml {
        conf_yaml_fn fn;
        void *arg;
        char *err;
        size_t cap;
        unsigned line;
        bool seen_content;
        unsigned depth;    /* levels[0..depth] are open */
        bool pending;      /* an OPEN whose mapping has no line yet */
        struct level pend; /* that OPEN's key, line and indent */
        struct level levels[CONF_YAML_MAX_DEPTH];
};

int conf_yaml_fail(struct conf_yaml *y, unsigned line, const char *fmt, ...)
{
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (y->cap)
                snprintf(y->err, y->cap, "line %u: %s", line, msg);
        return -EINVAL;
}

/* A failure at the line being read. */
#define FAIL(y, ...) conf_yaml_fail((y), (y)->line, __VA_ARGS__)

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* A plain scalar (or key) must not start with an indicator this reader does not handle. */
static bool plain_start_ok(char c)
{
        return !strchr("-?:,[]{}#&*!|>'\"%@`", c);
}

static int emit(struct conf_yaml *y, enum conf_yaml_event ev, unsigned line, unsigned depth,
                const char *key, const char *value)
{
        struct conf_yaml_item it = {
            .event = ev,
            .line = line,
            .depth = depth,
            .key = key,
            .value = value,
            .parent = depth ? y->levels[depth].key : NULL,
        };
        return y->fn(y, &it, y->arg);
}

/* The scalar at s[0..n) (leading blanks skipped) into out (cap bytes): plain (up to a
 * " #" comment), 'single' or "double" quoted. */
static int scalar(struct conf_yaml *y, const char *s, size_t n, char *out, size_t cap)
{
        size_t o = 0, i = 0;
        if (n && (s[0] == '"' || s[0] == '\'')) {
                char q = s[0];
                for (i = 1;; i++) {
                        if (i >= n)
                                return FAIL(y, "unterminated quoted value");
                        char c = s[i];
                        if (q == '\'' && c == '\'' && i + 1 < n && s[i + 1] == '\'')
                                i++;
                        else if (c == q)
                                break;
                        else if (q == '"' && c == '\\') {
                                if (i + 1 >= n || (s[i + 1] != '"' && s[i + 1] != '\\'))
                                        return FAIL(y, "unsupported escape in quoted value");
                                i++;
                        }
                        if (o + 1 >= cap)
                                return FAIL(y, "value too long (at most %zu bytes)", cap - 1);
                        out[o++] = s[i];
                }
                for (i++; i < n && is_blank(s[i]); i++)
                        ;
                if (i < n && s[i] != '#')
                        return FAIL(y, "unexpected text after the quoted value");
                out[o] = '\0';
                return 0;
        }
        if (n && s[0] == '#') { /* after ": ", a comment: no value */
                out[0] = '\0';
                return 0;
        }
        if (n && !plain_start_ok(s[0]))
                return FAIL(y, "unsupported YAML syntax '%c' (write a plain or quoted value)",
                            s[0]);
        for (i = 0; i < n; i++) {
                if (s[i] == '#' && i > 0 && is_blank(s[i - 1]))
                        break;
                if (s[i] == ':' && (i + 1 == n || is_blank(s[i + 1])))
                        return FAIL(y, "unexpected ': ' in a value (quote it)");
        }
        while (i > 0 && is_blank(s[i - 1]))
                i--;
        if (i >= cap)
                return FAIL(y, "value too long (at most %zu bytes)", cap - 1);
        memcpy(out, s, i);
        out[i] = '\0';
        return 0;
}

/* Split "key: rest" at s[0..n) into key (a plain scalar) and where the rest starts,
 * after ':' and blanks. */
static int split_key(struct conf_yaml *y, const char *s, size_t n, char *key, size_t *ret_rest)
{
        size_t i;
        if (!plain_start_ok(s[0]))
                return FAIL(y, "unsupported YAML syntax '%c' (expected 'key: value')", s[0]);
        for (i = 0; i < n; i++) {
                if (s[i] == ':' && (i + 1 == n || is_blank(s[i + 1])))
                        break;
                if (is_blank(s[i]) || s[i] == '#')
                        return FAIL(y, "expected 'key: value'");
        }
        if (i == n)
                return FAIL(y, "expected 'key: value'");
        if (i > CONF_YAML_MAX_KEY)
                return FAIL(y, "key too long (at most %d bytes)", CONF_YAML_MAX_KEY);
        memcpy(key, s, i);
        key[i] = '\0';
        for (i++; i < n && is_blank(s[i]); i++)
                ;
        *ret_rest = i;
        return 0;
}

/* The pending OPEN's mapping is empty: close it. */
static int close_pending(struct conf_yaml *y)
{
        if (!y->pending)
                return 0;
        y->pending = false;
        return emit(y, CONF_YAML_CLOSE, y->pend.line, y->depth, y->pend.key, "");
}

/* Close the open mappings down to the level of indent (which must be one of them). */
static int dedent(struct conf_yaml *y, unsigned indent)
{
        unsigned d = y->depth;
        while (d > 0 && y->levels[d].indent > indent)
                d--;
        if (y->levels[d].indent != indent)
                return FAIL(y, "inconsistent indentation");
        while (y->depth > d) {
                const struct level *l = &y->levels[y->depth];
                y->depth--;
                int r = emit(y, CONF_YAML_CLOSE, l->line, y->depth, l->key, "");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Place a line of content indented by indent: under the pending OPEN, at the level open
 * now, or back at an outer one. */
static int place(struct conf_yaml *y, unsigned indent)
{
        unsigned cur = y->levels[y->depth].indent;
        if (indent > cur && y->pending) {
                if (y->depth + 1 >= CONF_YAML_MAX_DEPTH)
                        return FAIL(y, "nested too deep (at most %d levels)", CONF_YAML_MAX_DEPTH);
                y->pending = false;
                y->levels[++y->depth] = y->pend;
                y->levels[y->depth].indent = indent;
                return 0;
        }
        if (indent > cur)
                return FAIL(y, y->depth ? "inconsistent indentation" : "unexpected indentation");
        int r = close_pending(y);
        return r < 0 ? r : dedent(y, indent);
}

static int one_line(struct conf_yaml *y, const char *s, size_t n)
{
        char key[CONF_YAML_MAX_KEY + 1], val[CONF_YAML_MAX_LINE + 1];
        unsigned indent = 0;
        size_t at = 0;
        int r;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
                n--;
        while (indent < n && s[indent] == ' ')
                indent++;
        if (indent == n || s[indent] == '#')
                return 0;
        if (s[indent] == '\t')
                return FAIL(y, "tab in indentation (use spaces)");
        if (n > CONF_YAML_MAX_LINE)
                return FAIL(y, "line too long (at most %d bytes)", CONF_YAML_MAX_LINE);
        for (size_t i = indent; i < n; i++)
                if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
                        return FAIL(y, "control character in line");
        if ((r = place(y, indent)) < 0)
                return r;
        bool first = !y->seen_content;
        y->seen_content = true;
        if (first && indent == 0 && n == 3 && !memcmp(s, "---", 3))
                return 0; /* the document's start marker */
        s += indent;
        n -= indent;
        if ((r = split_key(y, s, n, key, &at)) < 0 ||
            (r = scalar(y, s + at, n - at, val, sizeof(val))) < 0)
                return r;
        if (val[0])
                return emit(y, CONF_YAML_SCALAR, y->line, y->depth, key, val);
        y->pending = true;
        y->pend = (struct level){.indent = indent, .line = y->line};
        memcpy(y->pend.key, key, sizeof(key));
        return emit(y, CONF_YAML_OPEN, y->line, y->depth, key, "");
}

int conf_yaml_read(const char *text, size_t len, conf_yaml_fn fn, void *arg, char *err, size_t cap)
{
        struct conf_yaml y = {.fn = fn, .arg = arg, .err = err, .cap = cap};
        int r;
        if (cap)
                err[0] = '\0';
        if (memchr(text, '\0', len))
                return conf_yaml_fail(&y, 1, "NUL byte in file");
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                y.line++;
                if ((r = one_line(&y, text + pos, n)) < 0)
                        return r;
                pos += n + 1;
        }
        if ((r = close_pending(&y)) < 0 || (r = dedent(&y, 0)) < 0)
                return r;
        return emit(&y, CONF_YAML_END, y.line, 0, "", "");
}
