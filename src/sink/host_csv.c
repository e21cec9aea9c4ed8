/* Sink: host-YYYY-MM-DD.csv, the reference monitor's columns (see host_row.h), or with
 * --csv FILE that one file (no rotation, no retention).
 * The header's core count is fixed per file by the first row written to it. */
#include <errno.h>
#include <stdlib.h>

#include "core/vigil.h"
#include "sink/csvlog.h"
#include "core/host_row.h"
#include "sink/sinks.h"
#include "util/log.h"

struct host_csv {
        struct csvlog log;
        unsigned ncpu; /* columns in the current file's header */
        char date[16];
        /* each watch of its own: 4 names of up to 31 + 10 bytes, 4 values */
        char header[VIGIL_MAX_CPUS * 12 + 512 + VIGIL_MAX_WATCHES * 180];
        char row[VIGIL_MAX_CPUS * 8 + 1024 + VIGIL_MAX_WATCHES * 100];
        struct host_row hr;
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

static int host_csv_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct host_csv *s = state;
        struct strbuf hb, rb;
        if (!(t->due & VCLOCK_BIT(VCLOCK_HOST)) || ctx->disk_paused)
                return 0;
        host_row_build(&s->hr, ctx->frame);
        /* A new file (first row, new day, reopen) takes the current core count. */
        if (s->log.fd < 0)
                s->ncpu = s->hr.ncpu;
        sb_init_fixed(&hb, s->header, sizeof(s->header));
        host_row_header(&hb, s->ncpu, &s->hr);
        sb_init_fixed(&rb, s->row, sizeof(s->row));
        host_row_csv(&rb, &s->hr, s->ncpu);
        if (rb.overflow || hb.overflow)
                return -E2BIG;
        int r = csvlog_write(&s->log, s->hr.real_ns, s->header, s->row, rb.len);
        if (s->log.moved_aside) {
                vlog(LOG_WARN, "%s had other columns: kept as %s.old, a new file started",
                     s->log.path, s->log.path);
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

static void host_csv_flush(void *state, struct vigil_ctx *ctx)
{
        (void)ctx;
        struct host_csv *s = state;
        csvlog_sync(&s->log);
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
