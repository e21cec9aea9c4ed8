/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the CSV round trip. A known frame is written by the real writers (the
 * host row, encode/host_row_csv.c; the GPU row, encode/gpu_columns.c) and read back by the
 * report's reader (report/csv_read.c, report/log_read.c): every column, found by the
 * writer's name, holds the frame's value, and the report's rows hold the same. The
 * writers still write every column of the recorded logs in tests/fixtures/csv, in
 * their order (a renamed column would break the scripts that parse these files). */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/frame.h"
#include "encode/gpu_columns.h"
#include "encode/gpu_row.h"
#include "core/host_acc.h"
#include "core/host_row.h"
#include "core/throttle_reasons.h"
#include "core/watch_acc.h"
#include "encode/host_row_csv.h"
#include "report/csv_read.h"
#include "report/log_read.h"
#include "report/tstamp.h"
#include "util/strbuf.h"
#include "test_fixtures.h"

#define MB (1024.0 * 1024.0)
#define NS 1000000000LL

/* 2026-12-02 18:12:47.123 UTC: whole milliseconds, as the files keep them. */
static const int64_t when = 1796235167LL * NS + 123000000LL;

/* Large: kept out of the stack. */
static struct frame f;
static struct host_row hr;
static struct gpu_frame gf;

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        return 0;
}

/* ---- reading a file of two records: the header, then one row ---- */

struct readback {
        char text[16384];
        struct csv_reader r;
        char header[CSV_MAX_FIELDS][64];
        unsigned nheader;
        bool checked[CSV_MAX_FIELDS]; /* columns whose value was compared */
};

static struct readback rb;     /* the file under test */
static struct log_row_ctx ctx; /* the report's copies of a row's strings */

/* Read the header of sb's text (r holds it), keeping its names. */
static void read_header(struct readback *b, const struct strbuf *sb)
{
        assert_true(sb->len < sizeof(b->text));
        memcpy(b->text, sb->buf, sb->len);
        assert_int_equal(csv_reader_mem(&b->r, b->text, sb->len), 0);
        assert_int_equal(csv_reader_next(&b->r), 1);
        b->nheader = b->r.nfields;
        for (unsigned i = 0; i < b->nheader; i++) {
                assert_true(b->r.f[i].len < sizeof(b->header[0]));
                memcpy(b->header[i], b->r.f[i].s, b->r.f[i].len);
                b->header[i][b->r.f[i].len] = '\0';
                b->checked[i] = false;
        }
}

/* Then the row. */
static void read_row(struct readback *b)
{
        assert_int_equal(csv_reader_next(&b->r), 1);
        assert_int_equal(b->r.nfields, b->nheader);
}

/* The row's cell of the column named name (which must exist, once), marked checked. */
static const struct csv_field *col(struct readback *b, const char *name)
{
        int at = -1;
        for (unsigned i = 0; i < b->nheader; i++) {
                if (strcmp(b->header[i], name) != 0)
                        continue;
                if (at >= 0)
                        fail_msg("column %s twice", name);
                at = (int)i;
        }
        if (at < 0)
                fail_msg("no column %s", name);
        b->checked[at] = true;
        return &b->r.f[at];
}

static void check_number(struct readback *b, const char *name, double want)
{
        double got = csv_cell_double(col(b, name));
        if (isnan(want) || got != want)
                fail_msg("%s: wrote %.17g, read %.17g", name, want, got);
}

static void check_hex(struct readback *b, const char *name, uint64_t want)
{
        const struct csv_field *c = col(b, name);
        char t[32];
        assert_true(c->len > 2 && c->len < sizeof(t));
        memcpy(t, c->s, c->len);
        t[c->len] = '\0';
        if (strtoull(t, NULL, 16) != want)
                fail_msg("%s: wrote 0x%llx, read %s", name, (unsigned long long)want, t);
}

static void check_text(struct readback *b, const char *name, const char *want)
{
        const struct csv_field *c = col(b, name);
        assert_true(want[0] != '\0');
        if (!csv_cell_is(c, want))
                fail_msg("%s: wrote \"%s\", read \"%.*s\"", name, want, (int)c->len, c->s);
}

static void check_time(struct readback *b, const char *name)
{
        const struct csv_field *c = col(b, name);
        struct tstamp_cache tc = {0};
        double t;
        assert_int_equal(tstamp_parse(&tc, c->s, c->len, &t), 0);
        assert_true(fabs(t - (double)when / NS) < 1e-6);
}

