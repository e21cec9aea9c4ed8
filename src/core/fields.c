/* SPDX-License-Identifier: Apache-2.0 */
/* Clearing a struct through its field table. See fields.h. */
#include "core/fields.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hot.h"

static void set_nan(unsigned char *p, size_t size)
{
        for (size_t i = 0; i + sizeof(double) <= size; i += sizeof(double)) {
                double v = NAN;
                memcpy(p + i, &v, sizeof(v));
        }
}

void fields_clear_walk(void *base, size_t size, const struct field_desc *t, size_t n)
{
        unsigned char *b = base;
        size_t at = 0; /* bytes before at are done */
        /* Zero all but the kept fields and the nested structs, in as few runs as they
         * allow; then the values that are not zero. */
        for (size_t i = 0; i < n; i++) {
                const struct field_desc *d = &t[i];
                if (d->kind != FK_KEEP && d->kind != FK_STRUCT)
                        continue;
                if (d->off > at)
                        memset(b + at, 0, d->off - at);
                at = d->off + d->size;
        }
        if (size > at)
                memset(b + at, 0, size - at);
        for (size_t i = 0; i < n; i++) {
                const struct field_desc *d = &t[i];
                if (d->kind == FK_DOUBLE)
                        set_nan(b + d->off, d->size);
                else if (d->kind == FK_STRUCT)
                        for (size_t e = 0; e + d->elem <= d->size; e += d->elem)
                                fields_clear_walk(b + d->off + e, d->elem, d->sub, *d->nsub);
        }
}

/* A table's clearing and copying worked out once: the struct as fields_clear_walk
 * leaves it (its kept bytes zero) and byte ranges, merged where they touch. A frame is
 * cleared and its cadences copied every sample; the walk of a table's rows costs more
 * than the copies (the GPU table: some 150 rows, 2.5 kB). */
struct span {
        uint32_t off, len;
};
struct spans {
        struct span *v;
        size_t n, cap;
};
#define FC_COUNT (FC_SLOW + 1)
struct field_plan {
        const struct field_desc *t;
        size_t n, size;
        unsigned char *cleared; /* size bytes */
        struct spans clear;     /* every byte but the kept ones (nested tables' too) */
        struct spans kept;      /* the table's own FK_KEEP rows */
        struct spans cadence[FC_COUNT];
};

/* Add [off, off + len) to s, merged into the last span when it touches it. */
static bool spans_add(struct spans *s, size_t off, size_t len)
{
        if (!len)
                return true;
        struct span *last = s->n ? &s->v[s->n - 1] : NULL;
        if (last && (size_t)last->off + last->len == off) {
                last->len += (uint32_t)len;
                return true;
        }
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 16;
                struct span *v = realloc(s->v, cap * sizeof(*v));
                if (!v)
                        return false;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n++] = (struct span){(uint32_t)off, (uint32_t)len};
        return true;
}

/* The bytes of a struct of size bytes that fields_clear_walk writes, as spans of the
 * outermost struct (base: this one's offset in it), into s. Kept fields are left out at
 * every depth. */
static bool add_cleared(struct spans *s, const struct field_desc *t, size_t n, size_t base,
                        size_t size)
{
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
                const struct field_desc *d = &t[i];
                if (d->kind != FK_KEEP && d->kind != FK_STRUCT)
                        continue;
                if (d->off > at && !spans_add(s, base + at, d->off - at))
                        return false;
                at = d->off + d->size;
                if (d->kind == FK_KEEP)
                        continue;
                for (size_t e = 0; e + d->elem <= d->size; e += d->elem)
                        if (!add_cleared(s, d->sub, *d->nsub, base + d->off + e, d->elem))
                                return false;
        }
        return size <= at || spans_add(s, base + at, size - at);
}

static void plan_free(struct field_plan *p)
{
        if (!p)
                return;
        free(p->cleared);
        free(p->clear.v);
        free(p->kept.v);
        for (unsigned c = 0; c < FC_COUNT; c++)
                free(p->cadence[c].v);
        free(p);
}

static struct field_plan *plan_make(const struct field_desc *t, size_t n, size_t size)
{
        struct field_plan *p = calloc(1, sizeof(*p));
        if (!p || size > UINT32_MAX || !(p->cleared = calloc(1, size)))
                goto fail;
        p->t = t;
        p->n = n;
        p->size = size;
        fields_clear_walk(p->cleared, size, t, n);
        if (!add_cleared(&p->clear, t, n, 0, size))
                goto fail;
        for (size_t i = 0; i < n; i++) {
                if (t[i].kind == FK_KEEP && !spans_add(&p->kept, t[i].off, t[i].size))
                        goto fail;
                if ((unsigned)t[i].cadence < FC_COUNT &&
                    !spans_add(&p->cadence[t[i].cadence], t[i].off, t[i].size))
                        goto fail;
        }
        return p;
fail:
        plan_free(p);
        return NULL;
}

