/* SPDX-License-Identifier: Apache-2.0 */
/* Unit test: a GPU whose driver answers "not supported" for every value but the
 * temperature leaves every other output empty, at every cadence (collect/nvml_read.c's
 * every-sample, mid and slow reads, and the samples that carry the cached mid and slow
 * values). Each sample's frame is rendered (the GPU CSV row, which `vigil report` reads
 * back, /metrics and the dashboard's history) beside the same frame with every value
 * row of core/gpu_values.c set missing by the table: the outputs must be identical, and
 * `vigil report` reads nothing but the temperature back from the row. A value the reader
 * leaves at 0 instead of missing (a cache slot it forgot) fails, named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/nvml_lib.h"
#include "collect/nvml_read.h"
#include "core/fields.h"
#include "core/frame_fields.h"
#include "core/history.h"
#include "encode/gpu_row.h"
#include "metrics/metrics.h"
#include "report/csv_read.h"
#include "report/gpu_acc.h"
#include "report/log_read.h"
#include "util/clock.h"
#include "util/strbuf.h"

#define NFANS   2
#define OUT_CAP (256 * 1024)
#define NS      NVML_ERROR_NOT_SUPPORTED

static struct nvmlDevice_st *const dev = (struct nvmlDevice_st *)&dev;

/* The fake driver: the temperature and the fan count answer; everything else is not
 * supported (the field values call answers, each field saying NOT_SUPPORTED). */
static nvmlReturn_t f_temp(nvmlDevice_t d, int s, unsigned *v)
{
        (void)d, (void)s;
        *v = 41;
        return NVML_SUCCESS;
}
static nvmlReturn_t f_numfans(nvmlDevice_t d, unsigned *n)
{
        (void)d;
        *n = NFANS;
        return NVML_SUCCESS;
}
static nvmlReturn_t f_fields(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
        (void)d;
        for (int i = 0; i < n; i++) {
                v[i].nvmlReturn = NS;
                v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                v[i].value.ullVal = 0;
        }
        return NVML_SUCCESS;
}
static nvmlReturn_t ns_u(nvmlDevice_t d, unsigned *v)
{
        (void)d, (void)v;
        return NS;
}
static nvmlReturn_t ns_iu(nvmlDevice_t d, int t, unsigned *v)
{
        (void)d, (void)t, (void)v;
        return NS;
}
static nvmlReturn_t ns_ull(nvmlDevice_t d, unsigned long long *v)
{
        (void)d, (void)v;
        return NS;
}
static nvmlReturn_t ns_int(nvmlDevice_t d, int *v)
{
        (void)d, (void)v;
        return NS;
}
static nvmlReturn_t ns_util(nvmlDevice_t d, nvmlUtilization_t *u)
{
        (void)d, (void)u;
        return NS;
}
static nvmlReturn_t ns_mem2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
        (void)d, (void)m;
        return NS;
}
static nvmlReturn_t ns_mem1(nvmlDevice_t d, nvmlMemory_t *m)
{
        (void)d, (void)m;
        return NS;
}
static nvmlReturn_t ns_fan(nvmlDevice_t d, unsigned fan, unsigned *v)
{
        (void)d, (void)fan, (void)v;
        return NS;
}
static nvmlReturn_t ns_thermal(nvmlDevice_t d, unsigned idx, nvmlGpuThermalSettings_t *t)
{
        (void)d, (void)idx, (void)t;
        return NS;
}
static nvmlReturn_t ns_ecc(nvmlDevice_t d, int type, int counter, unsigned long long *v)
{
        (void)d, (void)type, (void)counter, (void)v;
        return NS;
}
static nvmlReturn_t ns_rows(nvmlDevice_t d, unsigned *c, unsigned *u, unsigned *p, unsigned *f)
{
        (void)d, (void)c, (void)u, (void)p, (void)f;
        return NS;
}

static void fake_lib(struct nvml_lib *lib)
{
        memset(lib, 0, sizeof(*lib));
        lib->temperature = f_temp;
        lib->temperature_threshold = ns_iu;
        lib->power_usage = ns_u;
        lib->power_limit = ns_u;
        lib->enforced_limit = ns_u;
        lib->energy = ns_ull;
        lib->pstate = ns_int;
        lib->clock_info = ns_iu;
        lib->utilization = ns_util;
        lib->memory_v2 = ns_mem2;
        lib->memory_v1 = ns_mem1;
        lib->pcie_gen = ns_u;
        lib->pcie_width = ns_u;
        lib->pcie_replay = ns_u;
        lib->clock_reasons = ns_ull;
        lib->num_fans = f_numfans;
        lib->fan_speed_v2 = ns_fan;
        lib->target_fan_speed = ns_fan;
        lib->thermal_settings = ns_thermal;
        lib->total_ecc = ns_ecc;
        lib->remapped_rows = ns_rows;
        lib->field_values = f_fields;
}

/* g with every value row of gpu_fields[] but the temperature set missing. */
static void all_missing(struct gpu_frame *g)
{
        for (size_t i = 0; i < gpu_fields_count; i++) {
                const struct field_desc *d = &gpu_fields[i];
                char *p = (char *)g + d->off;
                if (d->kind == FK_DOUBLE && strcmp(d->name, "temp_c"))
                        for (size_t k = 0; k < d->size / sizeof(double); k++)
                                memcpy(p + k * sizeof(double), &(double){VAL_MISSING},
                                       sizeof(double));
                else if (d->kind == FK_VALIDATED) {
                        memset(p, 0, d->size);
                        *((bool *)((char *)g + d->valid_off)) = false;
                }
        }
}

/* The outputs of a frame holding g: the GPU's CSV row and /metrics into out, and the
 * dashboard history's GPU values of one record into hist[]. */
