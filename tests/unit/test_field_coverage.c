/* SPDX-License-Identifier: Apache-2.0 */
/* Unit test: every measured value of the frame reaches an output. Each double and each
 * validated integer of the frame's field tables (core/frame_fields.h, nested tables
 * included) is set alone on a frame whose other values are missing; the test renders
 * the CSV rows (encode/host_row_csv.c, encode/gpu_row.c) and /metrics (metrics/metrics.c, which
 * renders the tables' metric slots) and fails for a value that changes none of them,
 * unless the value is on the commented list of internal values below. An internal
 * value that is rendered fails too, so the list stays true. The metric slots are also
 * checked: a series is a double member, a code-rendered family has a render function
 * of its own and names members that exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/fields.h"
#include "core/frame.h"
#include "core/frame_fields.h"
#include "encode/gpu_row.h"
#include "core/host_row.h"
#include "core/metric_defs.h"
#include "encode/host_row_csv.h"
#include "metrics/metrics.h"
#include "util/strbuf.h"

/* Values that no CSV column or metric renders, on purpose: each says who reads it. A
 * value added to a field table goes to a CSV column or a metric, or here with a reason. */
static const struct {
        const char *area, *member;
} internal[] = {
    /* jobs the V3D queue has run since boot (collect/rpi.c): nothing reads it yet; a
     * counter family for it would change /metrics, which this list keeps as it is */
    {"rpi.v3d", "jobs"},
    /* storage errors of this sample: the storage rules' trigger (detect/storage_rules.c);
     * the running total is the CSV column and the metric */
    {"storage", "errors_new"},
    /* the GPU's static thresholds: crash snapshots (detect/gpu_snapshot.c) and the
     * dashboard's temperature chart (web/dashboard_gpu.c) */
    {"gpu", "shutdown_temp_c"},
    {"gpu", "slowdown_temp_c"},
    /* Dirty + Writeback from the host sample: the logs' sync round's choice between one
     * syncfs and an fdatasync per file (daemon/daemon.c note_unwritten) */
    {"host", "unwritten_bytes"},
};

#define MAX_OBJS 64
#define OUT_CAP  (256 * 1024)

/* The outputs that render a value. */
#define BY_CSV    1u
#define BY_METRIC 2u

static struct frame base, probe;
static char base_csv[OUT_CAP], base_prom[OUT_CAP], csv[OUT_CAP], prom[OUT_CAP];
static size_t base_csv_len, base_prom_len;
static unsigned failures;

/* A frame with every value missing and every list present: three watches (the
 * reference's two and one of vigil's), a Pi with a V3D queue, a GPU with two fans, an
 * SD card, a screen connector and a network interface. */
static void build_base(struct frame *f)
{
        static const char *const watches[] = {"player", "chromium", "web"};
        frame_clear(f);
        f->host.ncpu = 2;
        f->host.nfreq = 2;
        f->nwatches = 3;
        for (unsigned i = 0; i < 3; i++)
                snprintf(f->watches[i].name, sizeof(f->watches[i].name), "%s", watches[i]);
        f->rpi.present = true;
        f->rpi.nv3d = 1;
        snprintf(f->rpi.v3d[0].queue, sizeof(f->rpi.v3d[0].queue), "bin");
        f->ngpus = 1;
        struct gpu_frame *g = &f->gpus[0];
        g->present = true;
        g->ok = true;
        g->nfans = 2;
        g->nvlinks = 2;
        snprintf(g->uuid, sizeof(g->uuid), "GPU-0");
        snprintf(g->name, sizeof(g->name), "sim");
        snprintf(f->storage.sd.device, sizeof(f->storage.sd.device), "mmcblk0");
        f->display.nconn = 1;
        snprintf(f->display.conn[0].card, sizeof(f->display.conn[0].card), "card1");
        snprintf(f->display.conn[0].name, sizeof(f->display.conn[0].name), "HDMI-A-1");
        f->net.nif = 1;
        snprintf(f->net.ifs[0].name, sizeof(f->net.ifs[0].name), "wlan0");
}