/* The plans made so far, one a table and struct size, never freed (a handful of tables
 * for the process's life); readers take them without the lock. */
#define PLANS_MAX 32
static _Atomic(struct field_plan *) plans[PLANS_MAX];
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;

/* The plan made for t of a struct of size bytes (0: of any size); NULL when none, and
 * *end (when asked) the first free slot (PLANS_MAX: none). */
static struct field_plan *plan_find(const struct field_desc *t, size_t n, size_t size,
                                    unsigned *end)
{
        unsigned i = 0;
        for (; i < PLANS_MAX; i++) {
                struct field_plan *p = atomic_load_explicit(&plans[i], memory_order_acquire);
                if (!p)
                        break;
                if (p->t == t && p->n == n && (!size || p->size == size))
                        return p;
        }
        if (end)
                *end = i;
        return NULL;
}

/* t's plan for a struct of size bytes, made at the first call; NULL when none could be
 * made (the walk then). */
static const struct field_plan *plan_for(const struct field_desc *t, size_t n, size_t size)
{
        struct field_plan *found = plan_find(t, n, size, NULL);
        if (found)
                return found;
        unsigned end;
        pthread_mutex_lock(&plans_lock);
        found = plan_find(t, n, size, &end);
        if (!found && end < PLANS_MAX && (found = plan_make(t, n, size)))
                atomic_store_explicit(&plans[end], found, memory_order_release);
        pthread_mutex_unlock(&plans_lock);
        return found;
}

static void copy_spans(unsigned char *dst, const unsigned char *src, const struct spans *s)
{
        for (size_t i = 0; i < s->n; i++)
                memcpy(dst + s->v[i].off, src + s->v[i].off, s->v[i].len);
}

VIGIL_HOT void fields_clear(void *base, size_t size, const struct field_desc *t, size_t n)
{
        const struct field_plan *p = plan_for(t, n, size);
        if (p)
                copy_spans(base, p->cleared, &p->clear);
        else
                fields_clear_walk(base, size, t, n);
}

VIGIL_HOT void fields_copy_kept(void *dst, const void *src, const struct field_desc *t, size_t n)
{
        const struct field_plan *p = plan_find(t, n, 0, NULL);
        if (p) {
                copy_spans(dst, src, &p->kept);
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (t[i].kind == FK_KEEP)
                        memcpy((unsigned char *)dst + t[i].off,
                               (const unsigned char *)src + t[i].off, t[i].size);
}

VIGIL_HOT void fields_copy_cadence(void *dst, const void *src, const struct field_desc *t, size_t n,
                                   enum field_cadence c)
{
        const struct field_plan *p = plan_find(t, n, 0, NULL);
        if (p && (unsigned)c < FC_COUNT) {
                copy_spans(dst, src, &p->cadence[c]);
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (t[i].cadence == c && t[i].size)
                        memcpy((unsigned char *)dst + t[i].off,
                               (const unsigned char *)src + t[i].off, t[i].size);
}

static bool all_zero(const unsigned char *p, size_t size)
{
        for (size_t i = 0; i < size; i++)
                if (p[i])
                        return false;
        return true;
}

bool field_missing(const void *base, const struct field_desc *d)
{
        const unsigned char *p = (const unsigned char *)base + d->off;
        switch (d->kind) {
        case FK_KEEP:
                return false;
        case FK_NONE:
                return true;
        case FK_DOUBLE:
                for (size_t i = 0; i + sizeof(double) <= d->size; i += sizeof(double)) {
                        double v;
                        memcpy(&v, p + i, sizeof(v));
                        if (!isnan(v))
                                return false;
                }
                return true;
        case FK_STRING:
                return p[0] == '\0';
        case FK_VALIDATED: {
                bool valid;
                memcpy(&valid, (const unsigned char *)base + d->valid_off, sizeof(valid));
                return !valid;
        }
        case FK_ZERO:
        case FK_VALID:
                return all_zero(p, d->size);
        case FK_STRUCT:
                for (size_t e = 0; e + d->elem <= d->size; e += d->elem)
                        for (size_t i = 0; i < *d->nsub; i++)
                                if (d->sub[i].kind != FK_KEEP && !field_missing(p + e, &d->sub[i]))
                                        return false;
                return true;
        }
        return false;
}