static size_t render(struct frame *f, const struct gpu_frame *g, char *out, double *hist)
{
        struct strbuf sb;
        frame_clear(f);
        f->ngpus = 1;
        f->gpus[0] = *g;
        sb_init_fixed(&sb, out, OUT_CAP);
        gpu_row_csv(&sb, g, g->nfans, NULL);
        assert_int_equal(metrics_render(&sb, f, NULL), 0);
        assert_false(sb.overflow);
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        assert_non_null(h);
        struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
                         .mono_ns = NSEC_PER_SEC,
                         .real_ns = 1700000000LL * NSEC_PER_SEC};
        history_push(h, f, &t);
        assert_int_equal(history_count(h), 1);
        for (unsigned k = 0; k < HG_COUNT; k++)
                hist[k] = history_gpu(h, 0, 0, k);
        hist[HG_COUNT] = history_gpu_fan(h, 0, 0, 0);
        hist[HG_COUNT + 1] = history_gpu_mask(h, 0, 0);
        history_free(h);
        return sb.len;
}

/* What `vigil report` reads back from g's daily CSV row: every summarised field but the
 * temperature missing, and every fan's. */
static void report_reads_nothing(const struct gpu_frame *g)
{
        static char text[OUT_CAP];
        static struct csv_reader r;
        static struct log_row_ctx ctx;
        struct strbuf sb;
        struct log_map m;
        struct gpu_row row;
        sb_init_fixed(&sb, text, sizeof(text));
        gpu_row_header(&sb, g->nfans);
        gpu_row_csv(&sb, g, g->nfans, NULL);
        assert_int_equal(csv_reader_mem(&r, text, sb.len), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        assert_int_equal(log_map_header(&r, &m), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        memset(&ctx, 0, sizeof(ctx));
        assert_true(log_gpu_row(&r, &m, &ctx, &row));
        for (unsigned f = 0; f < GPU_F_COUNT; f++)
                if (f != GPU_F_TEMP && !isnan(row.v[f])) {
                        print_error("report reads %s as %g\n", gpu_field_name(f), row.v[f]);
                        fail();
                }
        assert_true(row.v[GPU_F_TEMP] == 41);
        for (unsigned k = 0; k < row.nfans && k < GPU_ACC_MAX_FANS; k++)
                assert_true(isnan(row.fan_speed_pct[k]) && isnan(row.fan_target_pct[k]));
        csv_reader_close(&r);
}

static struct frame fa, fb;
static char out_a[OUT_CAP], out_b[OUT_CAP];

/* One sample of gpu reading what; every output as if every value but the temperature
 * were missing. */
static void sample_and_check(const struct nvml_lib *lib, struct nvml_gpu *gpu, unsigned what)
{
        struct gpu_frame g, want;
        struct nvml_read_result res;
        nvmlReturn_t err;
        memset(&g, 0, sizeof(g));
        gpu_frame_clear(&g);
        g.present = g.ok = true;
        g.nfans = NFANS;
        g.sampled_real_ns = 1700000000LL * NSEC_PER_SEC;
        snprintf(g.uuid, sizeof(g.uuid), "GPU-0");
        nvml_read_sample(lib, gpu, &g, what, &res);
        assert_false(nvml_read_failed(&res, &err));
        assert_true(g.temp_c == 41);
        for (size_t i = 0; i < gpu_fields_count; i++) {
                const struct field_desc *d = &gpu_fields[i];
                bool value = d->kind == FK_DOUBLE || d->kind == FK_VALIDATED;
                if (value && strcmp(d->name, "temp_c") && !field_missing(&g, d)) {
                        print_error("%s: not missing after a sample (what %u)\n", d->name, what);
                        fail();
                }
        }
        want = g;
        all_missing(&want);
        double ha[HG_COUNT + 2], hb[HG_COUNT + 2];
        size_t na = render(&fa, &g, out_a, ha);
        size_t nb = render(&fb, &want, out_b, hb);
        assert_int_equal(na, nb);
        assert_memory_equal(out_a, out_b, na);
        for (unsigned k = 0; k < HG_COUNT + 2; k++)
                assert_true(ha[k] == hb[k] || (isnan(ha[k]) && isnan(hb[k])));
        report_reads_nothing(&g);
}

static void unsupported_values_are_empty_everywhere(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        fake_lib(&lib);
        memset(&gpu, 0, sizeof(gpu));
        gpu.handle = dev;
        assert_int_equal(nvml_read_identity(&lib, &gpu), NVML_SUCCESS);
        assert_int_equal(gpu.nfans, NFANS);
        /* The first sample reads every cadence; then samples between the cadences, mid
         * ones, slow ones, before and after each field is retired and re-probed. */
        static const unsigned order[] = {NVML_READ_SLOW,
                                         0,
                                         0,
                                         NVML_READ_MID,
                                         0,
                                         NVML_READ_MID,
                                         0,
                                         NVML_READ_SLOW,
                                         0,
                                         NVML_READ_SLOW,
                                         NVML_READ_MID,
                                         0};
        for (unsigned round = 0; round < 2; round++) {
                for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
                        sample_and_check(&lib, &gpu, order[i]);
                nvml_read_reprobe(&gpu);
        }
}

/* The same before the first mid and slow reads: a sample that reads neither. */
static void unsupported_before_first_cached_read(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        fake_lib(&lib);
        memset(&gpu, 0, sizeof(gpu));
        gpu.handle = dev;
        assert_int_equal(nvml_read_identity(&lib, &gpu), NVML_SUCCESS);
        sample_and_check(&lib, &gpu, 0);
        sample_and_check(&lib, &gpu, NVML_READ_MID);
        sample_and_check(&lib, &gpu, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(unsupported_values_are_empty_everywhere),
            cmocka_unit_test(unsupported_before_first_cached_read),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
