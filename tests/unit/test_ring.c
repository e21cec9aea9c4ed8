/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the GPU flight recorder (core/ring.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ring.h"
#include "encode/gpu_columns.h"
#include "encode/ring_csv.h"
#include "util/clock.h"

#define SEC NSEC_PER_SEC
/* 2026-12-02 12:00:00.123 UTC */
static const int64_t noon = 1796212800LL * SEC + 123 * NSEC_PER_MSEC;

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        return 0;
}

/* A healthy two-fan sample. */
static void sample(struct gpu_frame *g, int64_t real_ns, double temp)
{
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->present = true;
        g->ok = true;
        g->nfans = 2;
        g->sampled_real_ns = real_ns;
        g->temp_c = temp;
        g->temp_max_c = 90;
        g->power_w = 312.57;
        g->power_limit_w = 450;
        g->pstate = 2;
        g->gpu_clock_mhz = 2520;
        g->mem_clock_mhz = 10501;
        g->util_gpu_pct = 97;
        g->util_mem_pct = 41;
        g->vram_used_bytes = 20480.0 * 1048576 + 12345; /* MiB, rounded down */
        g->pcie_gen = 4;
        g->pcie_width = 16;
        g->throttle_mask = 0x4;
        g->throttle_valid = true;
        g->fan_speed_pct[0] = 55;
        g->fan_target_pct[0] = 60;
        g->fan_speed_pct[1] = 54;
        g->fan_target_pct[1] = 60;
        g->s0_temp = 66;
        g->s0_target = 1;
        g->s0_controller = 0;
}

static void row(const struct gpu_ring *r, size_t i, char *buf, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, buf, cap);
        ring_csv_row(r, i, &sb);
        assert_false(sb.overflow);
}

static void test_capacity(void **state)
{
        (void)state;
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, 100 * NSEC_PER_MSEC), 3000);
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, SEC), 300);
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, 10 * NSEC_PER_MSEC), RING_MAX_SAMPLES);
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, 7 * SEC), 43);
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, 3600 * SEC), 1);
        assert_int_equal(ring_capacity_for(RING_WINDOW_NS, 0), RING_MAX_SAMPLES);
        struct gpu_ring r;
        assert_int_equal(ring_init(&r, 0, 2), -EINVAL);
        assert_int_equal(ring_init(&r, RING_MAX_SAMPLES + 1, 2), -EINVAL);
        assert_int_equal(ring_init(&r, 10, 99), 0);
        assert_int_equal(r.nfans, RING_FANS);
        ring_fini(&r);
        ring_fini(&r); /* twice is fine */
}

static void test_memory_bound(void **state)
{
        (void)state;
        struct gpu_ring r;
        assert_int_equal(sizeof(struct ring_sample), 72);
        assert_int_equal(ring_init(&r, 3000, 4), 0);
        assert_int_equal(ring_memory_bytes(&r), 3000 * 72 + RING_TEXT_SLOTS * 128);
        /* One GPU at 100 ms: a small share of the 4 MB the daemon may use; 8 GPUs < 2 MB. */
        assert_true(ring_memory_bytes(&r) < 256 * 1024);
        assert_true(8 * ring_memory_bytes(&r) < 2 * 1024 * 1024);
        /* Pushing many samples allocates nothing more. */
        struct gpu_frame g;
        for (int i = 0; i < 10000; i++) {
                sample(&g, noon + i * 100 * NSEC_PER_MSEC, 60 + i % 10);
                ring_push(&r, &g);
        }
        assert_int_equal(ring_count(&r), 3000);
        assert_int_equal(ring_memory_bytes(&r), 3000 * 72 + RING_TEXT_SLOTS * 128);
        ring_fini(&r);
        assert_int_equal(ring_memory_bytes(&r), 0);
}

static void test_wrap_order(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        assert_int_equal(ring_init(&r, 5, 2), 0);
        assert_int_equal(ring_count(&r), 0);
        assert_null(ring_get(&r, 0));
        for (int i = 0; i < 3; i++) {
                sample(&g, noon + i * SEC, 50 + i);
                ring_push(&r, &g);
        }
        assert_int_equal(ring_count(&r), 3);
        assert_int_equal(ring_get(&r, 0)->temp_c, 50);
        assert_int_equal(ring_get(&r, 2)->temp_c, 52);
        for (int i = 3; i < 12; i++) {
                sample(&g, noon + i * SEC, 50 + i);
                ring_push(&r, &g);
        }
        assert_int_equal(ring_count(&r), 5);
        for (size_t i = 0; i < 5; i++) {
                assert_int_equal(ring_get(&r, i)->temp_c, 57 + (int)i);
                assert_int_equal(ring_get(&r, i)->real_ns, noon + (int64_t)(7 + i) * SEC);
        }
        assert_null(ring_get(&r, 5));
        ring_fini(&r);
}