/* Every column of the file was compared with what was written. */
static void check_all_read(const struct readback *b)
{
        for (unsigned i = 0; i < b->nheader; i++)
                if (!b->checked[i])
                        fail_msg("column %s was not read back", b->header[i]);
}

/* ---- the host row ---- */

static struct watch_frame *watch(unsigned i, const char *name, double count, double pss_mb,
                                 double cpu, double threads)
{
        struct watch_frame *w = &f.watches[i];
        snprintf(w->name, sizeof(w->name), "%s", name);
        w->count = count;
        w->pss_bytes = pss_mb * MB;
        w->cpu_pct = cpu;
        w->threads = threads;
        return w;
}

/* A Pi with two cores, the player, Chromium and one watch of its own. Every value is
 * distinct and exact in every format the host row writes (counts whole, the others
 * with a half), so what comes back must equal what went in. */
static void host_frame(void)
{
        struct host_frame *h = &f.host;
        struct rpi_frame *pi = &f.rpi;
        frame_clear(&f);
        h->sampled_real_ns = when;
        h->ncpu = 2;
        h->cpu_pct[0] = 10.5;
        h->cpu_pct[1] = 11.5;
        h->cpu_total_pct = 12.5;
        h->load1 = 1.5;
        h->load5 = 2.5;
        h->load15 = 3.5;
        h->temp_c = 47.5;
        h->nfreq = 1;
        h->cpu_freq_hz[0] = 1200.5e6;
        h->mem_total_bytes = 4000.5 * MB;
        h->mem_used_bytes = 900.5 * MB;
        h->mem_avail_bytes = 3000.5 * MB;
        h->shm_total_bytes = 1900.5 * MB;
        h->shm_used_bytes = 12.5 * MB;
        snprintf(h->governor, sizeof(h->governor), "ondemand");
        pi->present = true;
        pi->volt_core_v = 0.875;
        pi->arm_hz = 1500.5e6;
        pi->core_hz = 500.5e6;
        pi->v3d_hz = 250.5e6;
        pi->pixel_hz = 337.5e6;
        pi->h264_hz = 100.5e6;
        pi->throttled = 0x50005;
        pi->throttled_valid = true;
        f.nwatches = 3;
        struct watch_frame *pl = watch(0, "player", 1, 0, 21.5, 14);
        pl->oldest_age_s = 5231.5;
        pl->first_pss_bytes = 180.5 * MB;
        watch(1, "chromium", 6, 410.5, 30.5, 40);
        watch(2, "kiosk", 2, 81.5, 3.5, 9);
        struct fs_frame *root = &f.storage.fs[FS_ROOT], *log = &f.storage.fs[FS_LOG];
        root->avail_bytes = 5000.5 * MB;
        root->readonly = 0;
        root->full_in_s = 72.5 * 3600;
        log->avail_bytes = 600.5 * MB;
        log->readonly = 1;
        log->full_in_s = 8.5 * 3600;
        for (unsigned k = 0; k < STORAGE_KINDS; k++)
                f.storage.errors[k] = k + 1;
}

