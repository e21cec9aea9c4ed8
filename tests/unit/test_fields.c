/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the frame's field tables (core/fields.c, core/frame_fields.h) and the GPU
 * columns: a cleared frame has every value missing, identity survives, the tables cover
 * the structs, the GPU header round-trips through its table, and vigil report reads
 * only GPU columns that are written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resident.h"
#include "core/counters.h"
#include "core/fields.h"
#include "core/frame.h"
#include "encode/gpu_columns.h"
#include "report/gpu_acc.h"
#include "core/frame_fields.h"

#define GARBAGE 0x5a

static bool all_bytes(const void *p, size_t n, unsigned char b)
{
        const unsigned char *c = p;
        for (size_t i = 0; i < n; i++)
                if (c[i] != b)
                        return false;
        return true;
}

/* Every entry of t, in member order, inside a struct of size bytes, none overlapping,
 * names unique; the gaps between them no wider than one member's alignment (8). */
static void check_layout(const struct field_desc *t, size_t n, size_t size)
{
        size_t end = 0;
        for (size_t i = 0; i < n; i++) {
                if (t[i].kind == FK_NONE) /* no member: an output's row */
                        continue;
                assert_true(t[i].off >= end);
                assert_true(t[i].off - end < 8);
                assert_true(t[i].size > 0);
                end = t[i].off + t[i].size;
                for (size_t k = 0; k < i; k++)
                        assert_string_not_equal(t[i].name, t[k].name);
                if (t[i].kind == FK_DOUBLE)
                        assert_int_equal(t[i].size % sizeof(double), 0);
        }
        assert_true(end <= size);
        assert_true(size - end < 8);
}

/* Garbage in, cleared: every value missing, every FK_KEEP field as it was. */
static void check_cleared(const struct field_desc *t, size_t n, const void *base)
{
        for (size_t i = 0; i < n; i++) {
                const unsigned char *p = (const unsigned char *)base + t[i].off;
                if (t[i].kind == FK_NONE)
                        continue;
                if (t[i].kind == FK_KEEP) {
                        assert_true(all_bytes(p, t[i].size, GARBAGE));
                        continue;
                }
                if (!field_missing(base, &t[i]))
                        fail_msg("%s is not missing after clearing", t[i].name);
                if (t[i].kind == FK_VALIDATED)
                        assert_true(all_bytes(p, t[i].size, 0));
        }
}

static const struct field_desc *find(const struct field_desc *t, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(t[i].name, name))
                        return &t[i];
        fail_msg("no field %s", name);
        return NULL;
}

static void test_gpu_layout(void **state)
{
        (void)state;
        check_layout(gpu_fields, gpu_fields_count, sizeof(struct gpu_frame));
        assert_int_equal(find(gpu_fields, gpu_fields_count, "fan_speed_pct")->size,
                         VIGIL_MAX_FANS * sizeof(double));
        const struct field_desc *mask = find(gpu_fields, gpu_fields_count, "throttle_mask");
        assert_int_equal(mask->kind, FK_VALIDATED);
        assert_int_equal(mask->valid_off, offsetof(struct gpu_frame, throttle_valid));
}

static void test_gpu_cleared(void **state)
{
        (void)state;
        struct gpu_frame g;
        memset(&g, GARBAGE, sizeof(g));
        gpu_frame_clear(&g);
        check_cleared(gpu_fields, gpu_fields_count, &g);
        assert_true(isnan(g.temp_c) && isnan(g.fan_target_pct[VIGIL_MAX_FANS - 1]));
        assert_false(g.throttle_valid || g.recovery_valid || g.ok || g.sampled);
        assert_int_equal(g.flags[0], '\0');
        assert_int_equal(g.error[0], '\0');
}

