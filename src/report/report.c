/* `vigil report`: read host and GPU logs, summarise them, optionally write HTML.
 * See report.h.
 *
 * The logs it reads start with headers such as
 *   timestamp,uptime_s,cpu_total_pct,cpu0_pct,...,throttled_raw,throttle_flags
 *   timestamp,gpu_temp,gpu_tlimit,power_instant,...,sensor0_controller,flags */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_columns.h"
#include "core/host_row.h"
#include "report/csv_read.h"
#include "report/postmortem.h"
#include "report/report_data.h"
#include "report/report_findings.h"
#include "report/tstamp.h"
#include "util/parse.h"

#define TEXT_MAX (16u << 20)

/* Column positions of one file's header (-1: absent). */
struct col_map {
        enum report_kind kind;
        unsigned nfields;
        int host[HOST_F_COUNT];
        int throttle_flags;
        int gpu[GPU_F_COUNT];
        int fan_speed[GPU_ACC_MAX_FANS], fan_target[GPU_ACC_MAX_FANS];
        unsigned nfans;
        int reasons, flags;
        unsigned nwatch; /* watches with columns of their own (host) */
        int wslot[WATCH_ACC_MAX], wcol[WATCH_ACC_MAX][WC_COUNT];
};

static int find_col(const struct csv_reader *r, const char *name)
{
        for (unsigned i = 0; i < r->nfields; i++) {
                if (csv_cell_is(&r->f[i], name))
                        return (int)i;
        }
        return -1;
}

static void map_fans(const struct csv_reader *r, struct col_map *m)
{
        const char *speed = GPU_COLUMN_NAME(GC_PER_FAN, fan_speed_pct);
        const char *target = GPU_COLUMN_NAME(GC_PER_FAN, fan_target_pct);
        for (unsigned i = 0; i < GPU_ACC_MAX_FANS; i++) {
                char name[64];
                snprintf(name, sizeof(name), GPU_COL_FAN_PREFIX "%u%s", i, speed);
                m->fan_speed[i] = find_col(r, name);
                snprintf(name, sizeof(name), GPU_COL_FAN_PREFIX "%u%s", i, target);
                m->fan_target[i] = find_col(r, name);
                if (m->fan_speed[i] >= 0)
                        m->nfans = i + 1;
        }
}

/* Recognise a vigil log by its header. 0 or -EBADMSG. */
static int map_header(const struct csv_reader *r, struct col_map *m)
{
        memset(m, 0, sizeof(*m));
        m->nfields = r->nfields;
        if (r->nfields < 3)
                return -EBADMSG;
        if (csv_cell_is(&r->f[0], HOST_COL_TIMESTAMP) &&
            csv_cell_is(&r->f[1], host_col_name(HC_UPTIME)) &&
            csv_cell_is(&r->f[2], host_col_name(HC_CPU_TOTAL))) {
                m->kind = REPORT_HOST;
                for (int f = 0; f < HOST_F_COUNT; f++)
                        m->host[f] = find_col(r, host_field_name(f));
                m->throttle_flags = find_col(r, HOST_COL_THROTTLE_FLAGS);
                return 0;
        }
        if (csv_cell_is(&r->f[0], GPU_COLUMN_NAME(GC_TIME, sampled_real_ns)) &&
            csv_cell_is(&r->f[1], gpu_field_name(GPU_F_TEMP)) &&
            csv_cell_is(&r->f[2], gpu_field_name(GPU_F_TLIMIT))) {
                m->kind = REPORT_GPU;
                for (int f = 0; f < GPU_F_COUNT; f++)
                        m->gpu[f] = find_col(r, gpu_field_name(f));
                map_fans(r, m);
                m->reasons = find_col(r, GPU_COLUMN_NAME(GC_MASK_NAMES, throttle_mask));
                m->flags = find_col(r, GPU_COLUMN_NAME(GC_FLAGS, flags));
                return 0;
        }
        return -EBADMSG;
}

/* The columns of the watches that have their own (NAME_procs, then NAME_pss_mb,
 * NAME_cpu_pct, NAME_threads anywhere), each given its slot in a. */
