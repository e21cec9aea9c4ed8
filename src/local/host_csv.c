/* SPDX-License-Identifier: Apache-2.0 */
/* Sink: host-YYYY-MM-DD.csv, the reference monitor's columns (see host_row.h), or with
 * --csv FILE that one file (no rotation, no retention).
 * The header's core count is fixed per file by the first row written to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vigil.h"
#include "encode/host_row_csv.h"
#include "local/csvlog.h"
#include "core/host_row.h"
#include "encode/host_row_text.h"
#include "local/sinks.h"
#include "util/log.h"
#include "util/hot.h"

struct host_csv {
        struct csvlog log;
        unsigned ncpu; /* columns in the current file's header */
        char date[16];
        /* each watch of its own: 4 names of up to 31 + 10 bytes, 4 values */
        char header[VIGIL_MAX_CPUS * 12 + 512 + VIGIL_MAX_WATCHES * 180];
        /* What header was formatted for: formatted again only when these change. */
        unsigned header_ncpu;
        unsigned header_nwatch;
        char header_watch[VIGIL_MAX_WATCHES][sizeof(((struct host_row_watch *)0)->name)];
        struct host_row_text own; /* the row's text where the context shares none */
};

static int host_csv_init(struct vigil_ctx *ctx, void **ret_state)
{
        const char *file = ctx->opt->csv_path;
        if (!ctx->log_dir && !file[0])
                return -ENODEV;
        struct host_csv *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        if (file[0])
                csvlog_init_file(&s->log, file); /* --csv: even with --no-log */
        else
                csvlog_init(&s->log, ctx->log_dir, "host", ctx->opt->retention_days);
        *ret_state = s;
        return 0;
}

/* s->header for s->ncpu cores and hr's watches, formatted only when one of them changed
 * since the last time. False when it does not fit. */
static bool header_for(struct host_csv *s, const struct host_row *hr)
{
        bool same = s->header[0] && s->header_ncpu == s->ncpu && s->header_nwatch == hr->nwatch;
        for (unsigned i = 0; same && i < hr->nwatch; i++)
                same = strcmp(s->header_watch[i], hr->w[i].name) == 0;
        if (same)
                return true;
        struct strbuf hb;
        sb_init_fixed(&hb, s->header, sizeof(s->header));
        host_row_header(&hb, s->ncpu, hr);
        if (hb.overflow) {
                s->header[0] = '\0';
                return false;
        }
        s->header_ncpu = s->ncpu;
        s->header_nwatch = hr->nwatch;
        for (unsigned i = 0; i < hr->nwatch; i++)
                snprintf(s->header_watch[i], sizeof(s->header_watch[i]), "%s", hr->w[i].name);
        return true;
}

VIGIL_HOT static int host_csv_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct host_csv *s = state;
        if (!(t->due & VCLOCK_BIT(VCLOCK_HOST)) || ctx->disk_paused)
                return 0;
        struct host_row_text *c = ctx->host_text ? ctx->host_text : &s->own;
        /* A new file (first row, new day, reopen) takes the current core count. */
        if (s->log.fd < 0)
                s->ncpu = ctx->frame->host.ncpu;
        const char *row = host_row_text(c, ctx->frame, t->seq[VCLOCK_HOST], s->ncpu);
        if (!row || !header_for(s, &c->hr))
                return -E2BIG;
        int r = csvlog_write(&s->log, c->hr.real_ns, s->header, row, c->len);
        if (s->log.moved_aside) {
                vlog(LOG_WARN, "%s had other columns: kept as %s, a new file started", s->log.path,
                     s->log.moved_to);
                s->log.moved_aside = false;
        }
        if (r < 0)
                ctx->frame->self.write_errors++;
        return r;
}

static void host_csv_reopen(void *state, struct vigil_ctx *ctx)
{
        (void)ctx;
        struct host_csv *s = state;
        csvlog_reopen(&s->log);
}

VIGIL_HOT static void host_csv_flush(void *state, struct vigil_ctx *ctx)
{
        struct host_csv *s = state;
        csvlog_sync_in(&s->log, ctx->log_sync);
}

static void host_csv_fini(void *state, struct vigil_ctx *ctx)
{
        (void)ctx;
        struct host_csv *s = state;
        if (!s)
                return;
        csvlog_sync(&s->log);
        csvlog_close(&s->log);
        free(s);
}

const struct vigil_sink vigil_sink_host_csv = {
    .name = "host-csv",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = host_csv_init,
    .write = host_csv_write,
    .reopen = host_csv_reopen,
    .flush = host_csv_flush,
    .fini = host_csv_fini,
};
