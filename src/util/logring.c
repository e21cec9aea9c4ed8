/* SPDX-License-Identifier: Apache-2.0 */
/* Variable-length record ring. See logring.h.
 *
 * The live records run from off[head] to wpos, in order, wrapping at most once: when
 * off[head] < wpos they are [off[head], wpos); otherwise they are [off[head], end of
 * the records before the wrap) and [0, wpos). A new record goes at wpos, or at 0 when
 * it does not fit before the arena's end. */
#include "util/logring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hot.h"

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

int logring_init(struct logring *r, size_t bytes, size_t max_records)
{
        memset(r, 0, sizeof(*r));
        bytes = ALIGN8(bytes < 64 ? 64 : bytes);
        if (max_records < 1 || bytes >= UINT32_MAX)
                return -EINVAL;
        r->arena = malloc(bytes);
        r->off = calloc(max_records, sizeof(*r->off));
        r->len = calloc(max_records, sizeof(*r->len));
        if (!r->arena || !r->off || !r->len) {
                logring_fini(r);
                return -ENOMEM;
        }
        r->size = bytes;
        r->cap = max_records;
        return 0;
}

void logring_fini(struct logring *r)
{
        free(r->arena);
        free(r->off);
        free(r->len);
        memset(r, 0, sizeof(*r));
}

static void drop_oldest(struct logring *r)
{
        r->head = (r->head + 1) % r->cap;
        r->count--;
        r->dropped++;
        if (r->count == 0)
                r->head = r->wpos = 0;
}

/* Would n bytes at p overwrite a live record? */
static int conflicts(const struct logring *r, size_t p, size_t n)
{
        if (r->count == 0)
                return 0;
        size_t h = r->off[r->head];
        if (h < r->wpos) /* not wrapped: live is [h, wpos) */
                return p < r->wpos && p + n > h;
        /* Wrapped: live is [h, ...) and [0, wpos); writing at 0 would hit the newest. */
        return p == r->wpos ? p + n > h : 1;
}

VIGIL_HOT void *logring_push(struct logring *r, size_t n)
{
        size_t need = ALIGN8(n ? n : 1);
        if (!r->arena || need > r->size)
                return NULL;
        if (r->count == r->cap)
                drop_oldest(r);
        for (;;) {
                size_t p = r->wpos + need > r->size ? 0 : r->wpos;
                if (!conflicts(r, p, need)) {
                        size_t slot = (r->head + r->count) % r->cap;
                        r->off[slot] = (uint32_t)p;
                        r->len[slot] = (uint32_t)n;
                        r->count++;
                        r->wpos = p + need;
                        return r->arena + p;
                }
                drop_oldest(r);
        }
}

VIGIL_HOT size_t logring_count(const struct logring *r)
{
        return r->count;
}

VIGIL_HOT const void *logring_get(const struct logring *r, size_t i, size_t *ret_len)
{
        if (i >= r->count)
                return NULL;
        size_t slot = (r->head + i) % r->cap;
        if (ret_len)
                *ret_len = r->len[slot];
        return r->arena + r->off[slot];
}

size_t logring_memory_bytes(const struct logring *r)
{
        return r->arena ? r->size + r->cap * (sizeof(*r->off) + sizeof(*r->len)) : 0;
}