static void map_watches(const struct csv_reader *r, struct col_map *m, struct report_watch_acc *a)
{
        const char *procs = watch_col_suffix[WC_PROCS];
        const size_t sl = strlen(procs);
        for (unsigned i = 0; i < r->nfields && m->nwatch < WATCH_ACC_MAX; i++) {
                const struct csv_field *f = &r->f[i];
                char name[64], col[96];
                if (f->len <= sl || f->len - sl >= sizeof(name) ||
                    memcmp(f->s + f->len - sl, procs, sl) != 0 ||
                    csv_cell_is(f, host_col_name(HC_CHROMIUM_PROCS)))
                        continue;
                copy_bounded(name, sizeof(name), f->s, f->len - sl);
                int cols[WC_COUNT];
                bool whole = true;
                for (int c = 0; c < WC_COUNT; c++) {
                        snprintf(col, sizeof(col), "%s%s", name, watch_col_suffix[c]);
                        cols[c] = find_col(r, col);
                        whole &= cols[c] >= 0;
                }
                int slot = whole ? report_watch_acc_slot(a, name, strlen(name)) : -1;
                if (slot < 0)
                        continue;
                m->wslot[m->nwatch] = slot;
                memcpy(m->wcol[m->nwatch++], cols, sizeof(cols));
        }
}

/* The group of a file: its name before the "-YYYY-MM-DD" date ("gpu0", "host"). */
static void file_group(const char *path, char *out, size_t cap)
{
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(base);
        for (size_t i = 0; i + 11 <= n; i++) {
                const char *d = base + i;
                if (d[0] == '-' && d[5] == '-' && d[8] == '-' && d[1] >= '0' && d[1] <= '9') {
                        n = i;
                        break;
                }
        }
        copy_bounded(out, cap, base, n ? n : strlen(base));
}

static double cell(const struct csv_reader *r, int col)
{
        return col >= 0 && (unsigned)col < r->nfields ? csv_cell_double(&r->f[col]) : NAN;
}

/* A cell copied as a C string ("" when absent). */
static const char *cell_str(const struct csv_reader *r, int col, char *buf, size_t cap)
{
        buf[0] = '\0';
        if (col >= 0 && (unsigned)col < r->nfields)
                copy_bounded(buf, cap, r->f[col].s, r->f[col].len);
        return buf;
}

/* The column that holds "NVML_FAILED:<error>" in a failure row: flags, found by its
 * name (vigil writes its own columns after flags); the last cell of a shorter row
 * (the reference logger writes nothing after it). */
static int failure_col(const struct csv_reader *r, const struct col_map *m)
{
        if (m->flags >= 0 && (unsigned)m->flags < r->nfields)
                return m->flags;
        return (int)r->nfields - 1;
}

static bool is_failure_row(const struct csv_reader *r, const struct col_map *m)
{
        const struct csv_field *c = &r->f[failure_col(r, m)];
        return c->len >= 11 && memcmp(c->s, "NVML_FAILED", 11) == 0;
}

struct row_ctx {
        struct tstamp_cache tc;
        char ts[48];
        char text1[512], text2[512];
};

/* The row's time; false when the row is damaged (wrong width, bad time stamp). */
static bool row_time(struct csv_reader *r, const struct col_map *m, struct row_ctx *c, double *t)
{
        bool failure = m->kind == REPORT_GPU && r->nfields >= 2 && is_failure_row(r, m);
        if ((r->nfields != m->nfields && !failure) ||
            tstamp_parse(&c->tc, r->f[0].s, r->f[0].len, t) < 0) {
                r->skipped++;
                return false;
        }
        cell_str(r, 0, c->ts, sizeof(c->ts));
        return true;
}

