/* SPDX-License-Identifier: Apache-2.0 */
/* Staleness markers for the push. See rw_stale.h.
 *
 *   vigil_temperature_celsius{chip="nvme_nvme0",sensor="Composite"}: value StaleNaN (bits)
 */
#include "push/rw_stale.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "push/rw_proto.h"
#include "push/rw_record.h"

static uint64_t key_hash(const char *s, size_t n)
{
        uint64_t h = 1469598103934665603ULL;
        for (size_t i = 0; i < n; i++)
                h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
        return h;
}

/* The key of the line at next + off (up to its '\n'). */
static size_t line_len(const char *p, const char *end)
{
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        return nl ? (size_t)(nl - p) : (size_t)(end - p);
}

/* The keys of the record rec[0..n) into st->next, one a line (a key never holds a
 * newline: label values are escaped). Their count, or -errno. */
static long collect(struct rw_stale *st, const char *rec, size_t n)
{
        long count = 0;
        size_t pos = 0, kl;
        const char *key;
        double v;
        int r;
        if (n + 1 > st->cap) {
                char *a = realloc(st->next, n + 1), *b;
                if (!a)
                        return -ENOMEM;
                st->next = a;
                b = realloc(st->prev, n + 1);
                if (!b)
                        return -ENOMEM;
                st->prev = b;
                st->cap = n + 1;
        }
        st->next_len = 0;
        while ((r = rw_rec_next(rec, n, &pos, &key, &kl, &v)) == 1) {
                memcpy(st->next + st->next_len, key, kl);
                st->next_len += kl;
                st->next[st->next_len++] = '\n';
                count++;
        }
        return r < 0 ? r : count;
}

/* Index st->next's keys in an open-addressing table at least twice their count. */
static int index_next(struct rw_stale *st, size_t count)
{
        size_t want = 16;
        while (want < 2 * count)
                want *= 2;
        if (want != st->nslots) {
                uint64_t *s = realloc(st->slots, want * sizeof(*s));
                if (!s)
                        return -ENOMEM;
                st->slots = s;
                st->nslots = want;
        }
        memset(st->slots, 0, st->nslots * sizeof(*st->slots));
        const char *end = st->next + st->next_len;
        for (const char *p = st->next; p < end;) {
                size_t l = line_len(p, end);
                size_t j = key_hash(p, l) & (st->nslots - 1);
                while (st->slots[j])
                        j = (j + 1) & (st->nslots - 1);
                st->slots[j] = (uint64_t)(p - st->next) + 1;
                p += l + 1;
        }
        return 0;
}

static int present(const struct rw_stale *st, const char *key, size_t n)
{
        const char *end = st->next + st->next_len;
        for (size_t j = key_hash(key, n) & (st->nslots - 1); st->slots[j];
             j = (j + 1) & (st->nslots - 1)) {
                const char *p = st->next + st->slots[j] - 1;
                if (line_len(p, end) == n && !memcmp(p, key, n))
                        return 1;
        }
        return 0;
}

int rw_stale_mark(struct rw_stale *st, char *rec, size_t *len, size_t cap)
{
        long count = collect(st, rec, *len);
        if (count < 0)
                return (int)count;
        if (count > RW_STALE_MAX_SERIES)
                return -E2BIG;
        int r = index_next(st, (size_t)count);
        if (r < 0)
                return r;
        size_t o = *len;
        int marks = 0;
        double stale;
        memcpy(&stale, &(uint64_t){RW_STALE_NAN_BITS}, sizeof(stale));
        const char *end = st->prev + st->prev_len;
        for (const char *p = st->prev; p < end;) {
                size_t l = line_len(p, end);
                if (!present(st, p, l)) {
                        if (rw_rec_put(rec, cap, &o, p, l, stale) < 0)
                                return -E2BIG;
                        marks++;
                }
                p += l + 1;
        }
        *len = o;
        return marks;
}

void rw_stale_keep(struct rw_stale *st)
{
        char *t = st->prev;
        st->prev = st->next;
        st->prev_len = st->next_len;
        st->next = t;
        st->next_len = 0;
}

void rw_stale_free(struct rw_stale *st)
{
        free(st->prev);
        free(st->next);
        free(st->slots);
        memset(st, 0, sizeof(*st));
}