/* The CSV rows and the /metrics text of f, into their buffers; their lengths. */
static void render(const struct frame *f, char *c, size_t *clen, char *p, size_t *plen)
{
        static struct host_row row;
        struct strbuf sb;
        sb_init_fixed(&sb, c, OUT_CAP);
        host_row_build(&row, f);
        host_row_csv(&sb, &row, f->host.ncpu);
        gpu_row_csv(&sb, &f->gpus[0], f->gpus[0].nfans, NULL);
        assert_false(sb.overflow);
        *clen = sb.len;
        sb_init_fixed(&sb, p, OUT_CAP);
        assert_int_equal(metrics_render(&sb, f, NULL), 0);
        *plen = sb.len;
}

/* Set field d at each base offset of objs (into probe): doubles 3 (every element),
 * validated integers 5 and their flag. */
static void set_value(const struct field_desc *d, const size_t *objs, unsigned nobjs)
{
        for (unsigned i = 0; i < nobjs; i++) {
                char *p = (char *)&probe + objs[i] + d->off;
                if (d->kind == FK_DOUBLE) {
                        for (size_t k = 0; k < d->size / sizeof(double); k++) {
                                double v = 3;
                                memcpy(p + k * sizeof(v), &v, sizeof(v));
                        }
                } else {
                        uint64_t v64 = 5;
                        unsigned v32 = 5;
                        if (d->size == sizeof(v64))
                                memcpy(p, &v64, sizeof(v64));
                        else
                                memcpy(p, &v32, sizeof(v32));
                        *((char *)&probe + objs[i] + d->valid_off) = 1;
                }
        }
}

static bool is_internal(const char *area, const char *member)
{
        for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
                if (!strcmp(internal[i].area, area) && !strcmp(internal[i].member, member))
                        return true;
        return false;
}

/* Which outputs change when field d (of every object at objs) is set. */
static unsigned rendered_by(const struct field_desc *d, const size_t *objs, unsigned nobjs)
{
        size_t clen, plen;
        unsigned by = 0;
        memcpy(&probe, &base, sizeof(probe));
        set_value(d, objs, nobjs);
        render(&probe, csv, &clen, prom, &plen);
        if (clen != base_csv_len || memcmp(csv, base_csv, clen))
                by |= BY_CSV;
        if (plen != base_prom_len || memcmp(prom, base_prom, plen))
                by |= BY_METRIC;
        return by;
}

/* Every value of table t[0..n) of the objects at frame offsets objs[0..nobjs), nested
 * tables walked for every element; name is the path so far ("rpi", "rpi.v3d"). */
static void walk(const char *name, const struct field_desc *t, size_t n, const size_t *objs,
                 unsigned nobjs)
{
        for (size_t i = 0; i < n; i++) {
                const struct field_desc *d = &t[i];
                if (d->kind == FK_STRUCT) {
                        size_t sub[MAX_OBJS];
                        unsigned nsub = 0;
                        for (unsigned o = 0; o < nobjs; o++)
                                for (size_t e = 0; e < d->size / d->elem && nsub < MAX_OBJS; e++)
                                        sub[nsub++] = objs[o] + d->off + e * d->elem;
                        char path[64];
                        snprintf(path, sizeof(path), "%s.%s", name, d->name);
                        walk(path, d->sub, *d->nsub, sub, nsub);
                        continue;
                }
                if (d->kind != FK_DOUBLE && d->kind != FK_VALIDATED)
                        continue;
                unsigned by = rendered_by(d, objs, nobjs);
                bool internal_value = is_internal(name, d->name);
                if (!by && !internal_value) {
                        print_error("%s.%s: no CSV column or metric renders it\n", name, d->name);
                        failures++;
                } else if (by && internal_value) {
                        print_error("%s.%s: on the internal list, but rendered (%s%s)\n", name,
                                    d->name, by & BY_CSV ? "CSV " : "",
                                    by & BY_METRIC ? "metric" : "");
                        failures++;
                }
        }
}

