/* SPDX-License-Identifier: Apache-2.0 */
/* The exposition's line writer: a family's # HELP and # TYPE header before its first
 * sample, then one line per sample (or one visit call, for the push). The renderers
 * (metrics.c, metrics_counters.c, metrics_storage.c) say what to write; this writes it.
 * See metrics_render.h and metrics.h. */
#include <math.h>
#include <string.h>

#include "metrics/metrics.h"
#include "metrics/metrics_render.h"

void metrics_family(struct render *r, const char *name, const char *type, const char *help)
{
        r->name = name;
        r->type = type;
        r->help = help;
        r->header_done = false;
}

/* One output line, assembled on the stack and appended with one copy: a scrape writes
 * hundreds of short pieces, and this keeps each to a memcpy. */
struct line {
        char b[1024];
        size_t n;
        bool over;
};

static void lput(struct line *l, const char *s, size_t len)
{
        if (len > sizeof(l->b) - l->n) {
                l->over = true;
                return;
        }
        memcpy(l->b + l->n, s, len);
        l->n += len;
}

static void lputs(struct line *l, const char *s)
{
        lput(l, s, strlen(s));
}

/* A label value: as it is when it needs no escaping (the usual case), else escaped. */
static void lput_label(struct line *l, const char *s)
{
        size_t n = 0;
        while (s[n] >= 0x20 && s[n] < 0x7f && s[n] != '\\' && s[n] != '"')
                n++;
        if (!s[n]) {
                lput(l, s, n);
                return;
        }
        char tmp[512];
        struct strbuf sb;
        sb_init_fixed(&sb, tmp, sizeof(tmp));
        metrics_put_label_value(&sb, s);
        l->over |= sb.overflow;
        lput(l, tmp, sb.len);
}

static void flush_line(struct render *r, struct line *l)
{
        if (l->over)
                r->sb->overflow = true;
        else
                sb_put(r->sb, l->b, l->n);
}

/* The series key of p: name, then {base,key="val"} when it has labels. */
static void lput_key(struct line *l, const struct metric_point *p)
{
        lputs(l, p->name);
        bool has_base = p->base && p->base[0];
        if (!has_base && !p->key)
                return;
        lput(l, "{", 1);
        if (has_base)
                lputs(l, p->base);
        if (has_base && p->key)
                lput(l, ",", 1);
        if (p->key) {
                lputs(l, p->key);
                lput(l, "=\"", 2);
                lput_label(l, p->val);
                lput(l, "\"", 1);
        }
        lput(l, "}", 1);
}

size_t metrics_series_key(char *out, size_t cap, const struct metric_point *p)
{
        struct line l;
        l.n = 0;
        l.over = false;
        lput_key(&l, p);
        if (l.over || l.n > cap)
                return 0;
        memcpy(out, l.b, l.n);
        return l.n;
}

void metrics_sample(struct render *r, const char *base, const char *key, const char *val, double v)
{
        struct line l;
        if (isnan(v) || r->broken)
                return;
        struct metric_point p = {r->name, r->type, base, key, val, v};
        if (r->visit) {
                r->visit(r->arg, &p);
                return;
        }
        l.n = 0;
        l.over = false;
        if (!r->header_done) {
                lput(&l, "# HELP ", 7);
                lputs(&l, r->name);
                lput(&l, " ", 1);
                lputs(&l, r->help);
                lput(&l, "\n# TYPE ", 8);
                lputs(&l, r->name);
                lput(&l, " ", 1);
                lputs(&l, r->type);
                lput(&l, "\n", 1);
                r->header_done = true;
        }
        lput_key(&l, &p);
        char num[40];
        size_t nn = metrics_fmt_value(num, sizeof(num), v);
        lput(&l, " ", 1);
        lput(&l, num, nn);
        lput(&l, "\n", 1);
        flush_line(r, &l);
}