/* A value that reads 0 after clearing is found: the check can fail. */
static void test_gpu_zero_found(void **state)
{
        (void)state;
        struct gpu_frame g;
        memset(&g, GARBAGE, sizeof(g));
        gpu_frame_clear(&g);
        g.fan_speed_pct[3] = 0;
        assert_false(field_missing(&g, find(gpu_fields, gpu_fields_count, "fan_speed_pct")));
        g.throttle_valid = true;
        assert_false(field_missing(&g, find(gpu_fields, gpu_fields_count, "throttle_mask")));
        g.flags[0] = 'X';
        assert_false(field_missing(&g, find(gpu_fields, gpu_fields_count, "flags")));
}

/* The whole frame: every GPU slot cleared, identity zero (memset) in a fresh frame. */
static void test_frame_clear(void **state)
{
        (void)state;
        static struct frame f;
        memset(&f, GARBAGE, sizeof(f));
        frame_clear(&f);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                for (size_t k = 0; k < gpu_fields_count; k++) {
                        const struct field_desc *d = &gpu_fields[k];
                        if (d->kind == FK_KEEP)
                                assert_true(all_bytes((char *)&f.gpus[i] + d->off, d->size, 0));
                        else
                                assert_true(field_missing(&f.gpus[i], d));
                }
        }
}

static void test_gpu_identity(void **state)
{
        (void)state;
        struct gpu_frame a, b;
        memset(&a, GARBAGE, sizeof(a));
        memset(&b, 0, sizeof(b));
        gpu_frame_copy_identity(&b, &a);
        for (size_t k = 0; k < gpu_fields_count; k++) {
                const struct field_desc *d = &gpu_fields[k];
                const void *p = (const char *)&b + d->off;
                assert_true(all_bytes(p, d->size, d->kind == FK_KEEP ? GARBAGE : 0));
        }
}

/* The column a header name stands for: a plain name, or "fanK" and a GC_PER_FAN name. */
static const struct gpu_column *column_named(const char *name, enum gpu_csv_file file)
{
        size_t gpu_columns_count;
        const struct gpu_column *gpu_columns = gpu_columns_table(&gpu_columns_count);
        assert_non_null(gpu_columns);
        for (size_t i = 0; i < gpu_columns_count; i++) {
                const struct gpu_column *c = &gpu_columns[i];
                const char *n = name;
                if (!(c->files & file))
                        continue;
                if (c->cell == GC_PER_FAN) {
                        if (strncmp(n, "fan", 3))
                                continue;
                        n += 3;
                        while (*n >= '0' && *n <= '9')
                                n++;
                }
                if (!strcmp(n, c->name))
                        return c;
        }
        return NULL;
}

/* Header -> table -> header: every name of a file's header is one column of the table,
 * named once, and writing the columns found gives the header back. */
static void test_gpu_header_round_trip(void **state)
{
        (void)state;
        const enum gpu_csv_file files[] = {GPU_CSV_DAILY, GPU_CSV_RECORDER};
        for (size_t f = 0; f < 2; f++) {
                for (unsigned nfans = 0; nfans <= 3; nfans++) {
                        char head[2048], back[2048], name[64];
                        struct strbuf sb, sb2;
                        sb_init_fixed(&sb, head, sizeof(head));
                        gpu_csv_header(&sb, files[f], nfans);
                        sb_init_fixed(&sb2, back, sizeof(back));
                        unsigned n = 0;
                        for (const char *p = head; *p && *p != '\n'; n++) {
                                size_t len = strcspn(p, ",\n");
                                assert_true(len > 0 && len < sizeof(name));
                                memcpy(name, p, len);
                                name[len] = '\0';
                                const struct gpu_column *c = column_named(name, files[f]);
                                if (!c)
                                        fail_msg("header column %s is not in the table", name);
                                if (c->cell == GC_PER_FAN)
                                        sb_printf(&sb2, "%sfan%lu%s", n ? "," : "",
                                                  strtoul(name + 3, NULL, 10), c->name);
                                else
                                        sb_printf(&sb2, "%s%s", n ? "," : "", c->name);
                                p += len + (p[len] == ',');
                        }
                        sb_putc(&sb2, '\n');
                        assert_string_equal(back, head);
                        assert_int_equal(n, gpu_csv_columns(files[f], nfans));
                }
        }
}