static void test_host_round_trip(void **state)
{
        (void)state;
        char buf[16384];
        struct strbuf sb;
        host_frame();
        host_row_build(&hr, &f);
        sb_init_fixed(&sb, buf, sizeof(buf));
        host_row_header(&sb, hr.ncpu, &hr);
        host_row_csv(&sb, &hr, hr.ncpu);
        read_header(&rb, &sb);
        struct log_map m;
        struct watch_acc wa;
        watch_acc_init(&wa, 16);
        assert_int_equal(log_map_header(&rb.r, &m), 0);
        assert_int_equal(m.kind, REPORT_HOST);
        log_map_watches(&rb.r, &m, &wa);
        assert_int_equal(m.nwatch, 1);
        assert_string_equal(wa.w[m.wslot[0]].name, "kiosk");
        read_row(&rb);

        /* Every column, by the writer's name; every column of enum host_col declared by a
         * table (a name, and a numeric value where it holds one). */
        for (unsigned c = 0; c < HC_COUNT; c++) {
                if (!host_col_name(c)[0])
                        fail_msg("host column %u has no name: no table declares it", c);
                switch (host_col_fmt(c)) {
                case HF_TIME:
                        check_time(&rb, host_col_name(c));
                        break;
                case HF_HEX:
                        check_hex(&rb, host_col_name(c), f.rpi.throttled);
                        break;
                case HF_CORES:
                        for (unsigned i = 0; i < hr.ncpu; i++) {
                                char name[32];
                                host_core_col_name(name, sizeof(name), i);
                                check_number(&rb, name, f.host.cpu_pct[i]);
                        }
                        break;
                case HF_TEXT:
                        check_text(&rb, host_col_name(c), "ondemand");
                        break;
                case HF_FLAGS:
                        check_text(&rb, host_col_name(c), hr.throttle_flags);
                        break;
                default:
                        if (!VAL_OK(hr.v[c]))
                                fail_msg("%s has no value in the known frame", host_col_name(c));
                        check_number(&rb, host_col_name(c), hr.v[c]);
                }
        }
        assert_int_equal(hr.nwatch, 1);
        const double wv[WC_COUNT] = {2, 81.5, 3.5, 9};
        for (unsigned k = 0; k < WC_COUNT; k++) {
                char name[64];
                snprintf(name, sizeof(name), "%s%s", hr.w[0].name, watch_col_suffix(k));
                check_number(&rb, name, wv[k]);
        }
        check_all_read(&rb);

        /* The report's row of it: the same values. */
        struct host_acc_row row;
        double wrow[WATCH_ACC_MAX][WC_COUNT];
        memset(&ctx, 0, sizeof(ctx));
        assert_true(log_host_row(&rb.r, &m, &ctx, &row, wrow));
        assert_true(fabs(row.t - (double)when / NS) < 1e-6);
        for (unsigned c = 0; c < HC_COUNT; c++)
                if (host_col_numeric(c) && row.v[c] != hr.v[c])
                        fail_msg("report reads %s as %.17g, wrote %.17g", host_col_name(c),
                                 row.v[c], hr.v[c]);
        assert_string_equal(row.throttle_flags, hr.throttle_flags);
        for (unsigned k = 0; k < WC_COUNT; k++)
                assert_true(wrow[0][k] == wv[k]);
        watch_acc_free(&wa);
        csv_reader_close(&rb.r);
}

/* ---- the GPU row ---- */

#define MEMBER(g, c) ((double *)((char *)(g) + (c)->off))

/* A GPU with two fans whose every column has a value: each GC_FIXED member gets a
 * value of its own, exact at the column's decimals; the rest are set by kind. */
static void gpu_frame_known(struct gpu_frame *g)
{
        size_t gpu_columns_count;
        const struct gpu_column *gpu_columns = gpu_columns_table(&gpu_columns_count);
        assert_non_null(gpu_columns);
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->present = g->ok = g->sampled = true;
        g->sampled_real_ns = when;
        g->nfans = 2;
        for (size_t i = 0; i < gpu_columns_count; i++) {
                const struct gpu_column *c = &gpu_columns[i];
                double v = 10.0 * (double)i + 7 + (c->decimals ? 0.5 : 0);
                if (c->cell == GC_FIXED)
                        *MEMBER(g, c) = v;
                else if (c->cell == GC_MIB)
                        *MEMBER(g, c) = v * MB + 1000; /* whole MiB are written */
                else if (c->cell == GC_PER_FAN)
                        for (unsigned k = 0; k < g->nfans; k++)
                                MEMBER(g, c)[k] = v + k;
        }
        g->temp_max_c = g->temp_c + 33; /* GC_TLIMIT: the margin to it */
        g->throttle_mask = 0x44;
        g->throttle_valid = true;
        snprintf(g->flags, sizeof(g->flags), "FAN_SPIKE|PWR+60W");
}

/* The value the row reads in the column of the report's field f. */
static double value_of(struct readback *b, const char *name)
{
        for (unsigned i = 0; i < b->nheader; i++)
                if (strcmp(b->header[i], name) == 0)
                        return csv_cell_double(&b->r.f[i]);
        fail_msg("no column %s", name);
        return NAN;
}

