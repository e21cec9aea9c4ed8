/* Unit tests: the frame's field tables (core/fields.c, core/gpu_fields.def): a cleared
 * frame has every value missing, identity survives, and the tables cover the structs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/fields.h"
#include "core/frame.h"
#include "core/gpu_fields.h"

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

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_gpu_layout),     cmocka_unit_test(test_gpu_cleared),
            cmocka_unit_test(test_gpu_zero_found), cmocka_unit_test(test_frame_clear),
            cmocka_unit_test(test_gpu_identity),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