/* Each position from 0 to the last is one column (core/gpu_values.c numbers them: a
 * number left out would be a hole the writer meets), and each column writes a member of
 * struct gpu_frame the field table holds, of its type. */
static void test_gpu_columns_in_fields(void **state)
{
        size_t gpu_columns_count;
        const struct gpu_column *gpu_columns = gpu_columns_table(&gpu_columns_count);
        assert_non_null(gpu_columns);
        (void)state;
        for (size_t i = 0; i < gpu_columns_count; i++) {
                const struct gpu_column *c = &gpu_columns[i];
                const struct field_desc *d = NULL;
                if (!c->name)
                        fail_msg("no GPU column at position %zu", i);
                for (size_t k = 0; k < gpu_fields_count; k++)
                        if (gpu_fields[k].off == c->off)
                                d = &gpu_fields[k];
                assert_non_null(d);
                if (c->cell == GC_FIXED || c->cell == GC_MIB || c->cell == GC_PER_FAN ||
                    c->cell == GC_TLIMIT)
                        assert_int_equal(d->kind, FK_DOUBLE);
                if (c->cell == GC_PER_FAN)
                        assert_int_equal(d->size, VIGIL_MAX_FANS * sizeof(double));
                if (c->cell == GC_MASK || c->cell == GC_MASK_NAMES) {
                        assert_int_equal(d->kind, FK_VALIDATED);
                        assert_int_equal(c->valid_off, d->valid_off);
                }
                if (c->cell == GC_FLAGS)
                        assert_int_equal(d->kind, FK_STRING);
        }
}

static void test_host_watch_layout(void **state)
{
        (void)state;
        check_layout(host_fields, host_fields_count, sizeof(struct host_frame));
        check_layout(watch_fields, watch_fields_count, sizeof(struct watch_frame));
        assert_int_equal(find(host_fields, host_fields_count, "cpu_freq_hz")->size,
                         VIGIL_MAX_CPUS * sizeof(double));
}

static void test_host_cleared(void **state)
{
        (void)state;
        static struct host_frame h;
        memset(&h, GARBAGE, sizeof(h));
        host_frame_clear(&h);
        check_cleared(host_fields, host_fields_count, &h);
        assert_true(isnan(h.cpu_pct[VIGIL_MAX_CPUS - 1]) && isnan(h.shm_avail_bytes));
        assert_int_equal(h.ntemps, 0);
        h.load5 = 0;
        assert_false(field_missing(&h, find(host_fields, host_fields_count, "load5")));
}

static void test_watch_cleared(void **state)
{
        (void)state;
        struct watch_frame w;
        memset(&w, GARBAGE, sizeof(w));
        watch_frame_clear(&w);
        check_cleared(watch_fields, watch_fields_count, &w);
        assert_true(isnan(w.first_pss_bytes));
}

/* frame_clear: every area's every value missing. */
static void test_frame_clear_areas(void **state)
{
        (void)state;
        static struct frame f;
        memset(&f, GARBAGE, sizeof(f));
        frame_clear(&f);
        for (size_t k = 0; k < host_fields_count; k++)
                assert_true(field_missing(&f.host, &host_fields[k]));
        for (size_t k = 0; k < rpi_fields_count; k++)
                assert_true(field_missing(&f.rpi, &rpi_fields[k]));
        for (size_t k = 0; k < storage_fields_count; k++)
                assert_true(field_missing(&f.storage, &storage_fields[k]));
        for (unsigned i = 0; i < VIGIL_MAX_WATCHES; i++)
                for (size_t k = 0; k < watch_fields_count; k++)
                        if (watch_fields[k].kind != FK_KEEP)
                                assert_true(field_missing(&f.watches[i], &watch_fields[k]));
}