static void test_gpu_round_trip(void **state)
{
        size_t gpu_columns_count;
        const struct gpu_column *gpu_columns = gpu_columns_table(&gpu_columns_count);
        assert_non_null(gpu_columns);
        (void)state;
        char buf[16384], names[256];
        struct strbuf sb, nb;
        gpu_frame_known(&gf);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_row_header(&sb, gf.nfans);
        gpu_row_csv(&sb, &gf, gf.nfans, NULL);
        read_header(&rb, &sb);
        struct log_map m;
        assert_int_equal(log_map_header(&rb.r, &m), 0);
        assert_int_equal(m.kind, REPORT_GPU);
        read_row(&rb);

        /* Every column of the daily file, by the writer's name. */
        for (size_t i = 0; i < gpu_columns_count; i++) {
                const struct gpu_column *c = &gpu_columns[i];
                char name[64];
                if (!(c->files & GPU_CSV_DAILY))
                        continue;
                switch (c->cell) {
                case GC_TIME:
                        check_time(&rb, c->name);
                        break;
                case GC_FIXED:
                        check_number(&rb, c->name, *MEMBER(&gf, c));
                        break;
                case GC_MIB:
                        check_number(&rb, c->name, floor(*MEMBER(&gf, c) / MB));
                        break;
                case GC_TLIMIT:
                        check_number(&rb, c->name, 33);
                        break;
                case GC_MASK:
                        check_hex(&rb, c->name, gf.throttle_mask);
                        break;
                case GC_MASK_NAMES:
                        sb_init_fixed(&nb, names, sizeof(names));
                        throttle_decode(&nb, gf.throttle_mask);
                        check_text(&rb, c->name, names);
                        break;
                case GC_PER_FAN:
                        for (unsigned k = 0; k < gf.nfans; k++) {
                                snprintf(name, sizeof(name), GPU_COL_FAN_PREFIX "%u%s", k, c->name);
                                check_number(&rb, name, MEMBER(&gf, c)[k]);
                        }
                        break;
                case GC_FLAGS:
                        check_text(&rb, c->name, gf.flags);
                        break;
                }
        }
        check_all_read(&rb);

        /* The report's row of it: each field is its column's value. */
        struct gpu_row row;
        memset(&ctx, 0, sizeof(ctx));
        assert_true(log_gpu_row(&rb.r, &m, &ctx, &row));
        assert_null(row.failure);
        assert_true(fabs(row.t - (double)when / NS) < 1e-6);
        for (unsigned fi = 0; fi < GPU_F_COUNT; fi++) {
                double want = value_of(&rb, gpu_field_name(fi));
                if (isnan(want) || row.v[fi] != want)
                        fail_msg("report reads %s as %.17g, wrote %.17g", gpu_field_name(fi),
                                 row.v[fi], want);
        }
        assert_int_equal(row.nfans, gf.nfans);
        for (unsigned k = 0; k < gf.nfans; k++) {
                assert_true(row.fan_speed_pct[k] == gf.fan_speed_pct[k]);
                assert_true(row.fan_target_pct[k] == gf.fan_target_pct[k]);
        }
        assert_string_equal(row.throttle_reasons, names);
        assert_string_equal(row.flags, gf.flags);
        csv_reader_close(&rb.r);
}

/* ---- the recorded logs ---- */

/* Every column of the recorded file name stands in the header the writer writes now
 * (now), in the same order. */
static void check_keeps_columns(const char *name, const struct strbuf *now)
{
        char dir[PATH_MAX + 32], path[PATH_MAX + 96];
        struct csv_reader r;
        test_csv_fixtures(dir, sizeof(dir));
        assert_true(dir[0] != '\0');
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        read_header(&rb, now);
        assert_int_equal(csv_reader_open(&r, path), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        unsigned at = 0;
        for (unsigned i = 0; i < r.nfields; i++) {
                while (at < rb.nheader && !csv_cell_is(&r.f[i], rb.header[at]))
                        at++;
                if (at == rb.nheader)
                        fail_msg("%s: the writer no longer writes %.*s (or not in order)", name,
                                 (int)r.f[i].len, r.f[i].s);
        }
        csv_reader_close(&r);
        csv_reader_close(&rb.r);
}

static void test_recorded_columns(void **state)
{
        (void)state;
        char buf[8192];
        struct strbuf sb;
        host_frame();
        f.nwatches = 0;
        host_row_build(&hr, &f);
        sb_init_fixed(&sb, buf, sizeof(buf));
        host_row_header(&sb, 8, &hr);
        check_keeps_columns("clean/host-2026-12-03.csv", &sb);
        sb_init_fixed(&sb, buf, sizeof(buf));
        host_row_header(&sb, 4, &hr);
        check_keeps_columns("host-2026-12-02.csv", &sb);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_row_header(&sb, 2);
        check_keeps_columns("gpu0-2026-12-02.csv", &sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_host_round_trip),
            cmocka_unit_test(test_gpu_round_trip),
            cmocka_unit_test(test_recorded_columns),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
