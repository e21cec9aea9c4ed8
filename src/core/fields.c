/* SPDX-License-Identifier: Apache-2.0 */
/* Clearing a struct through its field table. See fields.h. */
#include "core/fields.h"

#include <math.h>
#include <string.h>

static void set_nan(unsigned char *p, size_t size)
{
        for (size_t i = 0; i + sizeof(double) <= size; i += sizeof(double)) {
                double v = NAN;
                memcpy(p + i, &v, sizeof(v));
        }
}

void fields_clear(void *base, size_t size, const struct field_desc *t, size_t n)
{
        unsigned char *b = base;
        size_t at = 0; /* bytes before at are done */
        /* Zero all but the kept fields and the nested structs, in as few runs as they
         * allow (a frame is cleared every sample); then the values that are not zero. */
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
                                fields_clear(b + d->off + e, d->elem, d->sub, *d->nsub);
        }
}

void fields_copy_kept(void *dst, const void *src, const struct field_desc *t, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (t[i].kind == FK_KEEP)
                        memcpy((unsigned char *)dst + t[i].off,
                               (const unsigned char *)src + t[i].off, t[i].size);
}

void fields_copy_cadence(void *dst, const void *src, const struct field_desc *t, size_t n,
                         enum field_cadence c)
{
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