static void test_csv_rows(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        char buf[1024];
        assert_int_equal(ring_init(&r, 10, 2), 0);
        sample(&g, noon, 71);
        ring_push(&r, &g);
        /* Flags with a comma are quoted, as Python's csv module does. */
        sample(&g, noon + 100 * NSEC_PER_MSEC, 86);
        snprintf(g.flags, sizeof(g.flags), "FAN_SPIKE|TEMP_FAN_INV(86@55%%),x");
        ring_push(&r, &g);
        /* Missing values stay empty cells: never a zero. */
        sample(&g, noon + 200 * NSEC_PER_MSEC, 72);
        g.power_w = VAL_MISSING;
        g.temp_max_c = VAL_MISSING;
        g.throttle_valid = false;
        g.fan_speed_pct[1] = VAL_MISSING;
        g.s0_temp = VAL_MISSING;
        ring_push(&r, &g);
        /* A failed sample: the reference's failure row. */
        sample(&g, noon + 300 * NSEC_PER_MSEC, 72);
        g.ok = false;
        snprintf(g.error, sizeof(g.error), "GPU is lost");
        ring_push(&r, &g);
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        ring_csv_header(&r, &sb);
        assert_string_equal(buf, "timestamp,gpu_temp,gpu_tlimit,power_instant,power_limit,pstate,"
                                 "gpu_clock,mem_clock,gpu_util,mem_util,vram_used_mb,pcie_gen,"
                                 "pcie_width,throttle_bitmask,fan0_speed_pct,fan0_target_pct,"
                                 "fan1_speed_pct,fan1_target_pct,sensor0_temp,sensor0_target,"
                                 "sensor0_controller,flags\n");
        row(&r, 0, buf, sizeof(buf));
        assert_string_equal(buf, "2026/12/02 12:00:00.123,71,19,312.57,450,2,2520,10501,97,41,"
                                 "20480,4,16,0x0004,55,60,54,60,66,1,0,\n");
        row(&r, 1, buf, sizeof(buf));
        assert_string_equal(buf, "2026/12/02 12:00:00.223,86,4,312.57,450,2,2520,10501,97,41,"
                                 "20480,4,16,0x0004,55,60,54,60,66,1,0,"
                                 "\"FAN_SPIKE|TEMP_FAN_INV(86@55%),x\"\n");
        row(&r, 2, buf, sizeof(buf));
        assert_string_equal(buf, "2026/12/02 12:00:00.323,72,,,450,2,2520,10501,97,41,20480,4,16,,"
                                 "55,60,,60,,1,0,\n");
        row(&r, 3, buf, sizeof(buf));
        assert_string_equal(buf, "2026/12/02 12:00:00.423,,,,,,,,,,,,,,,,,,,,,NVML_FAILED:GPU is "
                                 "lost\n");
        assert_string_equal(ring_text_of(&r, 1), "FAN_SPIKE|TEMP_FAN_INV(86@55%),x");
        assert_string_equal(ring_text_of(&r, 0), "");
        assert_string_equal(ring_text_of(&r, 9), "");
        ring_fini(&r);
}

static void test_out_of_range_values(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        char buf[512];
        assert_int_equal(ring_init(&r, 4, 1), 0);
        sample(&g, noon, 1e9); /* nonsense: dropped, not wrapped */
        g.nfans = 1;
        g.fan_speed_pct[0] = 300; /* more than 255: clamped */
        g.pstate = -1;
        g.power_w = 1.0 / 0.0;
        g.throttle_mask = 0x100 | 0x4;
        g.throttle_valid = true;
        ring_push(&r, &g);
        row(&r, 0, buf, sizeof(buf));
        assert_string_equal(buf, "2026/12/02 12:00:00.123,,,,450,,2520,10501,97,41,20480,4,16,"
                                 "0x0104,255,60,66,1,0,\n");
        ring_fini(&r);
}

static void test_text_ring_bounded(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        assert_int_equal(ring_init(&r, 200, 0), 0);
        for (int i = 0; i < 100; i++) {
                sample(&g, noon + i * SEC, 60);
                snprintf(g.flags, sizeof(g.flags), "PWR+%dW", 51 + i);
                ring_push(&r, &g);
        }
        /* The newest RING_TEXT_SLOTS flag texts are kept; older samples lose theirs. */
        assert_string_equal(ring_text_of(&r, 99), "PWR+150W");
        assert_string_equal(ring_text_of(&r, 100 - RING_TEXT_SLOTS), "PWR+87W");
        assert_string_equal(ring_text_of(&r, 99 - RING_TEXT_SLOTS), "");
        assert_string_equal(ring_text_of(&r, 0), "");
        /* A long text is cut to its slot. */
        sample(&g, noon, 60);
        memset(g.flags, 'F', sizeof(g.flags) - 1);
        g.flags[sizeof(g.flags) - 1] = '\0';
        ring_push(&r, &g);
        assert_int_equal(strlen(ring_text_of(&r, 100)), RING_TEXT_MAX - 1);
        ring_fini(&r);
}

