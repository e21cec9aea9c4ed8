/* SPDX-License-Identifier: Apache-2.0 */
/* System uptime from /proc/uptime (seconds since boot, then idle seconds summed
 * over all cores).
 *
 *   350735.47 1383567.90
 *
 * Frame field: host.uptime_s. */
#include "collect/proc_uptime.h"

#include <errno.h>
#include <stdlib.h>

#include "collect/host_field.h"
#include "core/vigil.h"
#include "util/hot.h"

#define UPTIME_BUF 128

int proc_uptime_parse(const char *s, size_t n, double *ret_s)
{
        struct cursor c = cur_make(s, n);
        return host_field_double(&c, ret_s);
}

struct uptime_state {
        struct host_file file;
};

static int uptime_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct uptime_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        int r = host_file_init(&st->file, ctx->opt->root, "/proc/uptime", UPTIME_BUF);
        if (r < 0) {
                free(st);
                return r;
        }
        *ret_state = st;
        return 0;
}

VIGIL_HOT static int uptime_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct uptime_state *st = state;
        double up = VAL_MISSING;
        int r = host_file_read(&st->file, ctx->opt->root, t->mono_ns);
        if (r >= 0)
                r = proc_uptime_parse(st->file.f.buf, st->file.f.len, &up);
        ctx->frame->host.uptime_s = up;
        return r < 0 ? r : 0;
}

static void uptime_fini(void *state)
{
        struct uptime_state *st = state;
        if (!st)
                return;
        host_file_close(&st->file);
        free(st);
}

const struct vigil_source vigil_source_proc_uptime = {
    .name = "proc-uptime",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = uptime_init,
    .sample = uptime_sample,
    .fini = uptime_fini,
};
