/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write WriteRequest encoder. See rw_proto.h.
 *
 * Wire format, from Prometheus's prompb/remote.proto and prompb/types.proto (v2.42;
 * remote-write 1.0 spec, https://prometheus.io/docs/concepts/remote_write_spec/):
 *   WriteRequest { repeated TimeSeries timeseries = 1; }
 *   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 *   Label        { string name = 1; string value = 2; }
 *   Sample       { double value = 1; int64 timestamp = 2; }   (timestamp in ms)
 * Protobuf encoding (protobuf.dev/programming-guides/encoding): a key is
 * (field << 3 | wire type), wire type 0 varint, 1 fixed 64-bit little-endian, 2 length
 * then bytes; an int64 is the varint of its two's complement. */
#include "push/rw_proto.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

#define MAX_LABELS     48   /* labels of one series, extra ones included */
#define MAX_KEY_LEN    4096 /* "name{labels}" of one series */
#define SAMPLES_INIT   8
#define KEY_LABELS     1 /* TimeSeries.labels, Label.name, WriteRequest.timeseries */
#define KEY_SAMPLES    2 /* TimeSeries.samples, Label.value */
#define WT_VARINT      0
#define WT_FIXED64     1
#define WT_LEN         2
#define TAG(field, wt) ((uint8_t)((field) << 3 | (wt)))

struct rw_sample {
        double v;
        int64_t ts_ms;
};

struct rw_series {
        uint64_t hash;
        size_t nsamples, cap;
        struct rw_sample *samples;
        size_t keylen;
        char key[]; /* name{labels}, as the exposition wrote it */
};

/* FNV-1a: spreads the keys, which share long prefixes. */
static uint64_t key_hash(const char *s, size_t n)
{
        uint64_t h = 1469598103934665603ULL;
        for (size_t i = 0; i < n; i++)
                h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
        return h;
}

int rw_enc_init(struct rw_encoder *e, const struct rw_label *extra, size_t nextra)
{
        memset(e, 0, sizeof(*e));
        e->extra = extra;
        e->nextra = nextra;
        e->nslots = 1024;
        e->slots = calloc(e->nslots, sizeof(*e->slots));
        e->order = calloc(e->nslots / 2, sizeof(*e->order));
        if (!e->slots || !e->order) {
                rw_enc_free(e);
                return -ENOMEM;
        }
        return 0;
}

void rw_enc_free(struct rw_encoder *e)
{
        for (size_t i = 0; e->order && i < e->nseries; i++) {
                free(e->order[i]->samples);
                free(e->order[i]);
        }
        free(e->slots);
        free(e->order);
        memset(e, 0, sizeof(*e));
}

/* Double the table (kept at most half full) and the order array. */
static int grow(struct rw_encoder *e)
{
        size_t n = e->nslots * 2;
        struct rw_series **slots = calloc(n, sizeof(*slots));
        struct rw_series **order = realloc(e->order, n / 2 * sizeof(*order));
        if (!slots || !order) {
                free(slots);
                if (order)
                        e->order = order;
                return -ENOMEM;
        }
        e->order = order;
        for (size_t i = 0; i < e->nseries; i++) {
                size_t j = order[i]->hash & (n - 1);
                while (slots[j])
                        j = (j + 1) & (n - 1);
                slots[j] = order[i];
        }
        free(e->slots);
        e->slots = slots;
        e->nslots = n;
        return 0;
}

static struct rw_series *find_or_add(struct rw_encoder *e, const char *key, size_t n, int *ret_err)
{
        uint64_t h = key_hash(key, n);
        size_t j = h & (e->nslots - 1);
        for (; e->slots[j]; j = (j + 1) & (e->nslots - 1)) {
                struct rw_series *s = e->slots[j];
                if (s->hash == h && s->keylen == n && !memcmp(s->key, key, n))
                        return s;
        }
        if (e->nseries >= RW_MAX_SERIES) {
                *ret_err = -E2BIG;
                return NULL;
        }
        if (e->nseries * 2 >= e->nslots) {
                /* A failed growth earlier: the table must keep free slots. */
                *ret_err = -ENOMEM;
                return NULL;
        }
        struct rw_series *s = calloc(1, sizeof(*s) + n + 1);
        if (!s) {
                *ret_err = -ENOMEM;
                return NULL;
        }
        s->hash = h;
        s->keylen = n;
        memcpy(s->key, key, n);
        e->slots[j] = s;
        e->order[e->nseries++] = s;
        if (e->nseries * 2 >= e->nslots)
                (void)grow(e); /* on failure the next new series gets -ENOMEM */
        return s;
}

size_t rw_series_key_len(const char *line, size_t n)
{
        size_t i = 0;
        while (i < n && line[i] != '{' && line[i] != ' ')
                i++;
        if (i == 0 || i == n || line[i] == ' ')
                return i < n ? i : 0;
        bool quoted = false;
        for (i++; i < n; i++) {
                if (quoted && line[i] == '\\')
                        i++;
                else if (line[i] == '"')
                        quoted = !quoted;
                else if (!quoted && line[i] == '}')
                        return i + 1 < n && line[i + 1] == ' ' ? i + 1 : 0;
        }
        return 0;
}