static void every_value_is_rendered(void **state)
{
        (void)state;
        size_t one[1];
        size_t watches[3];
        build_base(&base);
        render(&base, base_csv, &base_csv_len, base_prom, &base_prom_len);
        failures = 0;
        one[0] = offsetof(struct frame, host);
        walk("host", host_fields, host_fields_count, one, 1);
        for (unsigned i = 0; i < 3; i++)
                watches[i] = offsetof(struct frame, watches) + i * sizeof(struct watch_frame);
        walk("watch", watch_fields, watch_fields_count, watches, 3);
        one[0] = offsetof(struct frame, rpi);
        walk("rpi", rpi_fields, rpi_fields_count, one, 1);
        one[0] = offsetof(struct frame, storage);
        walk("storage", storage_fields, storage_fields_count, one, 1);
        one[0] = offsetof(struct frame, display);
        walk("display", display_fields, display_fields_count, one, 1);
        one[0] = offsetof(struct frame, net);
        walk("net", net_fields, net_fields_count, one, 1);
        one[0] = offsetof(struct frame, gpus);
        walk("gpu", gpu_fields, gpu_fields_count, one, 1);
        assert_int_equal(failures, 0);
}

static const struct field_desc *find_field(const struct field_desc *t, size_t n, const char *name,
                                           size_t len)
{
        for (size_t i = 0; i < n; i++)
                if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
                        return &t[i];
        return NULL;
}

/* A code row's space-separated member names, up to a "(" (a note), are members of the
 * struct t describes. */
static void check_members(const struct metric_def *d, const struct field_desc *t, size_t n)
{
        for (const char *w = d->member ? d->member : ""; *w && *w != '(';) {
                size_t len = strcspn(w, " ");
                if (!find_field(t, n, w, len)) {
                        print_error("%s: no member %.*s\n", d->name, (int)len, w);
                        fail();
                }
                w += len;
                w += strspn(w, " ");
        }
}

/* The metric slots of table t[0..n): a series is a double; a code row has a render
 * function of its own (each code once over all tables, in seen) and names members of
 * the struct; no name-less series before the table's first family. */
static void check_metrics(const struct field_desc *t, size_t n, bool *seen)
{
        bool family = false;
        for (size_t i = 0; i < n; i++) {
                const struct field_desc *f = &t[i];
                const struct metric_def *d = &f->metric;
                if (d->row == MR_SERIES) {
                        assert_int_equal(f->kind, FK_DOUBLE);
                        assert_true(d->name || family);
                        family = true;
                } else if (d->row == MR_CODE) {
                        assert_non_null(d->name);
                        assert_true(d->code > MC_NONE && d->code < MC_COUNT);
                        assert_false(seen[d->code]);
                        seen[d->code] = true;
                        family = true;
                        check_members(d, t, n);
                }
        }
}

static void metric_tables_name_members(void **state)
{
        bool seen[MC_COUNT] = {false};
        (void)state;
        assert_true(metrics_code_complete());
        check_metrics(host_fields, host_fields_count, seen);
        check_metrics(watch_fields, watch_fields_count, seen);
        check_metrics(rpi_fields, rpi_fields_count, seen);
        check_metrics(fs_fields, fs_fields_count, seen);
        check_metrics(storage_fields, storage_fields_count, seen);
        check_metrics(sd_fields, sd_fields_count, seen);
        check_metrics(display_conn_fields, display_conn_fields_count, seen);
        check_metrics(display_fields, display_fields_count, seen);
        check_metrics(net_if_fields, net_if_fields_count, seen);
        check_metrics(net_fields, net_fields_count, seen);
        check_metrics(gpu_fields, gpu_fields_count, seen);
        for (unsigned c = MC_NONE + 1; c < MC_COUNT; c++)
                assert_true(seen[c]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(every_value_is_rendered),
            cmocka_unit_test(metric_tables_name_members),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
