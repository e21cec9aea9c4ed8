/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the streaming CSV reader (report/csv_read.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "report/csv_read.h"

static void assert_cell(const struct csv_reader *r, unsigned i, const char *want)
{
        assert_true(i < r->nfields);
        if (r->f[i].len != strlen(want) || memcmp(r->f[i].s, want, r->f[i].len) != 0) {
                fprintf(stderr, "cell %u: [%.*s] want [%s]\n", i, (int)r->f[i].len, r->f[i].s,
                        want);
                fail();
        }
}

/* What Python's csv.writer wrote for ['x', 'a,b', 'say "hi"', 'two\nlines', ''] and
 * then two more rows, \r\n-terminated. */
static const char python_rows[] = "x,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n"
                                  "1,2,3\r\n"
                                  "\r\n"
                                  "a,\"b\"c,d\n";

static void check_python_rows(struct csv_reader *r)
{
        assert_int_equal(csv_reader_next(r), 1);
        assert_int_equal(r->nfields, 5);
        assert_cell(r, 0, "x");
        assert_cell(r, 1, "a,b");
        assert_cell(r, 2, "say \"hi\"");
        assert_cell(r, 3, "two\nlines");
        assert_cell(r, 4, "");
        assert_int_equal(csv_reader_next(r), 1);
        assert_int_equal(r->nfields, 3);
        assert_cell(r, 2, "3");
        /* The blank line is passed over; text after a closing quote is kept. */
        assert_int_equal(csv_reader_next(r), 1);
        assert_int_equal(r->nfields, 3);
        assert_cell(r, 1, "bc");
        assert_int_equal(csv_reader_next(r), 0);
        assert_int_equal(csv_reader_next(r), 0);
        assert_int_equal(r->records, 3);
        assert_int_equal(r->skipped, 0);
        assert_int_equal(r->torn, 0);
}

static void test_python_quoting(void **state)
{
        (void)state;
        struct csv_reader r;
        assert_int_equal(csv_reader_mem(&r, python_rows, sizeof(python_rows) - 1), 0);
        check_python_rows(&r);
        csv_reader_close(&r);
        csv_reader_close(&r);
        /* Refills of every small size split records anywhere: same result. */
        for (size_t chunk = 1; chunk < 24; chunk++) {
                assert_int_equal(csv_reader_mem(&r, python_rows, sizeof(python_rows) - 1), 0);
                r.read_max = chunk;
                check_python_rows(&r);
                csv_reader_close(&r);
        }
}

static void test_torn_and_garbage(void **state)
{
        (void)state;
        struct csv_reader r;
        /* A NUL-filled line (a crash after the size grew), then a good row, then a row
         * cut in the middle of its write. */
        static const char data[] = "h1,h2\n\0\0\0\0\n5,6\n7,\"unterminated";
        assert_int_equal(csv_reader_mem(&r, data, sizeof(data) - 1), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        assert_cell(&r, 0, "h1");
        assert_int_equal(csv_reader_next(&r), 1);
        assert_cell(&r, 1, "6");
        assert_int_equal(csv_reader_next(&r), 0);
        assert_int_equal(r.skipped, 1);
        assert_int_equal(r.torn, 1);
        csv_reader_close(&r);

        static const char plain_torn[] = "a,b\r\n1,2";
        assert_int_equal(csv_reader_mem(&r, plain_torn, sizeof(plain_torn) - 1), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        assert_int_equal(csv_reader_next(&r), 0);
        assert_int_equal(r.torn, 1);
        assert_int_equal(r.records, 1);
        csv_reader_close(&r);
}

static void test_bounds(void **state)
{
        (void)state;
        /* An over-long line, a line of too many fields, then good rows. */
        size_t long_len = CSV_MAX_LINE + 5000, many = CSV_MAX_FIELDS + 10;
        size_t cap = long_len + many * 2 + 64;
        char *data = malloc(cap);
        assert_non_null(data);
        size_t n = 0;
        memset(data, 'x', long_len);
        n = long_len;
        data[n++] = '\n';
        for (size_t i = 0; i < many; i++) {
                data[n++] = '1';
                data[n++] = i + 1 < many ? ',' : '\n';
        }
        memcpy(data + n, "ok,1\nok,2\n", 10);
        n += 10;
        for (size_t chunk = 0; chunk < 2; chunk++) {
                struct csv_reader r;
                assert_int_equal(csv_reader_mem(&r, data, n), 0);
                if (chunk)
                        r.read_max = 4093;
                assert_int_equal(csv_reader_next(&r), 1);
                assert_cell(&r, 1, "1");
                assert_int_equal(csv_reader_next(&r), 1);
                assert_cell(&r, 1, "2");
                assert_int_equal(csv_reader_next(&r), 0);
                assert_int_equal(r.skipped, 2);
                assert_int_equal(r.torn, 0);
                csv_reader_close(&r);
        }
        /* Exactly CSV_MAX_FIELDS fields are fine, and a trailing comma counts one. */
        n = 0;
        for (size_t i = 0; i < CSV_MAX_FIELDS - 1; i++)
                data[n++] = ',';
        data[n++] = '\n';
        struct csv_reader r;
        assert_int_equal(csv_reader_mem(&r, data, n), 0);
        assert_int_equal(csv_reader_next(&r), 1);
        assert_int_equal(r.nfields, CSV_MAX_FIELDS);
        csv_reader_close(&r);
        free(data);
}

static void test_cells(void **state)
{
        (void)state;
        struct csv_field f;
#define CELL(str) (f.s = (str), f.len = strlen(str), csv_cell_double(&f))
        assert_true(CELL("47.25") == 47.25);
        assert_true(CELL("-0.5") == -0.5);
        assert_true(CELL("0.05") == 0.05);
        assert_true(CELL("1800.457088") == 1800.457088);
        assert_true(CELL("12") == 12);
        assert_true(CELL("1e3") == 1000);
        assert_true(CELL("12345678901234567") == 12345678901234567.0);
        assert_true(isnan(CELL("")));
        assert_true(isnan(CELL("0x50000")));
        assert_true(isnan(CELL("12abc")));
        assert_true(isnan(CELL("-")));
        assert_true(isnan(CELL(".")));
        assert_true(isnan(CELL("1e999")));
        /* The fast path agrees with strtod on many decimals. */
        uint64_t seed = 88172645463325252ull;
        for (int i = 0; i < 20000; i++) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                char buf[40];
                int decimals = (int)(seed % 7);
                double v = (double)(seed >> 20) / 1e6;
                snprintf(buf, sizeof(buf), "%.*f", decimals, v);
                assert_true(CELL(buf) == strtod(buf, NULL));
        }
#undef CELL
        f.s = "abc";
        f.len = 3;
        assert_true(csv_cell_is(&f, "abc"));
        assert_false(csv_cell_is(&f, "ab"));
}

static void test_files_plain_and_gzip(void **state)
{
        (void)state;
        char plain[] = "/tmp/vigil-csv-XXXXXX";
        int fd = mkstemp(plain);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, python_rows, sizeof(python_rows) - 1),
                         (ssize_t)(sizeof(python_rows) - 1));
        close(fd);
        struct csv_reader r;
        assert_int_equal(csv_reader_open(&r, plain), 0);
        check_python_rows(&r);
        csv_reader_close(&r);

        char gzpath[64];
        snprintf(gzpath, sizeof(gzpath), "%s.gz", plain);
        gzFile gz = gzopen(gzpath, "wb");
        assert_non_null(gz);
        assert_int_equal(gzwrite(gz, python_rows, sizeof(python_rows) - 1),
                         (int)(sizeof(python_rows) - 1));
        gzclose(gz);
        assert_int_equal(csv_reader_open(&r, gzpath), 0);
        check_python_rows(&r);
        csv_reader_close(&r);
        unlink(gzpath);
        unlink(plain);
        assert_int_equal(csv_reader_open(&r, plain), -ENOENT);
        csv_reader_close(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_python_quoting),
            cmocka_unit_test(test_torn_and_garbage),
            cmocka_unit_test(test_bounds),
            cmocka_unit_test(test_cells),
            cmocka_unit_test(test_files_plain_and_gzip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