static void add_host_row(struct report_data *d, struct csv_reader *r, const struct col_map *m,
                         struct row_ctx *c)
{
        struct report_host_acc *a = &d->host;
        struct host_acc_row row;
        if (!row_time(r, m, c, &row.t))
                return;
        for (unsigned w = 0; w < m->nwatch; w++) {
                double v[WC_COUNT];
                for (int k = 0; k < WC_COUNT; k++)
                        v[k] = cell(r, m->wcol[w][k]);
                report_watch_acc_add(&d->watches, (unsigned)m->wslot[w], row.t, v);
        }
        row.timestamp = c->ts;
        for (int f = 0; f < HOST_F_COUNT; f++)
                row.v[f] = cell(r, m->host[f]);
        row.throttle_flags = cell_str(r, m->throttle_flags, c->text1, sizeof(c->text1));
        report_host_acc_add(a, &row);
}

static void add_gpu_row(struct report_gpu_acc *a, struct csv_reader *r, const struct col_map *m,
                        struct row_ctx *c)
{
        struct gpu_row row = {0};
        if (!row_time(r, m, c, &row.t))
                return;
        row.timestamp = c->ts;
        if (is_failure_row(r, m)) {
                row.failure = cell_str(r, failure_col(r, m), c->text1, sizeof(c->text1));
                report_gpu_acc_add(a, &row);
                return;
        }
        for (int f = 0; f < GPU_F_COUNT; f++)
                row.v[f] = cell(r, m->gpu[f]);
        row.nfans = m->nfans;
        for (unsigned i = 0; i < m->nfans; i++) {
                row.fan_speed_pct[i] = cell(r, m->fan_speed[i]);
                row.fan_target_pct[i] = cell(r, m->fan_target[i]);
        }
        row.throttle_reasons = cell_str(r, m->reasons, c->text1, sizeof(c->text1));
        row.flags = cell_str(r, m->flags, c->text2, sizeof(c->text2));
        report_gpu_acc_add(a, &row);
}

/* Open a file and read its header. 0, -errno or -EBADMSG (not a vigil log). */
static int open_log(const char *path, struct csv_reader *r, struct col_map *m)
{
        int ret = csv_reader_open(r, path);
        if (ret < 0)
                return ret;
        ret = csv_reader_next(r);
        if (ret == 1)
                ret = map_header(r, m);
        else if (ret == 0)
                ret = -EBADMSG; /* empty */
        if (ret < 0)
                csv_reader_close(r);
        return ret;
}

static void say_error(FILE *to, const char *path, int err)
{
        if (err == -EBADMSG)
                fprintf(to, "vigil report: %s: not a vigil host or GPU log (unknown header)\n",
                        path);
        else
                fprintf(to, "vigil report: cannot read %s: %s\n", path, strerror(-err));
}

/* Find kind, group and first time stamp of a file. */
static int probe(struct report_file *f)
{
        struct csv_reader r;
        struct col_map m;
        struct row_ctx *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        int ret = open_log(f->path, &r, &m);
        if (ret < 0)
                goto out;
        f->kind = m.kind;
        if (m.kind == REPORT_HOST)
                copy_bounded(f->group, sizeof(f->group), "host", 4);
        else
                file_group(f->path, f->group, sizeof(f->group));
        f->first_t = INFINITY;
        for (int i = 0; i < 100 && csv_reader_next(&r) == 1; i++) {
                double t;
                if (row_time(&r, &m, c, &t)) {
                        f->first_t = t;
                        break;
                }
        }
        csv_reader_close(&r);
out:
        free(c);
        return ret;
}

static int file_cmp(const void *l, const void *r)
{
        const struct report_file *a = l, *b = r;
        if (a->kind != b->kind)
                return a->kind == REPORT_HOST ? -1 : 1;
        int g = strverscmp(a->group, b->group);
        if (g)
                return g;
        if (a->first_t != b->first_t)
                return a->first_t < b->first_t ? -1 : 1;
        return strcmp(a->path, b->path);
}