int rw_enc_add_sample(struct rw_encoder *e, const char *key, size_t keylen, double v, int64_t ts_ms)
{
        int err = 0;
        if (keylen == 0 || keylen > MAX_KEY_LEN)
                return -EINVAL;
        struct rw_series *s = find_or_add(e, key, keylen, &err);
        if (!s)
                return err;
        /* A series twice in one frame (two sensors of one name): the receiver would
         * refuse the whole request ("duplicate sample for timestamp"); keep the first. */
        if (s->nsamples && s->samples[s->nsamples - 1].ts_ms == ts_ms)
                return 0;
        if (s->nsamples == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : SAMPLES_INIT;
                struct rw_sample *ns = realloc(s->samples, cap * sizeof(*ns));
                if (!ns)
                        return -ENOMEM;
                s->samples = ns;
                s->cap = cap;
        }
        s->samples[s->nsamples++] = (struct rw_sample){v, ts_ms};
        e->nsamples++;
        return 0;
}

/* One exposition sample line of an older queue: its key, then its value as text. */
static int add_line(struct rw_encoder *e, const char *line, size_t n, int64_t ts_ms)
{
        size_t k = rw_series_key_len(line, n);
        double v;
        if (k == 0 || k > MAX_KEY_LEN)
                return -EINVAL;
        struct cursor c = cur_make(line + k, n - k);
        cur_skip_blank(&c);
        const char *w;
        size_t wl;
        if (cur_word(&c, &w, &wl) < 0)
                return -EINVAL;
        if (wl == 4 && !memcmp(w, "+Inf", 4))
                v = INFINITY;
        else if (wl == 4 && !memcmp(w, "-Inf", 4))
                v = -INFINITY;
        else if (wl == 3 && !memcmp(w, "NaN", 3))
                v = NAN;
        else if (wl == sizeof(RW_STALE_TOKEN) - 1 && !memcmp(w, RW_STALE_TOKEN, wl))
                memcpy(&v, &(uint64_t){RW_STALE_NAN_BITS}, sizeof(v));
        else if (parse_double(w, wl, &v) < 0)
                return -EINVAL;
        return rw_enc_add_sample(e, line, k, v, ts_ms);
}

int rw_enc_add_text(struct rw_encoder *e, const char *text, size_t len, int64_t ts_ms)
{
        size_t pos = 0;
        while (pos < len) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                if (n && text[pos] != '#') {
                        int r = add_line(e, text + pos, n, ts_ms);
                        if (r < 0)
                                return r;
                }
                pos += n + 1;
        }
        return 0;
}

/* ---- encoding ---- */

struct obuf {
        uint8_t *b;
        size_t len, cap;
        bool failed;
};

static void ob_reserve(struct obuf *o, size_t n)
{
        if (o->failed || o->len + n <= o->cap)
                return;
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
                cap *= 2;
        uint8_t *nb = realloc(o->b, cap);
        if (!nb) {
                o->failed = true;
                return;
        }
        o->b = nb;
        o->cap = cap;
}

static void ob_put(struct obuf *o, const void *p, size_t n)
{
        ob_reserve(o, n);
        if (o->failed)
                return;
        memcpy(o->b + o->len, p, n);
        o->len += n;
}

static size_t varint_len(uint64_t v)
{
        size_t n = 1;
        while (v >= 0x80) {
                v >>= 7;
                n++;
        }
        return n;
}

static void ob_varint(struct obuf *o, uint64_t v)
{
        uint8_t b[10];
        size_t n = 0;
        while (v >= 0x80) {
                b[n++] = (uint8_t)(v | 0x80);
                v >>= 7;
        }
        b[n++] = (uint8_t)v;
        ob_put(o, b, n);
}

static void ob_bytes(struct obuf *o, uint8_t tag, const char *s, size_t n)
{
        ob_put(o, &tag, 1);
        ob_varint(o, n);
        ob_put(o, s, n);
}

/* A label as slices: the name in the key or an extra label, the value unescaped into
 * the caller's scratch. */
struct lab {
        const char *name, *value;
        size_t nl, vl;
};

static size_t label_msg_len(const struct lab *l)
{
        return 1 + varint_len(l->nl) + l->nl + 1 + varint_len(l->vl) + l->vl;
}

static size_t sample_msg_len(const struct rw_sample *s)
{
        return 1 + 8 + 1 + varint_len((uint64_t)s->ts_ms);
}

/* Split key "name{a=\"x\",b=\"y\"}" into labels (values unescaped into scratch, which
 * has room for the key's length). Returns the count or -EINVAL. */
