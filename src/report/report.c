/* SPDX-License-Identifier: Apache-2.0 */
/* `vigil report`: read host and GPU logs, summarise them, optionally write HTML.
 * See report.h.
 * The logs are read back by report/log_read.c. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv_read.h"
#include "report/log_read.h"
#include "report/postmortem.h"
#include "report/report_health.h"
#include "report/report_data.h"
#include "report/report_findings.h"
#include "report/tstamp.h"
#include "util/parse.h"

#define TEXT_MAX (16u << 20)

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

static void add_host_row(struct report_data *d, struct csv_reader *r, const struct log_map *m,
                         struct log_row_ctx *c)
{
        struct host_acc_row row;
        double wv[WATCH_ACC_MAX][WC_COUNT];
        if (!log_host_row(r, m, c, &row, wv))
                return;
        for (unsigned w = 0; w < m->nwatch; w++)
                watch_acc_add(&d->watches, (unsigned)m->wslot[w], row.t, wv[w]);
        host_acc_add(&d->host, &row);
}

static void add_gpu_row(struct gpu_acc *a, struct csv_reader *r, const struct log_map *m,
                        struct log_row_ctx *c)
{
        struct gpu_row row;
        if (log_gpu_row(r, m, c, &row))
                gpu_acc_add(a, &row);
}

/* Open a file and read its header. 0, -errno or -EBADMSG (not a vigil log). */
static int open_log(const char *path, struct csv_reader *r, struct log_map *m)
{
        int ret = csv_reader_open(r, path);
        if (ret < 0)
                return ret;
        ret = csv_reader_next(r);
        if (ret == 1)
                ret = log_map_header(r, m);
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
        struct log_map m;
        struct log_row_ctx *c = calloc(1, sizeof(*c));
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
                if (log_row_time(&r, &m, c, &t)) {
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
static void read_file(struct report_data *d, struct report_file *f, struct gpu_acc *gpu)
{
        struct csv_reader r;
        struct log_map m;
        struct log_row_ctx *c = calloc(1, sizeof(*c));
        int ret = c ? open_log(f->path, &r, &m) : -ENOMEM;
        if (ret < 0) {
                f->error = ret;
                say_error(d->err, f->path, ret);
                free(c);
                return;
        }
        if (m.kind == REPORT_HOST)
                log_map_watches(&r, &m, &d->watches);
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
        fprintf(out,
                "usage: vigil report [--html OUT] CSV...\n"
                "Summarise recorded host and GPU logs: min/avg/max, the leak trend, robust "
                "slopes, throttling, anomalies and events.\n"
                "  --html OUT   write a self-contained HTML page with charts (and the text) to\n"
                "               OUT instead of the text to standard output\n");
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
            host_acc_init(&d->host, STAT_SERIES_CAP, charts ? HOST_ACC_CHARTS : 0) < 0)
                return -ENOMEM;
        watch_acc_init(&d->watches, STAT_SERIES_CAP);
        d->gpus = calloc(ngroups ? ngroups : 1, sizeof(*d->gpus));
        if (!d->gpus)
                return -ENOMEM;
        struct gpu_acc *gpu = NULL;
        for (size_t i = 0; i < d->nfiles; i++) {
                struct report_file *f = &d->files[i];
                if (f->kind == REPORT_GPU && (!gpu || strcmp(gpu->name, f->group) != 0)) {
                        gpu = &d->gpus[d->ngpus];
                        if (gpu_acc_init(gpu, f->group, STAT_SERIES_CAP,
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

static void build_text(const struct report_data *d, struct strbuf *out)
{
        findings_text(&d->findings, "  ", out);
        if (d->have_host) {
                host_acc_text(&d->host, out);
                watch_acc_text(&d->watches, out);
                report_text_files(d, "host", out);
        }
        for (size_t g = 0; g < d->ngpus; g++) {
                gpu_acc_text(&d->gpus[g], out);
                report_text_files(d, d->gpus[g].name, out);
        }
        report_text_events(d, out);
}

static void data_free(struct report_data *d)
{
        if (d->have_host) {
                host_acc_free(&d->host);
                watch_acc_free(&d->watches);
        }
        for (size_t g = 0; g < d->ngpus; g++)
                gpu_acc_free(&d->gpus[g]);
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

/* The directory of the first file ("." for a bare name). */
static void first_dir(const struct report_data *d, char *dir, size_t cap)
{
        const char *p = d->files[0].path, *slash = strrchr(p, '/');
        snprintf(dir, cap, "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
}

/* The health verdict vigil keeps in the first file's directory, first. */
static void health_now(const struct report_data *d, struct strbuf *out)
{
        char dir[4096];
        if (!d->nfiles)
                return;
        first_dir(d, dir, sizeof(dir));
        report_health_text(dir[0] ? dir : "/", d->err, out);
}

/* The latest post-mortem of the first file's directory, when the end it examines falls
 * within the period reported: one line naming it (report/postmortem.h). */
static void postmortem_finding(const struct report_data *d, struct strbuf *out)
{
        struct postmortem_info pm;
        char dir[4096];
        if (!d->nfiles || isnan(d->t0))
                return;
        first_dir(d, dir, sizeof(dir));
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
        if (o.html) {
                /* The page holds the text too: name the file, not the text again. */
                ret = report_html_write(&d, o.html);
                if (ret < 0) {
                        fprintf(err, "vigil report: cannot write %s: %s\n", o.html, strerror(-ret));
                        status = 1;
                } else {
                        fprintf(out, "vigil report: wrote %s\n", o.html);
                        fflush(out);
                }
                goto out;
        }
        health_now(&d, &text);         /* the verdict first */
        postmortem_finding(&d, &text); /* an unclean end leads the findings */
        build_text(&d, &text);
        fwrite(text.buf, 1, text.len, out);
        fflush(out);
out:
        sb_free(&text);
        data_free(&d);
        free(o.paths);
        return status;
}