/* Read every row of file f into the host accumulator or gpu. */
static void read_file(struct report_data *d, struct report_file *f, struct report_gpu_acc *gpu)
{
        struct csv_reader r;
        struct col_map m;
        struct row_ctx *c = calloc(1, sizeof(*c));
        int ret = c ? open_log(f->path, &r, &m) : -ENOMEM;
        if (ret < 0) {
                f->error = ret;
                say_error(d->err, f->path, ret);
                free(c);
                return;
        }
        if (m.kind == REPORT_HOST)
                map_watches(&r, &m, &d->watches);
        uint64_t before = gpu ? gpu->rows : d->host.rows;
        while ((ret = csv_reader_next(&r)) == 1) {
                if (gpu)
                        add_gpu_row(gpu, &r, &m, c);
                else
                        add_host_row(d, &r, &m, c);
        }
        if (ret < 0) {
                f->error = ret;
                say_error(d->err, f->path, ret);
        }
        f->rows = (gpu ? gpu->rows : d->host.rows) - before;
        f->skipped = r.skipped;
        f->torn = r.torn;
        csv_reader_close(&r);
        free(c);
}

/* ---- the whole run ---- */

struct report_opts {
        const char *html;
        const char **paths; /* owned */
        size_t npaths;
};

static int usage(FILE *err, const char *msg)
{
        if (msg)
                fprintf(err, "vigil report: %s\n", msg);
        fprintf(err, "usage: vigil report [--html OUT] CSV...\n");
        return 2;
}

static void help(FILE *out)
{
        fprintf(out, "usage: vigil report [--html OUT] CSV...\n"
                     "Summarise recorded host and GPU logs: min/avg/max, the leak trend, robust "
                     "slopes, throttling, anomalies and events.\n"
                     "  --html OUT   also write a self-contained HTML page with charts to OUT\n");
}

/* 0 to go on, 1 when done (help), or minus the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct report_opts *o, FILE *out, FILE *err)
{
        o->paths = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*o->paths));
        if (!o->paths)
                return -1;
        bool opts = true;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                if (opts && strcmp(a, "--") == 0) {
                        opts = false;
                } else if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
                        help(out);
                        return 1;
                } else if (opts && strcmp(a, "--html") == 0) {
                        if (i + 1 >= argc)
                                return -usage(err, "--html needs a file name");
                        o->html = argv[++i];
                } else if (opts && strncmp(a, "--html=", 7) == 0 && a[7]) {
                        o->html = a + 7;
                } else if (opts && a[0] == '-' && a[1]) {
                        fprintf(err, "vigil report: unknown option '%s'\n", a);
                        return -usage(err, NULL);
                } else {
                        o->paths[o->npaths++] = a;
                }
        }
        if (o->npaths == 0)
                return -usage(err, "no CSV file given");
        return 0;
}

/* Probe every path; keep the readable ones, sorted into groups in time order. */
static int probe_all(struct report_data *d, const struct report_opts *o)
{
        d->files = calloc(o->npaths, sizeof(*d->files));
        if (!d->files)
                return -ENOMEM;
        for (size_t i = 0; i < o->npaths; i++) {
                struct report_file *f = &d->files[d->nfiles];
                f->path = o->paths[i];
                int ret = probe(f);
                if (ret == -ENOMEM)
                        return ret;
                if (ret < 0) {
                        say_error(d->err, f->path, ret);
                        continue;
                }
                d->nfiles++;
        }
        if (d->nfiles == 0)
                return -ENOENT;
        qsort(d->files, d->nfiles, sizeof(*d->files), file_cmp);
        return 0;
}

static void widen_period(struct report_data *d, double t0, double t1)
{
        if (isfinite(t0) && (isnan(d->t0) || t0 < d->t0))
                d->t0 = t0;
        if (isfinite(t1) && (isnan(d->t1) || t1 > d->t1))
                d->t1 = t1;
}

