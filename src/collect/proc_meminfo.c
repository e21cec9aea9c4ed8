/* SPDX-License-Identifier: Apache-2.0 */
/* Memory and swap from /proc/meminfo.
 *
 *   MemAvailable:    3205472 kB
 *
 * Frame fields: host.mem_total_bytes, mem_avail_bytes, mem_used_bytes,
 * swap_total_bytes, swap_free_bytes. */
#include "collect/proc_meminfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/host_field.h"
#include "core/vigil.h"
#include "util/parse.h"
#include "util/hot.h"

/* The real file is about 1.5 KB; the keys vigil reads are in its first 20 lines. */
#define MEMINFO_BUF 8192

static const struct {
        const char *key; /* with its colon */
        unsigned len;
} meminfo_keys[MI_NKEYS] = {
    [MI_MEM_TOTAL] = {"MemTotal:", 9},
    [MI_MEM_FREE] = {"MemFree:", 8},
    [MI_MEM_AVAILABLE] = {"MemAvailable:", 13},
    [MI_BUFFERS] = {"Buffers:", 8},
    [MI_CACHED] = {"Cached:", 7},
    [MI_SWAP_TOTAL] = {"SwapTotal:", 10},
    [MI_SWAP_FREE] = {"SwapFree:", 9},
    [MI_DIRTY] = {"Dirty:", 6},
    [MI_WRITEBACK] = {"Writeback:", 10},
};

static int key_of(const char *s, size_t n)
{
        for (int k = 0; k < MI_NKEYS; k++) {
                if (n >= meminfo_keys[k].len &&
                    memcmp(s, meminfo_keys[k].key, meminfo_keys[k].len) == 0)
                        return k;
        }
        return -1;
}

/* "   3884360 kB" (the rest of the line after the key). */
static int parse_kb(const char *s, size_t n, uint64_t *ret)
{
        struct cursor c = cur_make(s, n);
        uint64_t v;
        if (cur_u64(&c, &v) < 0)
                return -EINVAL;
        cur_skip_blank(&c);
        cur_lit(&c, "kB");
        cur_skip_blank(&c);
        if (!cur_eof(&c))
                return -EINVAL;
        *ret = v;
        return 0;
}

VIGIL_HOT int proc_meminfo_parse(const char *s, size_t n, struct proc_meminfo *ret)
{
        const unsigned all = (1u << MI_NKEYS) - 1;
        const char *p = s, *end = s + n;
        ret->seen = ret->valid = 0;
        while (p < end && ret->seen != all) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl)
                        break; /* a cut last line: ignored */
                size_t len = (size_t)(nl - p);
                int k = key_of(p, len);
                if (k >= 0 && !(ret->seen & (1u << k))) {
                        size_t kl = meminfo_keys[k].len;
                        ret->seen |= 1u << k;
                        if (parse_kb(p + kl, len - kl, &ret->kb[k]) == 0)
                                ret->valid |= 1u << k;
                }
                p = nl + 1;
        }
        return (ret->valid & (1u << MI_MEM_TOTAL)) ? 0 : -EINVAL;
}

long long proc_meminfo_unwritten_kb(const struct proc_meminfo *m)
{
        const unsigned both = (1u << MI_DIRTY) | (1u << MI_WRITEBACK);
        if ((m->valid & both) != both)
                return -1;
        return (long long)(m->kb[MI_DIRTY] + m->kb[MI_WRITEBACK]);
}

static double kb_bytes(const struct proc_meminfo *m, enum meminfo_key k)
{
        return (m->valid & (1u << k)) ? (double)m->kb[k] * 1024.0 : VAL_MISSING;
}

VIGIL_HOT void proc_meminfo_apply(const struct proc_meminfo *m, struct host_frame *h)
{
        double avail = kb_bytes(m, MI_MEM_AVAILABLE);
        if (!(m->seen & (1u << MI_MEM_AVAILABLE))) /* before Linux 3.14 */
                avail = kb_bytes(m, MI_MEM_FREE) + kb_bytes(m, MI_BUFFERS) + kb_bytes(m, MI_CACHED);
        h->mem_total_bytes = kb_bytes(m, MI_MEM_TOTAL);
        h->mem_avail_bytes = avail;
        /* More available than total is a broken file, not a negative use. */
        h->mem_used_bytes = avail <= h->mem_total_bytes ? h->mem_total_bytes - avail : VAL_MISSING;
        h->swap_total_bytes = kb_bytes(m, MI_SWAP_TOTAL);
        h->swap_free_bytes = kb_bytes(m, MI_SWAP_FREE);
        long long unwritten = proc_meminfo_unwritten_kb(m);
        h->unwritten_bytes = unwritten >= 0 ? (double)unwritten * 1024 : VAL_MISSING;
}

struct meminfo_state {
        struct host_file file;
};

static int meminfo_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct meminfo_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        int r = host_file_init(&st->file, ctx->opt->root, "/proc/meminfo", MEMINFO_BUF);
        if (r < 0) {
                free(st);
                return r;
        }
        *ret_state = st;
        return 0;
}

VIGIL_HOT static int meminfo_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct meminfo_state *st = state;
        struct proc_meminfo m = {.seen = 0, .valid = 0};
        int r = host_file_read(&st->file, ctx->opt->root, t->mono_ns);
        if (r >= 0)
                r = proc_meminfo_parse(st->file.f.buf, st->file.f.len, &m);
        proc_meminfo_apply(&m, &ctx->frame->host);
        return r < 0 ? r : 0;
}

static void meminfo_fini(void *state)
{
        struct meminfo_state *st = state;
        if (!st)
                return;
        host_file_close(&st->file);
        free(st);
}

const struct vigil_source vigil_source_proc_meminfo = {
    .name = "proc-meminfo",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = meminfo_init,
    .sample = meminfo_sample,
    .fini = meminfo_fini,
};