static void test_streamed_dump(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        struct strbuf whole, chunk, joined;
        char small[1000];
        assert_int_equal(ring_init(&r, 50, 2), 0);
        for (int i = 0; i < 80; i++) {
                sample(&g, noon + i * 100 * NSEC_PER_MSEC, 60 + i % 7);
                ring_push(&r, &g);
        }
        assert_int_equal(sb_init_heap(&whole, 256, 1 << 20), 0);
        assert_int_equal(sb_init_heap(&joined, 256, 1 << 20), 0);
        assert_int_equal(ring_write_csv(&r, 0, &whole), 50);
        size_t lines = 0;
        for (size_t i = 0; i < whole.len; i++)
                lines += whole.buf[i] == '\n';
        assert_int_equal(lines, 51);
        /* Oldest first: the first data row is sample 30. */
        assert_non_null(strstr(whole.buf, "flags\n2026/12/02 12:00:03.123,"));
        size_t calls = 0;
        for (size_t i = 0; i < 50; calls++) {
                sb_init_fixed(&chunk, small, sizeof(small));
                i = ring_write_csv(&r, i, &chunk);
                assert_false(chunk.overflow);
                sb_put(&joined, chunk.buf, chunk.len);
        }
        assert_true(calls > 1);
        assert_string_equal(joined.buf, whole.buf);
        sb_free(&whole);
        sb_free(&joined);
        ring_fini(&r);
}

/* Split a line (no quoted cells) at ',' into at most max cells; returns the count. */
static size_t split(char *line, char **cells, size_t max)
{
        size_t n = 0;
        char *p = line;
        while (n < max) {
                cells[n++] = p;
                p = strpbrk(p, ",\n");
                if (!p || *p == '\n') {
                        if (p)
                                *p = '\0';
                        break;
                }
                *p++ = '\0';
        }
        return n;
}

/* The cell of the column named name in a header/row pair. */
static const char *cell_of(char **head, char **cells, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(head[i], name))
                        return cells[i];
        fail_msg("no column %s", name);
        return NULL;
}

/* Each dump cell is the daily file's cell of the same column: one writer, one format. */
static void check_same_cells(struct gpu_ring *r, size_t i, const struct gpu_frame *g)
{
        char dh[2048], dr[2048], rh[2048], rr[2048];
        char *dhc[64], *drc[64], *rhc[64], *rrc[64];
        struct strbuf sb;
        const struct gpu_csv_style daily = {.file = GPU_CSV_DAILY, .nfans = r->nfans};
        sb_init_fixed(&sb, dh, sizeof(dh));
        gpu_csv_header(&sb, GPU_CSV_DAILY, r->nfans);
        sb_init_fixed(&sb, dr, sizeof(dr));
        gpu_csv_row(&sb, g, NULL, &daily);
        sb_init_fixed(&sb, rh, sizeof(rh));
        ring_csv_header(r, &sb);
        row(r, i, rr, sizeof(rr));
        size_t nd = split(dh, dhc, 64), nr = split(rh, rhc, 64);
        assert_int_equal(split(dr, drc, 64), nd);
        assert_int_equal(split(rr, rrc, 64), nr);
        assert_int_equal(nd, gpu_csv_columns(GPU_CSV_DAILY, r->nfans));
        assert_int_equal(nr, gpu_csv_columns(GPU_CSV_RECORDER, r->nfans));
        assert_true(nr < nd);
        for (size_t k = 0; k < nr; k++)
                assert_string_equal(rrc[k], cell_of(dhc, drc, nd, rhc[k]));
}

static void test_dump_cells_are_daily_cells(void **state)
{
        (void)state;
        struct gpu_ring r;
        struct gpu_frame g;
        assert_int_equal(ring_init(&r, 8, 2), 0);
        sample(&g, noon, 71);
        strcpy(g.flags, "TEMP|PWR+");
        ring_push(&r, &g);
        check_same_cells(&r, 0, &g);
        sample(&g, noon + SEC, 72);
        g.fan_speed_pct[1] = g.power_w = g.s0_target = VAL_MISSING;
        g.throttle_valid = false;
        ring_push(&r, &g);
        check_same_cells(&r, 1, &g);
        sample(&g, noon + 2 * SEC, 73);
        g.ok = false;
        strcpy(g.error, "GPU is lost");
        ring_push(&r, &g);
        check_same_cells(&r, 2, &g);
        ring_fini(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_capacity),
            cmocka_unit_test(test_memory_bound),
            cmocka_unit_test(test_wrap_order),
            cmocka_unit_test(test_csv_rows),
            cmocka_unit_test(test_out_of_range_values),
            cmocka_unit_test(test_text_ring_bounded),
            cmocka_unit_test(test_streamed_dump),
            cmocka_unit_test(test_dump_cells_are_daily_cells),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
