/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the SVG chart renderer (report/svg.c) and XML escaping (util/xml.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/svg.h"
#include "report/svg_axis.h"
#include "util/strbuf.h"
#include "util/xml.h"

static int count_str(const char *hay, const char *needle)
{
        int n = 0;
        size_t len = strlen(needle);
        for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
                n++;
        return n;
}

/* The d attribute of the k-th <path> in svg, copied into out. */
static void path_d(const char *svg, int k, char *out, size_t cap)
{
        const char *p = svg;
        out[0] = '\0';
        for (int i = 0; i <= k; i++) {
                p = strstr(p, "<path ");
                assert_non_null(p);
                p++;
        }
        const char *d = strstr(p, " d=\"");
        assert_non_null(d);
        d += 4;
        const char *e = strchr(d, '"');
        assert_non_null(e);
        assert_true((size_t)(e - d) < cap);
        memcpy(out, d, (size_t)(e - d));
        out[e - d] = '\0';
}

/* Parse "M1 2L3 4..." into points; returns how many; counts subpaths in *moves. */
static size_t path_points(const char *d, double *xs, double *ys, size_t cap, int *moves)
{
        size_t n = 0;
        *moves = 0;
        const char *p = d;
        while (*p) {
                assert_true(*p == 'M' || *p == 'L');
                if (*p == 'M')
                        (*moves)++;
                char *end;
                double x = strtod(p + 1, &end);
                assert_true(*end == ' ');
                double y = strtod(end + 1, &end);
                if (n < cap) {
                        xs[n] = x;
                        ys[n] = y;
                }
                n++;
                p = end;
        }
        return n;
}

static struct svg_chart_spec base_spec(const struct svg_series *se, size_t n)
{
        struct svg_chart_spec s = {
            .title = "CPU",
            .y_label = "%",
            .width = 400,
            .height = 150,
            .series = se,
            .nseries = n,
            .x_min = NAN,
            .x_max = NAN,
            .y_min = NAN,
            .y_max = NAN,
        };
        return s;
}

static void test_basic_structure(void **state)
{
        (void)state;
        double x[] = {1000, 1010, 1020, 1030};
        double y[] = {10, 20, 30, 97};
        struct svg_series se = {.name = "cpu", .x = x, .y = y, .n = 4};
        struct svg_chart_spec s = base_spec(&se, 1);
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_true(strncmp(sb.buf, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
        assert_non_null(strstr(sb.buf, "width=\"400\" height=\"150\""));
        assert_true(strcmp(sb.buf + sb.len - 7, "</svg>\n") == 0);
        assert_int_equal(count_str(sb.buf, "<path "), 1);
        char d[4096];
        path_d(sb.buf, 0, d, sizeof(d));
        double xs[8], ys[8];
        int moves;
        assert_int_equal(path_points(d, xs, ys, 8, &moves), 4);
        assert_int_equal(moves, 1);
        /* Plot area: left 62, width 400-62-12 = 326; top 28, height 150-28-22 = 100.
         * y axis 0..100 (nice range of 10..97 widened to steps of 20). */
        assert_true(xs[0] == 62 && xs[3] == 388);
        assert_true(ys[0] == 118 && ys[3] == 31);
        /* Nice tick labels 0, 20, ... 100. */
        assert_non_null(strstr(sb.buf, ">100</text>"));
        assert_non_null(strstr(sb.buf, ">40</text>"));
        assert_null(strstr(sb.buf, ">110</text>"));
        assert_non_null(strstr(sb.buf, "<title>cpu</title>"));
        sb_free(&sb);
}

/* A series flat at zero on an axis from zero (an unused /dev/shm): the axis runs 0..1,
 * never below zero; with a size given, 0..size. */
static void test_flat_zero_axis(void **state)
{
        (void)state;
        double x[] = {1000, 1010, 1020, 1030};
        double y[] = {0, 0, 0, 0};
        struct svg_series se = {.name = "shm_used_mb", .x = x, .y = y, .n = 4};
        struct svg_chart_spec s = base_spec(&se, 1);
        s.y_zero = true;
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_null(strstr(sb.buf, ">-1</text>"));
        assert_null(strstr(sb.buf, ">-0.5</text>"));
        assert_non_null(strstr(sb.buf, ">0.0</text>"));
        assert_non_null(strstr(sb.buf, ">1.0</text>"));
        sb_reset(&sb);
        s.y_min = 0;
        s.y_max = 1900;
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_null(strstr(sb.buf, ">-1</text>"));
        assert_non_null(strstr(sb.buf, ">1000</text>")); /* up to the size */
        sb_free(&sb);
}

/* Time labels ("HH:MM:SS" and the like) of a chart: their x positions, in order. */
static int time_label_xs(const char *svg, double *xs, int cap)
{
        int n = 0;
        for (const char *p = strstr(svg, "<text x=\""); p; p = strstr(p + 1, "<text x=\"")) {
                const char *gt = strchr(p, '>');
                if (!gt ||
                    !(gt[1] >= '0' && gt[1] <= '9' && gt[2] >= '0' && gt[2] <= '9' && gt[3] == ':'))
                        continue;
                if (n < cap)
                        xs[n] = strtod(p + 9, NULL);
                n++;
        }
        return n;
}

/* A narrow chart (the dashboard's overview, 290 px) of 15 minutes: fewer time labels,
 * none touching the next ("HH:MM:SS" is about 50 px at 11 px). */
static void test_time_labels_never_overlap(void **state)
{
        (void)state;
        static const int widths[] = {290, 400, 800};
        double x[91], y[91];
        for (int i = 0; i < 91; i++) {
                x[i] = 1764700000 + 10.0 * i;
                y[i] = i;
        }
        struct svg_series se = {.name = "temp", .x = x, .y = y, .n = 91};
        for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
                struct svg_chart_spec s = base_spec(&se, 1);
                s.width = widths[w];
                struct strbuf sb;
                assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
                assert_int_equal(svg_chart(&sb, &s), 0);
                double xs[40];
                int n = time_label_xs(sb.buf, xs, 40);
                assert_true(n >= 2);
                for (int i = 1; i < n && i < 40; i++)
                        if (xs[i] - xs[i - 1] < 8 * 6.2 + 6)
                                fail_msg("width %d: labels %d and %d %.1f px apart", widths[w],
                                         i - 1, i, xs[i] - xs[i - 1]);
                sb_free(&sb);
        }
}

static void test_nan_gap_splits_path(void **state)
{
        (void)state;
        double x[] = {0, 10, 20, 30, 40, 50};
        double y[] = {1, 2, NAN, 4, 5, 6};
        struct svg_series se = {.name = "t", .x = x, .y = y, .n = 6};
        struct svg_chart_spec s = base_spec(&se, 1);
        s.time_axis = SVG_TIME_ELAPSED;
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        char d[4096];
        path_d(sb.buf, 0, d, sizeof(d));
        double xs[8], ys[8];
        int moves;
        assert_int_equal(path_points(d, xs, ys, 8, &moves), 5);
        assert_int_equal(moves, 2);
        assert_int_equal(count_str(d, "M"), 2);
        /* Elapsed labels start at 0 and use seconds. */
        assert_non_null(strstr(sb.buf, ">0</text>"));
        assert_non_null(strstr(sb.buf, ">10s</text>"));

        /* A time gap longer than gap_s also breaks the line. */
        double y2[] = {1, 2, 3, 4, 5, 6};
        double x2[] = {0, 10, 20, 300, 310, 320};
        se.x = x2;
        se.y = y2;
        s.gap_s = 60;
        sb_reset(&sb);
        assert_int_equal(svg_chart(&sb, &s), 0);
        path_d(sb.buf, 0, d, sizeof(d));
        assert_int_equal(path_points(d, xs, ys, 8, &moves), 6);
        assert_int_equal(moves, 2);
        sb_free(&sb);
}

static void test_decimation_keeps_spike(void **state)
{
        (void)state;
        enum { N = 100000 };
        double *x = malloc(N * sizeof(double));
        double *y = malloc(N * sizeof(double));
        assert_non_null(x);
        assert_non_null(y);
        for (int i = 0; i < N; i++) {
                x[i] = i;
                y[i] = 10 + (i % 7);
        }
        y[54321] = 1000; /* one sample out of 100000 */
        struct svg_series se = {.name = "fan", .x = x, .y = y, .n = N};
        struct svg_chart_spec s = base_spec(&se, 1);
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 22), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        static char d[1 << 20];
        path_d(sb.buf, 0, d, sizeof(d));
        static double xs[N], ys[N];
        int moves;
        size_t n = path_points(d, xs, ys, N, &moves);
        /* At most two points per pixel column (326 columns, plus the last edge). */
        assert_true(n <= 2 * 327);
        assert_true(n > 326);
        assert_int_equal(moves, 1);
        double top = 1e9;
        for (size_t i = 0; i < n; i++)
                top = fmin(top, ys[i]);
        /* y axis 0..1000: the spike reaches the top of the plot area (y = 28). */
        assert_true(top == 28);
        /* Points stay in time order. */
        for (size_t i = 1; i < n; i++)
                assert_true(xs[i] >= xs[i - 1]);
        free(x);
        free(y);
        sb_free(&sb);
}

static void test_escaping_and_markers(void **state)
{
        (void)state;
        double x[] = {100, 200, 300};
        double y[] = {1, 2, 3};
        struct svg_series se = {.name = "a<b>&\"c\"", .x = x, .y = y, .n = 3};
        struct svg_marker mk[] = {
            {.x = 150, .label = "Xid 79 <fell off>"},
            {.x = 150.1, .label = "TDP_REDUCED(200W)"},
            {.x = 250, .label = "it's"},
            {.x = 900, .label = "outside"},
        };
        struct svg_band band = {.x0 = 120, .x1 = 180, .label = "SwPowerCap", .color = "#f00"};
        struct svg_chart_spec s = base_spec(&se, 1);
        s.title = "T & <U>";
        s.markers = mk;
        s.nmarkers = 4;
        s.bands = &band;
        s.nbands = 1;
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_non_null(strstr(sb.buf, ">T &amp; &lt;U&gt;</text>"));
        assert_non_null(strstr(sb.buf, ">a&lt;b&gt;&amp;&quot;c&quot;</text>"));
        assert_null(strstr(sb.buf, "<fell"));
        /* The two close markers merge into one tooltip; the outside one is dropped. */
        assert_non_null(
            strstr(sb.buf, "<g><title>Xid 79 &lt;fell off&gt;\nTDP_REDUCED(200W)</title>"));
        assert_non_null(strstr(sb.buf, "<g><title>it&#39;s</title>"));
        assert_int_equal(count_str(sb.buf, "<g><title>"), 2);
        assert_null(strstr(sb.buf, "outside"));
        assert_non_null(
            strstr(sb.buf, "fill=\"#f00\" fill-opacity=\"0.18\"><title>SwPowerCap</title>"));
        sb_free(&sb);
}

static void test_no_data_and_bad_spec(void **state)
{
        (void)state;
        double x[] = {1, 2};
        double y[] = {NAN, NAN};
        struct svg_series se = {.name = "none", .x = x, .y = y, .n = 2};
        struct svg_chart_spec s = base_spec(&se, 1);
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_null(strstr(sb.buf, "<path"));
        assert_non_null(strstr(sb.buf, ">no data</text>"));
        sb_reset(&sb);
        s.width = 10;
        assert_int_equal(svg_chart(&sb, &s), -EINVAL);
        s.width = 0; /* default size */
        s.height = 0;
        s.nseries = SVG_MAX_SERIES + 1;
        assert_int_equal(svg_chart(&sb, &s), -EINVAL);
        s.nseries = 1;
        assert_int_equal(svg_chart(&sb, &s), 0);
        assert_non_null(strstr(sb.buf, "width=\"760\" height=\"220\""));
        sb_free(&sb);

        /* A bounded buffer reports overflow. */
        char small[64];
        struct strbuf fx;
        sb_init_fixed(&fx, small, sizeof(small));
        assert_int_equal(svg_chart(&fx, &s), -ENOSPC);
}

static void test_xml_escape(void **state)
{
        (void)state;
        char buf[128];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        const char in[] = "ok \xC3\xA9 \xE2\x80\x94 bad\xFF\xC3 ctl\x01\x7F tab\t";
        sb_xml_escape(&sb, in, sizeof(in) - 1);
        assert_string_equal(buf,
                            "ok \xC3\xA9 \xE2\x80\x94 bad\xEF\xBF\xBD\xEF\xBF\xBD ctl?? tab\t");
        sb_reset(&sb);
        sb_xml_puts(&sb, "<a href='x'>&</a>");
        assert_string_equal(buf, "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
        sb_reset(&sb);
        sb_xml_puts(&sb, NULL);
        assert_string_equal(buf, "");
        /* Overlong and surrogate forms are not valid UTF-8. */
        sb_xml_escape(&sb, "\xC0\xAF\xED\xA0\x80", 5);
        assert_int_equal(count_str(buf, "\xEF\xBF\xBD"), 5);
}

static void test_axis_helpers(void **state)
{
        (void)state;
        char b[32];
        setenv("TZ", "UTC", 1);
        tzset();
        assert_true(svg_nice_step(87, 5) == 20);
        assert_true(svg_nice_step(1, 5) == 0.2);
        assert_true(svg_nice_step(7000, 5) == 1000);
        assert_true(svg_time_step(40) == 5);
        assert_true(svg_time_step(86400) == 10800);
        assert_true(svg_time_step(14 * 86400) == 172800);
        assert_int_equal(svg_local_offset_s(1.8e9), 0);
        double midnight = 20789.0 * 86400; /* 2026-12-02 00:00 UTC */
        svg_time_label(b, sizeof(b), midnight + 3600, 3600, SVG_TIME_LOCAL, 0);
        assert_string_equal(b, "01:00");
        svg_time_label(b, sizeof(b), midnight, 3600, SVG_TIME_LOCAL, 0);
        assert_string_equal(b, "12-02");
        svg_time_label(b, sizeof(b), midnight + 75, 15, SVG_TIME_LOCAL, 0);
        assert_string_equal(b, "00:01:15");
        svg_time_label(b, sizeof(b), 5400, 1800, SVG_TIME_ELAPSED, 0);
        assert_string_equal(b, "1h30m");
        svg_time_label(b, sizeof(b), 2 * 86400 + 3 * 3600 + 100, 3600, SVG_TIME_ELAPSED, 100);
        assert_string_equal(b, "2d3h");
        svg_time_label(b, sizeof(b), 1e300, 3600, SVG_TIME_LOCAL, 0);
        assert_string_equal(b, "?");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_basic_structure),
            cmocka_unit_test(test_flat_zero_axis),
            cmocka_unit_test(test_time_labels_never_overlap),
            cmocka_unit_test(test_nan_gap_splits_path),
            cmocka_unit_test(test_decimation_keeps_spike),
            cmocka_unit_test(test_escaping_and_markers),
            cmocka_unit_test(test_no_data_and_bad_spec),
            cmocka_unit_test(test_xml_escape),
            cmocka_unit_test(test_axis_helpers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
