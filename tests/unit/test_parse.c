/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: bounded parsing helpers (util/parse.c) and value formatting (util/fmt.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "util/fmt.h"
#include "util/parse.h"
#include "util/strbuf.h"

static void test_u64(void **state)
{
        (void)state;
        uint64_t v = 7;
        struct cursor c = cur_str("  123 456");
        assert_int_equal(cur_u64(&c, &v), 0);
        assert_int_equal(v, 123);
        assert_int_equal(cur_u64(&c, &v), 0);
        assert_int_equal(v, 456);
        assert_true(cur_eof(&c));
        assert_int_equal(cur_u64(&c, &v), -EINVAL);
        assert_int_equal(v, 456);
        c = cur_str("18446744073709551616");
        assert_int_equal(cur_u64(&c, &v), -ERANGE);
        c = cur_str("18446744073709551615");
        assert_int_equal(cur_u64(&c, &v), 0);
        assert_true(v == UINT64_MAX);
}

static void test_i64_hex_double(void **state)
{
        (void)state;
        int64_t i;
        uint64_t h;
        double d;
        struct cursor c = cur_str("-42 0x50000 47.25 abc");
        assert_int_equal(cur_i64(&c, &i), 0);
        assert_int_equal(i, -42);
        assert_int_equal(cur_hex(&c, &h), 0);
        assert_int_equal(h, 0x50000);
        assert_int_equal(cur_double(&c, &d), 0);
        assert_true(d == 47.25);
        assert_int_equal(cur_double(&c, &d), -EINVAL);
        assert_int_equal(parse_double("1e999", 5, &d), -ERANGE);
}

static void test_whole_string(void **state)
{
        (void)state;
        uint64_t v = 1;
        assert_int_equal(parse_u64("47236\n", 6, &v), 0);
        assert_int_equal(v, 47236);
        assert_int_equal(parse_u64("47x", 3, &v), -EINVAL);
        assert_int_equal(parse_u64("", 0, &v), -EINVAL);
        assert_int_equal(v, 47236);
        int64_t ns;
        assert_int_equal(parse_duration_ns("0.1", &ns), 0);
        assert_int_equal(ns, 100000000);
        assert_int_equal(parse_duration_ns("250ms", &ns), 0);
        assert_int_equal(ns, 250000000);
        assert_int_equal(parse_duration_ns("2m", &ns), 0);
        assert_int_equal(ns, 120000000000LL);
        assert_int_equal(parse_duration_ns("-1", &ns), -ERANGE);
        assert_int_equal(parse_duration_ns("1x", &ns), -EINVAL);
        assert_int_equal(parse_duration_ns("nan", &ns), -EINVAL);
}

static void test_lines(void **state)
{
        (void)state;
        const char *s;
        size_t n;
        struct cursor c = cur_str("a b\nsecond line\nlast");
        cur_line(&c, &s, &n);
        assert_int_equal(n, 3);
        cur_line(&c, &s, &n);
        assert_int_equal(n, 11);
        assert_memory_equal(s, "second line", 11);
        cur_line(&c, &s, &n);
        assert_memory_equal(s, "last", 4);
        assert_true(cur_eof(&c));
}

static void check_py(double v, const char *want)
{
        char buf[64];
        fmt_pyfloat(buf, sizeof(buf), v);
        assert_string_equal(buf, want);
}

static void test_pyfloat(void **state)
{
        (void)state;
        check_py(12.0, "12.0");
        check_py(0.52, "0.52");
        check_py(1800.457088, "1800.457088");
        check_py(47.236, "47.236");
        check_py(1234.56640625, "1234.56640625");
        check_py(23677.76953125, "23677.76953125");
        check_py(1e14 + 0.5, "100000000000000.5");
        check_py(2e14, "200000000000000.0");
        check_py(100.0 / 3, "33.333333333333336");
        check_py(0.000123456789012345, "0.000123456789012345");
        check_py(0.1 + 0.2, "0.30000000000000004");
        check_py(0.0, "0.0");
        check_py(-3.5, "-3.5");
        check_py(1e16, "1e+16");
        check_py(1.5e-05, "1.5e-05");
        check_py(0.0001, "0.0001");
        check_py(123456789012345.0, "123456789012345.0");
        check_py(NAN, "");
}

/* The fast path against the general method, on what readings look like (a few
 * decimals, sums and quotients of them, MB from bytes) and on random doubles. */
static void check_same(double v)
{
        char fast[64], slow[64];
        size_t nf = fmt_pyfloat(fast, sizeof(fast), v);
        size_t ns = fmt_pyfloat_general(slow, sizeof(slow), v);
        if (nf != ns || strcmp(fast, slow) != 0)
                fail_msg("%.17g: fast \"%s\", general \"%s\"", v, fast, slow);
}

static void test_pyfloat_fast_path(void **state)
{
        (void)state;
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (int i = 0; i < 40000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
                int dec = (int)(x % 8);
                double scale = 1;
                for (int d = 0; d < dec; d++)
                        scale *= 10;
                double mag = pow(10, (double)(x % 13) - 4);
                check_same(round(u * mag * scale) / scale);              /* a reading's decimals */
                check_same(-round(u * 1e5) / 100);                       /* negative */
                check_same(u * mag);                                     /* any double */
                check_same((double)(x % 100000000000ULL) / 1048576);     /* MB from bytes */
                check_same(round(u * 1000) / 10 + round(u * 100) / 100); /* a sum */
                check_same((double)(x % 100000000ULL) / 1024);           /* MB from kB */
                check_same((double)(x % 1000000000ULL) / 256);           /* MB, 4 kB blocks */
                double many = pow(10, (double)(x % 15));                 /* 0 .. 14 decimals */
                check_same(round(u * 1e4 * many) / many);
                check_same(-(double)(x >> 14) / pow(10, (double)(x % 18))); /* near 2^50 */
                check_same(u * 1e16);
        }
        check_same(0x1p50 / 10);
        check_same(0x1p50 / 10 + 0.5);
        check_same(0x1p50 / 1e3 + 0.125);
        check_same(2e14);
        check_same(1e14 + 0.5);
        check_same(9.999999999999999e14);
        check_same(1e15);
        check_same(9999999999999998.0);
        check_same(0.00010000000000000002);
        check_same(0.1 + 0.7);
        check_same(1.0 / 3);
        check_same(0.0001);
        check_same(999999999.999999);
        check_same(1e9);
        check_same(0.1 + 0.2);
        check_same(-0.0);
        check_py(-0.0, "-0.0");
}

static void test_strbuf(void **state)
{
        (void)state;
        char small[8];
        struct strbuf sb;
        sb_init_fixed(&sb, small, sizeof(small));
        sb_puts(&sb, "abc");
        assert_false(sb.overflow);
        sb_puts(&sb, "defgh");
        assert_true(sb.overflow);
        assert_string_equal(small, "abc");
        struct strbuf h;
        assert_int_equal(sb_init_heap(&h, 16, 64), 0);
        sb_csv_cell(&h, "NOW:under-voltage,HAS:x");
        assert_string_equal(h.buf, "\"NOW:under-voltage,HAS:x\"");
        sb_reset(&h);
        sb_csv_cell(&h, "say \"hi\"");
        assert_string_equal(h.buf, "\"say \"\"hi\"\"\"");
        for (int i = 0; i < 100; i++)
                sb_puts(&h, "x");
        assert_true(h.overflow);
        assert_true(h.len < 64);
        sb_free(&h);
}

/* cur_find_line: a key at a line's start only, the first line included; a miss leaves
 * the cursor where it was. */
static void test_find_line(void **state)
{
        (void)state;
        uint64_t v = 0;
        struct cursor c = cur_str("pgfault 9\nxoom_kill 1\noom_kill_x 2\noom_kill 42\nlast 1");
        assert_true(cur_find_line(&c, "oom_kill "));
        assert_int_equal(cur_u64(&c, &v), 0);
        assert_int_equal(v, 42);
        c = cur_str("oom_kill 7\nother 1");
        assert_true(cur_find_line(&c, "oom_kill "));
        assert_int_equal(cur_u64(&c, &v), 0);
        assert_int_equal(v, 7);
        c = cur_str("a 1\nxoom_kill 3");
        const char *at = c.p;
        assert_false(cur_find_line(&c, "oom_kill "));
        assert_ptr_equal(c.p, at);
        c = cur_make("oom_kill 5", 4); /* the key runs past the end */
        assert_false(cur_find_line(&c, "oom_kill "));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_u64),          cmocka_unit_test(test_i64_hex_double),
            cmocka_unit_test(test_whole_string), cmocka_unit_test(test_lines),
            cmocka_unit_test(test_pyfloat),      cmocka_unit_test(test_pyfloat_fast_path),
            cmocka_unit_test(test_strbuf),       cmocka_unit_test(test_find_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
