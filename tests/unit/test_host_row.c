/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the host row's text (encode/host_row_text.c) is formatted once per host tick
 * and width, whoever asks, and formatted anew for the next tick or another width; the
 * header names each watch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/frame.h"
#include "core/host_row.h"
#include "encode/host_row_csv.h"
#include "encode/host_row_text.h"
#include "util/strbuf.h"

static struct frame f;
static struct host_row_text c;

static void setup_frame(void)
{
        frame_clear(&f);
        f.host.ncpu = 2;
        f.host.cpu_pct[0] = 12.5;
        f.host.cpu_pct[1] = 50.0;
        f.host.cpu_total_pct = 31.3;
        f.host.load1 = 0.5;
        f.host.sampled_real_ns = 1700000000LL * 1000000000LL;
}

static void test_once_per_tick(void **state)
{
        (void)state;
        setup_frame();
        memset(&c, 0, sizeof(c));
        const char *a = host_row_text(&c, &f, 7, 2);
        assert_non_null(a);
        assert_true(c.len > 0 && a[c.len - 1] == '\n');
        assert_non_null(strstr(a, ",12.5,50.0,"));
        char first[HOST_ROW_TEXT_MAX];
        memcpy(first, a, c.len);
        size_t len = c.len;

        /* The same tick again: the text already made is given, the frame not read (a
         * value changed in between shows that nothing was formatted again). */
        f.host.cpu_pct[0] = 99.0;
        const char *b = host_row_text(&c, &f, 7, 2);
        assert_int_equal(c.len, len);
        assert_memory_equal(b, first, len);

        /* The next tick: formatted anew from the frame. */
        b = host_row_text(&c, &f, 8, 2);
        assert_non_null(strstr(b, ",99.0,50.0,"));

        /* The same tick at another width (a file started with fewer cores): anew. */
        b = host_row_text(&c, &f, 8, 1);
        assert_null(strstr(b, ",99.0,50.0,"));
        assert_non_null(strstr(b, ",99.0,"));
}

static void test_matches_direct_formatting(void **state)
{
        (void)state;
        setup_frame();
        memset(&c, 0, sizeof(c));
        struct host_row hr;
        char buf[HOST_ROW_TEXT_MAX];
        struct strbuf sb;
        host_row_build(&hr, &f);
        sb_init_fixed(&sb, buf, sizeof(buf));
        host_row_csv(&sb, &hr, 2);
        const char *t = host_row_text(&c, &f, 0, 2);
        assert_int_equal(c.len, sb.len);
        assert_memory_equal(t, buf, sb.len);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_once_per_tick),
            cmocka_unit_test(test_matches_direct_formatting),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
