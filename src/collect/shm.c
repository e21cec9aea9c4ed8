/* SPDX-License-Identifier: Apache-2.0 */
/* /dev/shm usage from statvfs(2), or from the test seam file (see shm.h).
 *
 *   4096 488633 488121 488121        (ROOT/dev/shm.statvfs, the test seam)
 *
 * Frame fields: host.shm_total_bytes, shm_used_bytes, shm_avail_bytes. */
#include "collect/shm.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "collect/host_field.h"
#include "core/vigil.h"
#include "util/parse.h"
#include "util/hot.h"

#define SHM_OVERRIDE_BUF 256

VIGIL_HOT int shm_parse_override(const char *s, size_t n, struct shm_statvfs *ret)
{
        struct cursor c = cur_make(s, n);
        uint64_t v[4];
        cur_skip_space(&c);
        for (unsigned i = 0; i < 4; i++) {
                int r = cur_u64(&c, &v[i]);
                if (r < 0)
                        return r;
                if (!cur_eof(&c) && *c.p != ' ' && *c.p != '\t' && *c.p != '\n' && *c.p != '\r')
                        return -EINVAL;
        }
        cur_skip_space(&c);
        if (!cur_eof(&c))
                return -EINVAL;
        ret->frsize = v[0];
        ret->blocks = v[1];
        ret->bfree = v[2];
        ret->bavail = v[3];
        return 0;
}

VIGIL_HOT void shm_apply(const struct shm_statvfs *v, struct host_frame *h)
{
        h->shm_total_bytes = h->shm_used_bytes = h->shm_avail_bytes = VAL_MISSING;
        if (!v)
                return;
        double fr = (double)v->frsize;
        h->shm_total_bytes = (double)v->blocks * fr;
        if (v->bfree <= v->blocks)
                h->shm_used_bytes = (double)(v->blocks - v->bfree) * fr;
        if (v->bavail <= v->blocks)
                h->shm_avail_bytes = (double)v->bavail * fr;
}

struct shm_state {
        bool use_override;
        struct host_file override;
        char path[4096]; /* ROOT/dev/shm */
};

static bool has_root(const char *root)
{
        return root[0] != '\0' && strcmp(root, "/") != 0;
}

static int shm_init(struct vigil_ctx *ctx, void **ret_state)
{
        const char *root = ctx->opt->root;
        struct shm_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        st->override.f.fd = -1;
        int r = path_join(st->path, sizeof(st->path), root, "/dev/shm");
        if (r == 0 && has_root(root)) {
                r = pfile_open(&st->override.f, root, "/dev/shm.statvfs", SHM_OVERRIDE_BUF);
                st->use_override = r == 0;
                r = r == -ENOMEM ? r : 0;
        }
        if (r < 0) {
                free(st);
                return r;
        }
        st->override.path = "/dev/shm.statvfs";
        st->override.cap = SHM_OVERRIDE_BUF;
        *ret_state = st;
        return 0;
}

/* The statvfs fields, from the seam file or the system call. 0 or -errno. */
static int shm_read(struct shm_state *st, struct vigil_ctx *ctx, const struct tick *t,
                    struct shm_statvfs *ret)
{
        if (st->use_override) {
                int r = host_file_read(&st->override, ctx->opt->root, t->mono_ns);
                if (r < 0)
                        return r;
                return shm_parse_override(st->override.f.buf, st->override.f.len, ret);
        }
        struct statvfs sv;
        if (statvfs(st->path, &sv) < 0)
                return -errno;
        ret->frsize = sv.f_frsize;
        ret->blocks = sv.f_blocks;
        ret->bfree = sv.f_bfree;
        ret->bavail = sv.f_bavail;
        return 0;
}

VIGIL_HOT static int shm_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct shm_statvfs v;
        int r = shm_read(state, ctx, t, &v);
        shm_apply(r == 0 ? &v : NULL, &ctx->frame->host);
        return r;
}

static void shm_fini(void *state)
{
        struct shm_state *st = state;
        if (!st)
                return;
        host_file_close(&st->override);
        free(st);
}

const struct vigil_source vigil_source_shm = {
    .name = "shm",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = shm_init,
    .sample = shm_sample,
    .fini = shm_fini,
};