/* Set up the accumulators (one per GPU group) and read every file into them. */
static int read_all(struct report_data *d, bool charts)
{
        size_t ngroups = 0;
        for (size_t i = 0; i < d->nfiles; i++) {
                struct report_file *f = &d->files[i];
                if (f->kind == REPORT_HOST)
                        d->have_host = true;
                else if (i == 0 || strcmp(f->group, d->files[i - 1].group) != 0)
                        ngroups++;
        }
        if (d->have_host &&
            report_host_acc_init(&d->host, STAT_SERIES_CAP, charts ? HOST_ACC_CHARTS : 0) < 0)
                return -ENOMEM;
        report_watch_acc_init(&d->watches, STAT_SERIES_CAP);
        d->gpus = calloc(ngroups ? ngroups : 1, sizeof(*d->gpus));
        if (!d->gpus)
                return -ENOMEM;
        struct report_gpu_acc *gpu = NULL;
        for (size_t i = 0; i < d->nfiles; i++) {
                struct report_file *f = &d->files[i];
                if (f->kind == REPORT_GPU && (!gpu || strcmp(gpu->name, f->group) != 0)) {
                        gpu = &d->gpus[d->ngpus];
                        if (report_gpu_acc_init(gpu, f->group, STAT_SERIES_CAP,
                                                charts ? GPU_ACC_CHARTS : 0) < 0)
                                return -ENOMEM;
                        d->ngpus++;
                }
                read_file(d, f, f->kind == REPORT_GPU ? gpu : NULL);
        }
        d->t0 = d->t1 = NAN;
        if (d->have_host)
                widen_period(d, d->host.first_t, d->host.last_t);
        for (size_t g = 0; g < d->ngpus; g++)
                widen_period(d, d->gpus[g].first_t, d->gpus[g].last_t);
        return 0;
}

/* events.log.1 then events.log from each directory holding a log. */
static void read_events(struct report_data *d)
{
        if (isnan(d->t0) || events_init(&d->events) < 0)
                return;
        for (size_t i = 0; i < d->nfiles; i++) {
                const char *p = d->files[i].path, *slash = strrchr(p, '/');
                size_t dn = slash ? (size_t)(slash - p) + 1 : 0;
                bool seen = false;
                for (size_t k = 0; k < i && !seen; k++) {
                        const char *q = d->files[k].path, *qs = strrchr(q, '/');
                        size_t qn = qs ? (size_t)(qs - q) + 1 : 0;
                        seen = qn == dn && memcmp(p, q, dn) == 0;
                }
                if (seen)
                        continue;
                char path[4096];
                static const char *const names[] = {"events.log.1", "events.log"};
                for (int k = 0; k < 2; k++) {
                        int n = snprintf(path, sizeof(path), "%.*s%s", (int)dn, p, names[k]);
                        if (n < 0 || (size_t)n >= sizeof(path))
                                continue;
                        int ret = events_load(&d->events, path, d->t0, d->t1);
                        if (ret > 0)
                                d->have_events = true;
                        else if (ret < 0)
                                say_error(d->err, path, ret);
                }
        }
}

void report_text_files(const struct report_data *d, const char *group, struct strbuf *out)
{
        sb_puts(out, "\n  Files:\n");
        for (size_t i = 0; i < d->nfiles; i++) {
                const struct report_file *f = &d->files[i];
                if (strcmp(f->group, group) != 0)
                        continue;
                sb_printf(out, "    %s: %llu rows", f->path, (unsigned long long)f->rows);
                if (f->skipped)
                        sb_printf(out, ", %llu damaged row%s skipped",
                                  (unsigned long long)f->skipped, f->skipped == 1 ? "" : "s");
                if (f->torn)
                        sb_puts(out, ", torn last line dropped");
                if (f->error)
                        sb_printf(out, ", read error: %s", strerror(-f->error));
                sb_putc(out, '\n');
        }
}

void report_text_events(const struct report_data *d, struct strbuf *out)
{
        if (!d->have_events)
                return;
        const struct event_list *l = &d->events;
        sb_printf(out, "\n  Events (events.log) in this period: %llu\n",
                  (unsigned long long)l->in_range);
        if (l->ntypes == 0)
                return;
        sb_puts(out, "    ");
        for (unsigned i = 0; i < l->ntypes; i++)
                sb_printf(out, "%s%s %llu", i ? ", " : "", l->type_name[i],
                          (unsigned long long)l->type_count[i]);
        if (l->other)
                sb_printf(out, ", other %llu", (unsigned long long)l->other);
        sb_putc(out, '\n');
}