static void test_rpi_storage_layout(void **state)
{
        (void)state;
        check_layout(rpi_fields, rpi_fields_count, sizeof(struct rpi_frame));
        check_layout(rpi_v3d_fields, rpi_v3d_fields_count, sizeof(struct rpi_v3d_queue));
        check_layout(storage_fields, storage_fields_count, sizeof(struct storage_frame));
        check_layout(fs_fields, fs_fields_count, sizeof(struct fs_frame));
        const struct field_desc *fs = find(storage_fields, storage_fields_count, "fs");
        assert_int_equal(fs->kind, FK_STRUCT);
        assert_int_equal(fs->size, FS_COUNT * fs->elem);
}

static void test_rpi_storage_cleared(void **state)
{
        (void)state;
        struct rpi_frame r;
        struct storage_frame st;
        memset(&r, GARBAGE, sizeof(r));
        memset(&st, GARBAGE, sizeof(st));
        rpi_frame_clear(&r);
        storage_frame_clear(&st);
        check_cleared(rpi_fields, rpi_fields_count, &r);
        check_cleared(storage_fields, storage_fields_count, &st);
        assert_true(isnan(r.v3d[VIGIL_V3D_QUEUES - 1].jobs) && !r.throttled_valid);
        assert_true(isnan(st.fs[FS_COUNT - 1].full_in_s) && st.fs[0].mount[0] == '\0');
        /* A nested value left at 0 is found. */
        st.fs[1].readonly = 0;
        assert_false(field_missing(&st, find(storage_fields, storage_fields_count, "fs")));
        r.v3d[2].busy_ratio = 0;
        assert_false(field_missing(&r, find(rpi_fields, rpi_fields_count, "v3d")));
}

/* vigil report reads the GPU columns by the writer's names (report/gpu_acc.c finds them by
 * member in core/gpu_values.c): each one it reads is a column the daily file writes. */
static void test_report_reads_written_columns(void **state)
{
        (void)state;
        for (unsigned f = 0; f < GPU_F_COUNT; f++) {
                const struct gpu_column *c = column_named(gpu_field_name(f), GPU_CSV_DAILY);
                if (!c || c->cell == GC_PER_FAN)
                        fail_msg("report reads %s, no GPU column", gpu_field_name(f));
        }
}

static void fill_bytes(void *p, size_t n, unsigned seed)
{
        unsigned char *b = p;
        for (size_t i = 0; i < n; i++)
                b[i] = (unsigned char)(i * 31u + seed);
}

/* fields_clear copies an image made once by the walk of the table (fields_clear_walk):
 * the same bytes, every table, from any prior content, nested tables' kept fields
 * included; the kept and cadence copies move the bytes the rows name and no other. */
