/* SPDX-License-Identifier: Apache-2.0 */
/* One formatting of the host row per host tick; see host_row_text.h. */
#include "encode/host_row_csv.h"
#include "encode/host_row_text.h"
#include "util/strbuf.h"
#include "util/hot.h"

VIGIL_HOT const char *host_row_text(struct host_row_text *c, const struct frame *f, uint64_t seq,
                                    unsigned ncpu)
{
        if (c->valid && c->seq == seq && c->ncpu == ncpu)
                return c->text;
        struct strbuf sb;
        host_row_build(&c->hr, f);
        sb_init_fixed(&sb, c->text, sizeof(c->text));
        host_row_csv(&sb, &c->hr, ncpu);
        c->valid = !sb.overflow;
        c->seq = seq;
        c->ncpu = ncpu;
        c->len = sb.overflow ? 0 : sb.len;
        return c->valid ? c->text : NULL;
}
