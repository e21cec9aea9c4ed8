/* SPDX-License-Identifier: Apache-2.0 */
/* Sink: gpuN-YYYY-MM-DD.csv, one daily file per GPU (N = NVML index), one row per
 * sample of that GPU, failed samples included (see gpu_row.h for the columns). The fan
 * columns of a file are fixed by the GPU's fan count when the file is opened. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/nvml_lib.h"
#include "core/vigil.h"
#include "local/csvlog.h"
#include "encode/gpu_row.h"
#include "local/gpu_sinks.h"
#include "util/hot.h"

struct gpu_csv {
        unsigned n;
        struct csvlog log[VIGIL_MAX_GPUS];
        unsigned nfans[VIGIL_MAX_GPUS];    /* fan column pairs in each open file */
        char header[VIGIL_MAX_GPUS][1024]; /* built when a file is opened, reused per row */
        size_t header_len[VIGIL_MAX_GPUS];
        char row[2048];
        struct fmt_sec_cache ts_cache; /* the rows' timestamp second, shared by the GPUs */
};

static int gpu_csv_init(struct vigil_ctx *ctx, void **ret_state)
{
        if (!ctx->log_dir || !ctx->nvml)
                return -ENODEV;
        struct gpu_csv *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->n = ctx->frame->ngpus;
        for (unsigned i = 0; i < s->n; i++) {
                char prefix[16];
                snprintf(prefix, sizeof(prefix), "gpu%u", ctx->frame->gpus[i].index);
                csvlog_init(&s->log[i], ctx->log_dir, prefix, ctx->opt->retention_days);
        }
        *ret_state = s;
        return 0;
}

static int write_one(struct gpu_csv *s, unsigned slot, const struct gpu_frame *g)
{
        struct strbuf hb, rb;
        if (s->log[slot].fd < 0 || !s->header_len[slot]) {
                /* A new file takes the GPU's current fan count; its header is kept. */
                s->nfans[slot] = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
                sb_init_fixed(&hb, s->header[slot], sizeof(s->header[slot]));
                gpu_row_header(&hb, s->nfans[slot]);
                if (hb.overflow)
                        return -E2BIG;
                s->header_len[slot] = hb.len;
        }
        sb_init_fixed(&rb, s->row, sizeof(s->row));
        gpu_row_csv(&rb, g, s->nfans[slot], &s->ts_cache);
        if (rb.overflow)
                return -E2BIG;
        return csvlog_write(&s->log[slot], g->sampled_real_ns, s->header[slot], s->row, rb.len);
}

VIGIL_HOT static int gpu_csv_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct gpu_csv *s = state;
        int ret = 0;
        if (!(t->due & VCLOCK_BIT(VCLOCK_GPU)) || ctx->disk_paused)
                return 0;
        for (unsigned slot = 0; slot < s->n; slot++) {
                const struct gpu_frame *g = &ctx->frame->gpus[slot];
                if (!g->sampled)
                        continue;
                int r = write_one(s, slot, g);
                if (r < 0) {
                        ctx->frame->self.write_errors++;
                        ret = r;
                }
        }
        return ret;
}

static void gpu_csv_reopen(void *state, struct vigil_ctx *ctx)
{
        (void)ctx;
        struct gpu_csv *s = state;
        for (unsigned i = 0; i < s->n; i++)
                csvlog_reopen(&s->log[i]);
}

VIGIL_HOT static void gpu_csv_flush(void *state, struct vigil_ctx *ctx)
{
        struct gpu_csv *s = state;
        for (unsigned i = 0; i < s->n; i++)
                csvlog_sync_in(&s->log[i], ctx->log_sync);
}

static void gpu_csv_fini(void *state, struct vigil_ctx *ctx)
{
        struct gpu_csv *s = state;
        if (!s)
                return;
        gpu_csv_flush(s, ctx);
        for (unsigned i = 0; i < s->n; i++)
                csvlog_close(&s->log[i]);
        free(s);
}

const struct vigil_sink vigil_sink_gpu_csv = {
    .name = "gpu-csv",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = gpu_csv_init,
    .write = gpu_csv_write,
    .reopen = gpu_csv_reopen,
    .flush = gpu_csv_flush,
    .fini = gpu_csv_fini,
};
