/* SPDX-License-Identifier: Apache-2.0 */
/* Load averages from /proc/loadavg.
 *
 *   0.52 0.58 0.59 1/389 12345
 *
 * Frame fields: host.load1, host.load5, host.load15. */
#include "collect/proc_loadavg.h"

#include <errno.h>
#include <stdlib.h>

#include "collect/host_field.h"
#include "core/vigil.h"
#include "util/hot.h"

#define LOADAVG_BUF 128

VIGIL_HOT int proc_loadavg_parse(const char *s, size_t n, struct proc_loadavg *ret)
{
        struct cursor c = cur_make(s, n);
        unsigned got = 0;
        for (unsigned i = 0; i < 3; i++)
                ret->load[i] = VAL_MISSING;
        while (got < 3 && host_field_double(&c, &ret->load[got]) == 0)
                got++;
        return got == 3 ? 0 : -EINVAL;
}

struct loadavg_state {
        struct host_file file;
};

static int loadavg_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct loadavg_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        int r = host_file_init(&st->file, ctx->opt->root, "/proc/loadavg", LOADAVG_BUF);
        if (r < 0) {
                free(st);
                return r;
        }
        *ret_state = st;
        return 0;
}

VIGIL_HOT static int loadavg_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct loadavg_state *st = state;
        struct host_frame *h = &ctx->frame->host;
        struct proc_loadavg la;
        int r = host_file_read(&st->file, ctx->opt->root, t->mono_ns);
        if (r >= 0)
                r = proc_loadavg_parse(st->file.f.buf, st->file.f.len, &la);
        else
                la.load[0] = la.load[1] = la.load[2] = VAL_MISSING;
        h->load1 = la.load[0];
        h->load5 = la.load[1];
        h->load15 = la.load[2];
        return r < 0 ? r : 0;
}

static void loadavg_fini(void *state)
{
        struct loadavg_state *st = state;
        if (!st)
                return;
        host_file_close(&st->file);
        free(st);
}

const struct vigil_source vigil_source_proc_loadavg = {
    .name = "proc-loadavg",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = loadavg_init,
    .sample = loadavg_sample,
    .fini = loadavg_fini,
};