static void build_text(const struct report_data *d, struct strbuf *out)
{
        findings_text(&d->findings, "  ", out);
        if (d->have_host) {
                report_host_acc_text(&d->host, out);
                report_watch_acc_text(&d->watches, out);
                report_text_files(d, "host", out);
        }
        for (size_t g = 0; g < d->ngpus; g++) {
                report_gpu_acc_text(&d->gpus[g], out);
                report_text_files(d, d->gpus[g].name, out);
        }
        report_text_events(d, out);
}

static void data_free(struct report_data *d)
{
        if (d->have_host) {
                report_host_acc_free(&d->host);
                report_watch_acc_free(&d->watches);
        }
        for (size_t g = 0; g < d->ngpus; g++)
                report_gpu_acc_free(&d->gpus[g]);
        free(d->gpus);
        free(d->files);
        events_free(&d->events);
}

int report_html_of(const char *const *paths, size_t n, struct strbuf *out, FILE *err)
{
        struct report_opts o = {.paths = calloc(n ? n : 1, sizeof(*o.paths)), .npaths = n};
        struct report_data *d = calloc(1, sizeof(*d));
        int ret = o.paths && d ? 0 : -ENOMEM;
        if (ret == 0) {
                d->err = err;
                for (size_t i = 0; i < n; i++)
                        o.paths[i] = paths[i];
                ret = probe_all(d, &o);
        }
        if (ret == 0)
                ret = read_all(d, true);
        if (ret == 0) {
                read_events(d);
                report_findings_build(d, &d->findings);
                report_html_build(d, out);
                ret = out->overflow ? -ENOSPC : 0;
        }
        if (d)
                data_free(d);
        free(d);
        free(o.paths);
        return ret;
}

int report_main(int argc, char **argv)
{
        return report_run(argc, argv, stdout, stderr);
}

/* The latest post-mortem of the first file's directory, when the end it examines falls
 * within the period reported: one line naming it (report/postmortem.h). */
static void postmortem_finding(const struct report_data *d, struct strbuf *out)
{
        struct postmortem_info pm;
        char dir[4096];
        if (!d->nfiles || isnan(d->t0))
                return;
        const char *p = d->files[0].path, *slash = strrchr(p, '/');
        snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
        if (postmortem_latest(dir[0] ? dir : "/", &pm) < 0 || pm.quiet_ns <= 0)
                return;
        double q = (double)pm.quiet_ns / 1e9;
        if (q < d->t0 - 1 || q > d->t1 + 1)
                return;
        sb_puts(out, "  ");
        runstate_finding(&pm, out);
        sb_putc(out, '\n');
}

int report_run(int argc, char **argv, FILE *out, FILE *err)
{
        struct report_opts o = {0};
        struct report_data d = {.err = err};
        struct strbuf text = {0};
        int status = 0;
        int ret = parse_args(argc, argv, &o, out, err);
        if (ret) {
                status = ret > 0 ? 0 : -ret;
                goto out;
        }
        ret = probe_all(&d, &o);
        if (ret == 0)
                ret = read_all(&d, o.html != NULL);
        if (ret < 0) {
                if (ret == -ENOMEM)
                        fprintf(err, "vigil report: out of memory\n");
                else
                        fprintf(err, "vigil report: no readable log among the files given\n");
                status = ret == -ENOMEM ? 1 : 2;
                goto out;
        }
        read_events(&d);
        report_findings_build(&d, &d.findings);
        if (sb_init_heap(&text, 64 * 1024, TEXT_MAX) < 0) {
                status = 1;
                goto out;
        }
        postmortem_finding(&d, &text); /* an unclean end leads the findings */
        build_text(&d, &text);
        fwrite(text.buf, 1, text.len, out);
        fflush(out);
        if (o.html) {
                ret = report_html_write(&d, o.html);
                if (ret < 0) {
                        fprintf(err, "vigil report: cannot write %s: %s\n", o.html, strerror(-ret));
                        status = 1;
                }
        }
out:
        sb_free(&text);
        data_free(&d);
        free(o.paths);
        return status;
}