static void test_clear_plan_is_the_walk(void **state)
{
        (void)state;
        static const struct {
                const struct field_desc *t;
                const size_t *n;
                size_t size;
        } tabs[] = {
            {gpu_fields, &gpu_fields_count, sizeof(struct gpu_frame)},
            {host_fields, &host_fields_count, sizeof(struct host_frame)},
            {watch_fields, &watch_fields_count, sizeof(struct watch_frame)},
            {rpi_fields, &rpi_fields_count, sizeof(struct rpi_frame)},
            {storage_fields, &storage_fields_count, sizeof(struct storage_frame)},
            {display_fields, &display_fields_count, sizeof(struct display_frame)},
            {net_fields, &net_fields_count, sizeof(struct net_frame)},
        };
        for (size_t k = 0; k < sizeof(tabs) / sizeof(tabs[0]); k++) {
                size_t size = tabs[k].size;
                unsigned char *a = malloc(size), *b = malloc(size), *want = malloc(size);
                assert_non_null(a);
                assert_non_null(b);
                assert_non_null(want);
                for (unsigned seed = 1; seed <= 3; seed++) {
                        fill_bytes(a, size, seed);
                        memcpy(b, a, size);
                        fields_clear(a, size, tabs[k].t, *tabs[k].n);
                        fields_clear_walk(b, size, tabs[k].t, *tabs[k].n);
                        assert_memory_equal(a, b, size);
                }
                for (int c = -1; c <= FC_SLOW; c++) {
                        fill_bytes(a, size, 7);
                        fill_bytes(b, size, 9);
                        memcpy(want, b, size);
                        for (size_t i = 0; i < *tabs[k].n; i++) {
                                const struct field_desc *d = &tabs[k].t[i];
                                if (c < 0 ? d->kind == FK_KEEP : (int)d->cadence == c)
                                        memcpy(want + d->off, a + d->off, d->size);
                        }
                        if (c < 0)
                                fields_copy_kept(b, a, tabs[k].t, *tabs[k].n);
                        else
                                fields_copy_cadence(b, a, tabs[k].t, *tabs[k].n,
                                                    (enum field_cadence)c);
                        assert_memory_equal(b, want, size);
                }
                free(a);
                free(b);
                free(want);
        }
}

/* The live copy: every byte but the GPU slots past src's GPUs; dst's slots of GPUs src
 * no longer has are zeroed, the rest of dst's slots untouched; the process lists only
 * when asked. */
static void test_frame_copy_live(void **state)
{
        (void)state;
        struct frame *src = malloc(sizeof(*src)), *dst = malloc(sizeof(*dst));
        struct frame *want = malloc(sizeof(*want));
        const size_t g = sizeof(dst->gpus[0]), st = sizeof(dst->gpu_stats[0]),
                     pr = sizeof(dst->gpu_procs[0]);
        assert_non_null(src);
        assert_non_null(dst);
        assert_non_null(want);
        fill_bytes(src, sizeof(*src), 1);
        fill_bytes(dst, sizeof(*dst), 2);
        src->ngpus = 3;
        dst->ngpus = 5;
        memcpy(want, dst, sizeof(*want));
        memcpy(want, src, offsetof(struct frame, gpus));
        memcpy(want->gpus, src->gpus, 3 * g);
        memset(&want->gpus[3], 0, 2 * g);
        memcpy(want->gpu_stats, src->gpu_stats, 3 * st);
        memset(&want->gpu_stats[3], 0, 2 * st);
        memcpy(&want->self, &src->self,
               offsetof(struct frame, gpu_procs) - offsetof(struct frame, self));
        memcpy(want->gpu_procs, src->gpu_procs, 3 * pr);
        memset(&want->gpu_procs[3], 0, 2 * pr);
        frame_copy_live(dst, src, true);
        assert_memory_equal(dst, want, sizeof(*dst));

        fill_bytes(src, sizeof(*src), 3);
        src->ngpus = 3;
        memcpy(want, dst, sizeof(*want));
        memcpy(want, src, offsetof(struct frame, gpus));
        memcpy(want->gpus, src->gpus, 3 * g);
        memcpy(want->gpu_stats, src->gpu_stats, 3 * st);
        memcpy(&want->self, &src->self,
               offsetof(struct frame, gpu_procs) - offsetof(struct frame, self));
        frame_copy_live(dst, src, false);
        assert_memory_equal(dst, want, sizeof(*dst));
        free(want);
        free(dst);
        free(src);
}

/* frame_init: the values of a zeroed frame missing, its GPU slots left zero. */
static void test_frame_init(void **state)
{
        (void)state;
        struct frame *f = calloc(1, sizeof(*f)), *want = malloc(sizeof(*want));
        assert_non_null(f);
        assert_non_null(want);
        frame_clear(want);
        memset(want->gpus, 0, sizeof(want->gpus));
        frame_init(f);
        assert_memory_equal(f, want, sizeof(*f));
        free(want);
        free(f);
}