static int parse_key(const struct rw_series *s, struct lab *labs, char *scratch)
{
        const char *k = s->key, *end = s->key + s->keylen;
        const char *p = memchr(k, '{', s->keylen);
        int n = 0;
        labs[n++] = (struct lab){"__name__", k, 8, (size_t)((p ? p : end) - k)};
        if (!p)
                return n;
        for (p++; p < end && *p != '}';) {
                const char *ln = p;
                while (p < end && *p != '=')
                        p++;
                if (p + 1 >= end || p[1] != '"' || p == ln || n >= MAX_LABELS)
                        return -EINVAL;
                labs[n] = (struct lab){ln, scratch, (size_t)(p - ln), 0};
                for (p += 2; p < end && *p != '"'; p++) {
                        char ch = *p;
                        if (ch == '\\' && p + 1 < end) {
                                ch = *++p;
                                ch = ch == 'n' ? '\n' : ch;
                        }
                        *scratch++ = ch;
                }
                if (p >= end)
                        return -EINVAL;
                labs[n].vl = (size_t)(scratch - labs[n].value);
                n++;
                p++;
                if (p < end && *p == ',')
                        p++;
        }
        return n;
}

static int lab_cmp(const struct lab *a, const struct lab *b)
{
        size_t n = a->nl < b->nl ? a->nl : b->nl;
        int c = memcmp(a->name, b->name, n);
        return c ? c : (a->nl > b->nl) - (a->nl < b->nl);
}

/* The series' labels with the extra ones merged in, sorted by name. */
static int series_labels(const struct rw_encoder *e, const struct rw_series *s, struct lab *labs,
                         char *scratch)
{
        int n = parse_key(s, labs, scratch);
        if (n < 0)
                return n;
        int own = n;
        for (size_t i = 0; i < e->nextra; i++) {
                struct lab x = {e->extra[i].name, e->extra[i].value, strlen(e->extra[i].name),
                                strlen(e->extra[i].value)};
                bool clash = false;
                for (int j = 0; j < own && !clash; j++)
                        clash = lab_cmp(&labs[j], &x) == 0;
                if (clash)
                        continue;
                if (n >= MAX_LABELS)
                        return -EINVAL;
                labs[n++] = x;
        }
        for (int i = 1; i < n; i++) {
                struct lab t = labs[i];
                int j = i;
                for (; j > 0 && lab_cmp(&labs[j - 1], &t) > 0; j--)
                        labs[j] = labs[j - 1];
                labs[j] = t;
        }
        return n;
}

static void put_series(struct obuf *o, const struct rw_series *s, const struct lab *labs, int n)
{
        size_t body = 0;
        for (int i = 0; i < n; i++) {
                size_t m = label_msg_len(&labs[i]);
                body += 1 + varint_len(m) + m;
        }
        for (size_t i = 0; i < s->nsamples; i++) {
                size_t m = sample_msg_len(&s->samples[i]);
                body += 1 + varint_len(m) + m;
        }
        uint8_t tag = TAG(KEY_LABELS, WT_LEN);
        ob_put(o, &tag, 1);
        ob_varint(o, body);
        for (int i = 0; i < n; i++) {
                tag = TAG(KEY_LABELS, WT_LEN);
                ob_put(o, &tag, 1);
                ob_varint(o, label_msg_len(&labs[i]));
                ob_bytes(o, TAG(KEY_LABELS, WT_LEN), labs[i].name, labs[i].nl);
                ob_bytes(o, TAG(KEY_SAMPLES, WT_LEN), labs[i].value, labs[i].vl);
        }
        for (size_t i = 0; i < s->nsamples; i++) {
                const struct rw_sample *sm = &s->samples[i];
                uint8_t b[10];
                uint64_t bits;
                memcpy(&bits, &sm->v, 8);
                for (int j = 0; j < 8; j++)
                        b[j] = (uint8_t)(bits >> (8 * j));
                tag = TAG(KEY_SAMPLES, WT_LEN);
                ob_put(o, &tag, 1);
                ob_varint(o, sample_msg_len(sm));
                tag = TAG(1, WT_FIXED64);
                ob_put(o, &tag, 1);
                ob_put(o, b, 8);
                tag = TAG(2, WT_VARINT);
                ob_put(o, &tag, 1);
                ob_varint(o, (uint64_t)sm->ts_ms);
        }
}

int rw_enc_finish(struct rw_encoder *e, uint8_t **ret_buf, size_t *ret_len)
{
        struct obuf o = {0};
        struct lab labs[MAX_LABELS];
        char scratch[MAX_KEY_LEN];
        ob_reserve(&o, e->nsamples * 24 + e->nseries * 128 + 16);
        for (size_t i = 0; i < e->nseries && !o.failed; i++) {
                int n = series_labels(e, e->order[i], labs, scratch);
                if (n < 0) {
                        free(o.b);
                        return n;
                }
                put_series(&o, e->order[i], labs, n);
        }
        if (o.failed) {
                free(o.b);
                return -ENOMEM;
        }
        *ret_buf = o.b ? o.b : malloc(1);
        *ret_len = o.len;
        return *ret_buf ? 0 : -ENOMEM;
}
