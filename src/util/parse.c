/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded text parsing. See parse.h. */
#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/hot.h"

VIGIL_HOT struct cursor cur_make(const char *s, size_t n)
{
        struct cursor c = {s, s + n};
        return c;
}

struct cursor cur_str(const char *s)
{
        return cur_make(s, strlen(s));
}

VIGIL_HOT bool cur_eof(const struct cursor *c)
{
        return c->p >= c->end;
}

VIGIL_HOT void cur_skip_blank(struct cursor *c)
{
        while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
                c->p++;
}

VIGIL_HOT void cur_skip_space(struct cursor *c)
{
        while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
                c->p++;
}

VIGIL_HOT bool cur_next_line(struct cursor *c)
{
        const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
        if (!nl) {
                c->p = c->end;
                return false;
        }
        c->p = nl + 1;
        return true;
}

VIGIL_HOT bool cur_lit(struct cursor *c, const char *lit)
{
        size_t n = strlen(lit);
        if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
                return false;
        c->p += n;
        return true;
}

VIGIL_HOT bool cur_find_line(struct cursor *c, const char *prefix)
{
        size_t n = strlen(prefix);
        for (const char *p = c->p; p < c->end;) {
                const char *m = memmem(p, (size_t)(c->end - p), prefix, n);
                if (!m)
                        return false;
                if (m == c->p || m[-1] == '\n') {
                        c->p = m + n;
                        return true;
                }
                p = m + 1;
        }
        return false;
}

VIGIL_HOT int cur_u64(struct cursor *c, uint64_t *ret)
{
        cur_skip_blank(c);
        const char *p = c->p;
        uint64_t v = 0;
        if (p >= c->end || *p < '0' || *p > '9')
                return -EINVAL;
        for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
                unsigned d = (unsigned)(*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        c->p = p;
        *ret = v;
        return 0;
}

VIGIL_HOT int cur_i64(struct cursor *c, int64_t *ret)
{
        cur_skip_blank(c);
        struct cursor t = *c;
        bool neg = cur_lit(&t, "-");
        uint64_t u;
        int r = cur_u64(&t, &u);
        if (r < 0)
                return r;
        if (u > (uint64_t)INT64_MAX + (neg ? 1 : 0))
                return -ERANGE;
        *ret = neg ? (int64_t)(0 - u) : (int64_t)u;
        *c = t;
        return 0;
}

VIGIL_HOT int parse_hex_digit(char ch)
{
        if (ch >= '0' && ch <= '9')
                return ch - '0';
        if (ch >= 'a' && ch <= 'f')
                return ch - 'a' + 10;
        if (ch >= 'A' && ch <= 'F')
                return ch - 'A' + 10;
        return -1;
}

VIGIL_HOT int cur_hex(struct cursor *c, uint64_t *ret)
{
        cur_skip_blank(c);
        struct cursor t = *c;
        if (!cur_lit(&t, "0x"))
                cur_lit(&t, "0X");
        uint64_t v = 0;
        const char *start = t.p;
        for (; t.p < t.end && parse_hex_digit(*t.p) >= 0; t.p++) {
                if (v >> 60)
                        return -ERANGE;
                v = (v << 4) | (uint64_t)parse_hex_digit(*t.p);
        }
        if (t.p == start)
                return -EINVAL;
        *c = t;
        *ret = v;
        return 0;
}

VIGIL_HOT int cur_double(struct cursor *c, double *ret)
{
        char tmp[64];
        cur_skip_blank(c);
        size_t n = 0;
        const char *p = c->p;
        while (p + n < c->end && n < sizeof(tmp) - 1 && strchr("0123456789+-.eE", p[n]))
                n++;
        if (n == 0)
                return -EINVAL;
        memcpy(tmp, p, n);
        tmp[n] = '\0';
        char *endp;
        errno = 0;
        double v = strtod(tmp, &endp);
        if (endp == tmp)
                return -EINVAL;
        if (errno == ERANGE || !isfinite(v))
                return -ERANGE;
        c->p = p + (endp - tmp);
        *ret = v;
        return 0;
}

VIGIL_HOT int cur_word(struct cursor *c, const char **ret_start, size_t *ret_len)
{
        cur_skip_blank(c);
        const char *s = c->p;
        while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n')
                c->p++;
        if (c->p == s)
                return -EINVAL;
        *ret_start = s;
        *ret_len = (size_t)(c->p - s);
        return 0;
}

VIGIL_HOT void cur_line(struct cursor *c, const char **ret_start, size_t *ret_len)
{
        const char *s = c->p;
        const char *nl = memchr(s, '\n', (size_t)(c->end - s));
        const char *e = nl ? nl : c->end;
        *ret_start = s;
        *ret_len = (size_t)(e - s);
        c->p = nl ? nl + 1 : c->end;
}

static bool rest_is_space(struct cursor *c)
{
        cur_skip_space(c);
        return cur_eof(c);
}

VIGIL_HOT int parse_u64(const char *s, size_t n, uint64_t *ret)
{
        struct cursor c = cur_make(s, n);
        uint64_t v;
        cur_skip_space(&c);
        int r = cur_u64(&c, &v);
        if (r < 0)
                return r;
        if (!rest_is_space(&c))
                return -EINVAL;
        *ret = v;
        return 0;
}

VIGIL_HOT int parse_i64(const char *s, size_t n, int64_t *ret)
{
        struct cursor c = cur_make(s, n);
        int64_t v;
        cur_skip_space(&c);
        int r = cur_i64(&c, &v);
        if (r < 0)
                return r;
        if (!rest_is_space(&c))
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_double(const char *s, size_t n, double *ret)
{
        struct cursor c = cur_make(s, n);
        double v;
        cur_skip_space(&c);
        int r = cur_double(&c, &v);
        if (r < 0)
                return r;
        if (!rest_is_space(&c))
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_bool(const char *s, bool *ret)
{
        static const char *const yes[] = {"1", "yes", "true", "on"};
        static const char *const no[] = {"0", "no", "false", "off"};
        for (size_t i = 0; i < 4; i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

int parse_duration_ns(const char *s, int64_t *ret)
{
        struct cursor c = cur_str(s);
        double v;
        double scale = 1e9;
        cur_skip_space(&c);
        if (cur_double(&c, &v) < 0)
                return -EINVAL;
        if (cur_lit(&c, "ms"))
                scale = 1e6;
        else if (cur_lit(&c, "s"))
                scale = 1e9;
        else if (cur_lit(&c, "m"))
                scale = 60e9;
        else if (cur_lit(&c, "h"))
                scale = 3600e9;
        else if (cur_lit(&c, "d"))
                scale = 86400e9;
        if (!rest_is_space(&c))
                return -EINVAL;
        double ns = v * scale;
        if (!(ns >= 1.0) || ns > 30.0 * 86400e9)
                return -ERANGE;
        *ret = (int64_t)ns;
        return 0;
}

VIGIL_HOT size_t copy_bounded(char *out, size_t cap, const char *s, size_t n)
{
        if (cap == 0)
                return 0;
        if (n > cap - 1)
                n = cap - 1;
        memcpy(out, s, n);
        out[n] = '\0';
        return n;
}