/* frame_empty: frame_init's frame of no GPUs, the slots of the GPUs it had zeroed,
 * the slots past them untouched (their pages never faulted in). */
static void test_frame_empty(void **state)
{
        (void)state;
        struct frame *f = malloc(sizeof(*f)), *want = calloc(1, sizeof(*want));
        assert_non_null(f);
        assert_non_null(want);
        fill_bytes(f, sizeof(*f), 4);
        f->ngpus = 2;
        frame_init(want);
        memcpy(&want->gpus[2], &f->gpus[2], (VIGIL_MAX_GPUS - 2) * sizeof(f->gpus[0]));
        memcpy(&want->gpu_stats[2], &f->gpu_stats[2],
               (VIGIL_MAX_GPUS - 2) * sizeof(f->gpu_stats[0]));
        memcpy(&want->gpu_procs[2], &f->gpu_procs[2],
               (VIGIL_MAX_GPUS - 2) * sizeof(f->gpu_procs[0]));
        frame_empty(f);
        assert_int_equal(f->ngpus, 0);
        assert_memory_equal(f, want, sizeof(*f));
        free(want);
        free(f);
}

/* counters_copy: everything but the per-GPU counters of slots from ngpus on and the
 * health entries from nhealth on; into fresh pages, only what is copied is touched. */
static void test_counters_copy(void **state)
{
        (void)state;
        struct counters *src = malloc(sizeof(*src)), *dst = malloc(sizeof(*dst));
        struct counters *want = malloc(sizeof(*want));
        assert_non_null(src);
        assert_non_null(dst);
        assert_non_null(want);
        fill_bytes(src, sizeof(*src), 4);
        fill_bytes(dst, sizeof(*dst), 5);
        src->nhealth = 3;
        memcpy(want, src, sizeof(*want));
        memcpy(&want->gpus[2], &dst->gpus[2], (VIGIL_MAX_GPUS - 2) * sizeof(dst->gpus[0]));
        memcpy(&want->health[3], &dst->health[3],
               (COUNTERS_MAX_HEALTH - 3) * sizeof(dst->health[0]));
        counters_copy(dst, src, 2);
        assert_memory_equal(dst, want, sizeof(*dst));
        const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        struct counters *fresh = fresh_pages(sizeof(*fresh));
        assert_non_null(fresh);
        counters_copy(fresh, src, 1);
        long tail = (long)((sizeof(*src) - offsetof(struct counters, nrules) -
                            (COUNTERS_MAX_HEALTH - 3) * sizeof(src->health[0])) /
                           pg);
        assert_true(sizeof(*src) / pg > 60);
        assert_true(resident_pages(fresh, sizeof(*fresh)) <= tail + 4);
        munmap(fresh, sizeof(*fresh));
        free(want);
        free(dst);
        free(src);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_frame_copy_live),
            cmocka_unit_test(test_clear_plan_is_the_walk),
            cmocka_unit_test(test_frame_init),
            cmocka_unit_test(test_counters_copy),
            cmocka_unit_test(test_gpu_layout),
            cmocka_unit_test(test_gpu_cleared),
            cmocka_unit_test(test_gpu_zero_found),
            cmocka_unit_test(test_frame_clear),
            cmocka_unit_test(test_gpu_identity),
            cmocka_unit_test(test_gpu_header_round_trip),
            cmocka_unit_test(test_gpu_columns_in_fields),
            cmocka_unit_test(test_host_watch_layout),
            cmocka_unit_test(test_host_cleared),
            cmocka_unit_test(test_watch_cleared),
            cmocka_unit_test(test_frame_clear_areas),
            cmocka_unit_test(test_frame_empty),
            cmocka_unit_test(test_rpi_storage_layout),
            cmocka_unit_test(test_rpi_storage_cleared),
            cmocka_unit_test(test_report_reads_written_columns),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
