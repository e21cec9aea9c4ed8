/* SPDX-License-Identifier: Apache-2.0 */
/* Xid kernel log lines. See xid_line.h. Parses
 *   NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 31, pid=4242, name=python3, Ch 00000008, intr 0. MMU Fault
 */
#include "collect/xid_line.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/parse.h"

static bool is_busid_char(char ch)
{
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F') ||
               ch == ':' || ch == '.';
}

static bool is_blank(char ch)
{
        return ch == ' ' || ch == '\t';
}

/* Copy s[0..n) without leading and trailing blanks. */
static void copy_trimmed(char *out, size_t cap, const char *s, size_t n)
{
        while (n > 0 && is_blank(*s)) {
                s++;
                n--;
        }
        while (n > 0 && (is_blank(s[n - 1]) || s[n - 1] == '\r'))
                n--;
        copy_bounded(out, cap, s, n);
}

/* ".*?: ([0-9]+),": the first ':' followed by blanks, digits and ','. On success the
 * cursor is after the ','. */
static int find_code(struct cursor *c, unsigned *ret)
{
        for (const char *p = c->p; p < c->end; p++) {
                if (*p != ':')
                        continue;
                struct cursor t = cur_make(p + 1, (size_t)(c->end - p - 1));
                if (t.p >= t.end || !is_blank(*t.p))
                        continue;
                uint64_t v;
                if (cur_u64(&t, &v) < 0 || !cur_lit(&t, ","))
                        continue;
                if (v > 0xffffffffu)
                        return -EINVAL;
                *ret = (unsigned)v;
                c->p = t.p;
                return 0;
        }
        return -EINVAL;
}

/* "KEY=value," at the cursor: the value, and the cursor after the ','. */
static bool take_field(struct cursor *c, const char *key, const char **ret_v, size_t *ret_n)
{
        struct cursor t = *c;
        cur_skip_blank(&t);
        if (!cur_lit(&t, key))
                return false;
        const char *comma = memchr(t.p, ',', (size_t)(t.end - t.p));
        if (!comma)
                return false;
        *ret_v = t.p;
        *ret_n = (size_t)(comma - t.p);
        c->p = comma + 1;
        return true;
}

int xid_parse_line(const char *s, size_t n, struct xid_line *ret)
{
        static const char tag[] = "NVRM: Xid (";
        struct xid_line x;
        const char *m = memmem(s, n, tag, sizeof(tag) - 1);
        if (!m)
                return -EINVAL;
        const char *nl = memchr(m, '\n', (size_t)(s + n - m));
        struct cursor c =
            cur_make(m + sizeof(tag) - 1, (size_t)((nl ? nl : s + n) - m) - (sizeof(tag) - 1));
        memset(&x, 0, sizeof(x));
        x.pid = -1;
        cur_lit(&c, "PCI:");
        const char *id = c.p;
        while (c.p < c.end && is_busid_char(*c.p))
                c.p++;
        const char *close = memchr(c.p, ')', (size_t)(c.end - c.p));
        if (c.p == id || (size_t)(c.p - id) >= sizeof(x.pci) || !close)
                return -EINVAL;
        copy_bounded(x.pci, sizeof(x.pci), id, (size_t)(c.p - id));
        copy_trimmed(x.instance, sizeof(x.instance), c.p, (size_t)(close - c.p));
        c.p = close + 1;
        if (find_code(&c, &x.code) < 0)
                return -EINVAL;
        const char *v;
        size_t vn;
        if (take_field(&c, "pid=", &v, &vn)) {
                uint64_t pid;
                if (parse_u64(v, vn, &pid) == 0 && pid <= INT64_MAX)
                        x.pid = (int64_t)pid;
        }
        if (take_field(&c, "name=", &v, &vn))
                copy_trimmed(x.name, sizeof(x.name), v, vn);
        copy_trimmed(x.message, sizeof(x.message), c.p, (size_t)(c.end - c.p));
        *ret = x;
        return 0;
}
