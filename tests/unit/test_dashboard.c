/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the dashboard page (web/dashboard*.c) from a hand-built history: the
 * charts of each group, markers on the right GPU, throttle and lost bands, escaping of
 * hostile names, the empty and overflowing cases. With VIGIL_TEST_OUT set, the page is
 * also written there as dashboard-synthetic.html (the browser test loads it). */
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

#include "core/history.h"
#include "web/dashboard.h"
#include "web/dashboard_gpu.h"
#include "web/http_server.h"
#include "util/clock.h"
#include "util/strbuf.h"

#include "svg_units.h"

#define REAL0   (1764700000LL * NSEC_PER_SEC)
#define RECORDS 30

static struct frame fr;

static int count_str(const char *hay, const char *needle)
{
        int n = 0;
        size_t len = strlen(needle);
        for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
                n++;
        return n;
}

static void set_tick_values(int i)
{
        fr.host.cpu_total_pct = 10 + i;
        fr.host.mem_avail_bytes = 2e9 - 1e6 * i;
        fr.host.temp_c = 50 + (i % 5);
        fr.host.shm_used_bytes = 2e6;
        fr.watches[0].count = 1;
        fr.watches[0].pss_bytes = 300e6 + 1e6 * i;
        fr.watches[1].count = 3 + i / 10;
        fr.watches[1].pss_bytes = 500e6;
        fr.rpi.temp_c = 60;
        fr.rpi.arm_hz = i < 10 ? 1500e6 : 600e6;
        fr.rpi.volt_core_v = 0.85;
        fr.rpi.throttled = i >= 10 && i < 20 ? 0x50005 : 0x50000;
        fr.rpi.throttled_valid = true;
        struct gpu_frame *g0 = &fr.gpus[0], *g1 = &fr.gpus[1];
        g0->temp_c = 60 + i;
        g0->fan_speed_pct[0] = 40;
        g0->fan_speed_pct[1] = i == 12 ? 95 : 41;
        g0->power_w = 250;
        g0->power_limit_w = 300;
        g0->enforced_limit_w = i < 15 ? 300 : 200; /* held lower from record 15 */
        g0->gpu_clock_mhz = 1700;
        g0->mem_clock_mhz = 9501;
        g0->util_gpu_pct = 80;
        g0->vram_used_bytes = (1000.0 + 10 * i) * 1048576.0;
        g0->vram_total_bytes = 81559.0 * 1048576.0;
        g0->throttle_mask = i >= 10 && i < 20 ? 0x4 : 0x1;
        g0->throttle_valid = true;
        snprintf(g0->flags, sizeof(g0->flags), "%s", i == 12 ? "FAN_SPIKE" : "");
        *g1 = *g0;
        g1->index = 1;
        snprintf(g1->name, sizeof(g1->name), "<script>gpu()</script>");
        g1->ok = i < 25;
        if (!g1->ok)
                snprintf(g1->error, sizeof(g1->error), "GPU is lost");
}

static void build(struct history *h)
{
        frame_clear(&fr);
        fr.self.started_mono_ns = NSEC_PER_SEC;
        fr.nwatches = 2;
        snprintf(fr.watches[0].name, sizeof(fr.watches[0].name), "player");
        snprintf(fr.watches[1].name, sizeof(fr.watches[1].name), "<script>alert(1)</script>");
        fr.rpi.present = true;
        snprintf(fr.rpi.model, sizeof(fr.rpi.model), "Raspberry Pi 4 Model B Rev 1.4");
        fr.ngpus = 2;
        fr.gpus[0].present = fr.gpus[0].ok = true;
        fr.gpus[0].nfans = 2;
        snprintf(fr.gpus[0].name, sizeof(fr.gpus[0].name), "NVIDIA H100 80GB HBM3");
        fr.gpus[1].present = true;
        for (int i = 0; i < RECORDS; i++) {
                set_tick_values(i);
                int64_t mono = (i + 1) * NSEC_PER_SEC;
                struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
                                 .mono_ns = mono,
                                 .real_ns = REAL0 + mono};
                history_push(h, &fr, &t);
        }
        fr.gpu_stats[0].enforced_limit_w = 200; /* the last one read */
        static const char *const lines[] = {
            "type=START version=0.1.0 pid=1",
            "type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005",
            "type=TDP_CHANGE from=300W to=250W delta=-50W gpu=0",
            "type=NVML_FAILED gpu=1 error=\"GPU is lost\"",
            "type=X note=<b>bold</b>",
        };
        for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++)
                history_add_marker(h, (int64_t)(1 + 6 * k) * NSEC_PER_SEC, lines[k],
                                   strlen(lines[k]));
}

static void write_artefact(const char *page)
{
        const char *dir = getenv("VIGIL_TEST_OUT");
        if (!dir || !dir[0])
                return;
        char path[1024];
        snprintf(path, sizeof(path), "%s/dashboard-synthetic.html", dir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(page, f);
        fclose(f);
}

/* The number of points of the first <path> after `from` in page. */
static int first_path_points(const char *from)
{
        const char *p = strstr(from, "<path ");
        assert_non_null(p);
        const char *d = strstr(p, " d=\"");
        assert_non_null(d);
        const char *e = strchr(d + 4, '"');
        int n = 0;
        for (const char *c = d + 4; c < e; c++)
                n += *c == 'M' || *c == 'L';
        return n;
}

/* The number of distinct y values of the first <path> titled name... after from. */
static int path_ys(const char *from, const char *name)
{
        char title[96];
        snprintf(title, sizeof(title), "\"><title>%s", name);
        assert_non_null(from);
        const char *t = strstr(from, title);
        assert_non_null(t);
        const char *d = t;
        while (d > from && strncmp(d, " d=\"", 4) != 0)
                d--;
        double ys[1024];
        int n = 0;
        for (const char *c = d + 4; c < t; c++) {
                if (*c != ' ')
                        continue;
                double y = strtod(c + 1, NULL);
                bool seen = false;
                for (int k = 0; k < n && !seen; k++)
                        seen = fabs(ys[k] - y) < 0.05;
                if (!seen && n < 1024)
                        ys[n++] = y;
        }
        return n;
}

static void test_page(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        build(h);
        assert_int_equal(history_count(h), RECORDS);
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 65536, 4u << 20), 0);
        struct dashboard_info info = {
            .hostname = "pi-<lobby>", .now_mono_ns = 3723 * NSEC_PER_SEC, .refresh_s = 10};
        assert_int_equal(dashboard_render(&out, h, &fr, &info), 0);
        const char *p = out.buf;
        write_artefact(p);
        /* Host 4, processes 2, Pi 3, the overview of the two GPUs (temperature and power
         * on axes of their own: 2 each), GPUs 6 each (temperature and fans apart). */
        assert_int_equal(count_str(p, "<svg "), 4 + 2 + 3 + 2 * 2 + 6 * 2);
        assert_null(strstr(p, "C / W"));
        assert_null(strstr(p, "C / %"));
        const char *bad;
        assert_int_equal(svg_axis_units(p, &bad), count_str(p, "<svg "));
        if (bad)
                fail_msg("two units on one axis: %.20s", bad);
        assert_int_equal(count_str(p, ">GPU 0 temperature</text>"), 2); /* overview, group */
        assert_int_equal(count_str(p, ">GPU 0 fans</text>"), 1);
        /* The enforced limit as a line through time: 300 W, then 200 W. */
        assert_int_equal(path_ys(strstr(p, ">GPU 0 power</text>"), "power_enforced_limit"), 2);
        assert_non_null(strstr(p, "<title>power_enforced_limit (now 200W)</title>"));
        assert_int_equal(count_str(p, ">GPU 1 power</text>"), 1);
        assert_non_null(strstr(p, "<meta http-equiv=\"refresh\" content=\"10\">"));
        assert_non_null(strstr(p, "<h1>vigil on pi-&lt;lobby&gt;</h1>"));
        assert_non_null(strstr(p, "running for 1h 02m"));
        assert_non_null(strstr(p, "<a href=\"/metrics\">"));
        /* Nothing hostile gets through unescaped. */
        assert_null(strstr(p, "<script"));
        assert_null(strstr(p, "<b>"));
        assert_non_null(strstr(p, "&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_non_null(strstr(p, "<h2>GPU 1: &lt;script&gt;gpu()&lt;/script&gt;</h2>"));
        assert_non_null(strstr(p, "note=&lt;b&gt;bold&lt;/b&gt;"));
        /* The CPU chart: one point per record. */
        assert_int_equal(first_path_points(strstr(p, ">CPU</text>")), RECORDS);
        /* Each GPU's markers on its own charts only; the lost GPU's banner and band. */
        const char *g0 = strstr(p, "<h2>GPU 0: NVIDIA H100 80GB HBM3</h2>");
        const char *g1 = strstr(p, "<h2>GPU 1:");
        const char *ev = strstr(p, "<h2>Recent events</h2>");
        assert_true(g0 && g1 && ev && g0 < g1 && g1 < ev);
        assert_int_equal(count_str(g0, "TDP_CHANGE") - count_str(g1, "TDP_CHANGE"), 6);
        assert_int_equal(count_str(g1, "TDP_CHANGE") - count_str(ev, "TDP_CHANGE"), 0);
        assert_int_equal(count_str(g0, "NVML_FAILED") - count_str(g1, "NVML_FAILED"), 0);
        assert_int_equal(count_str(g1, "NVML_FAILED") - count_str(ev, "NVML_FAILED"), 6);
        assert_non_null(strstr(g1, "<p class=\"lost\">GPU LOST: GPU is lost</p>"));
        assert_int_equal(count_str(g1, "<title>GPU LOST: NVML answered nothing</title>"), 6);
        /* Each chart's legend says what its bands are. */
        assert_int_equal(count_str(g1, "</span>GPU LOST: NVML answered nothing"), 6);
        assert_int_equal(count_str(g0, "GPU LOST") - count_str(g1, "GPU LOST"), 0);
        /* sw_power_cap bands on GPU 0's six charts; GPU idle is left out. */
        assert_int_equal(count_str(g0, "<title>throttle: sw_power_cap</title>") -
                             count_str(g1, "<title>throttle: sw_power_cap</title>"),
                         6);
        assert_null(strstr(p, "throttle: gpu_idle"));
        /* The anomaly flag of record 12 (GPU 0 and its copy, GPU 1). */
        /* (each chart: the marker, and its colour in the legend) */
        assert_int_equal(
            count_str(g0, "anomaly flags raised") - count_str(g1, "anomaly flags raised"), 12);
        /* The Pi's under-voltage band (its three charts), and the marker everywhere
         * outside the GPUs' charts and within them. */
        assert_int_equal(count_str(p, "<title>Pi: under-voltage</title>"), 3);
        assert_int_equal(count_str(p, "condition=&quot;under-voltage&quot;") -
                             count_str(ev, "condition=&quot;under-voltage&quot;"),
                         4 + 2 + 3 + 6 * 2);
        assert_non_null(strstr(p, "<span class=\"bad\">LOST</span> GPU is lost"));
        /* The overview of all GPUs before the details, a VRAM chart per GPU. */
        const char *all = strstr(p, "<h2>All 2 GPUs</h2>");
        assert_true(all && all < g0);
        assert_int_equal(count_str(g0, ">GPU 0 memory (VRAM)</text>"), 1);
        /* Events as sentences, the raw line kept as the tooltip. */
        assert_non_null(strstr(ev, "GPU 0: power limit changed from 300W to 250W</td>"));
        assert_non_null(strstr(ev, "title=\"type=TDP_CHANGE from=300W to=250W"));
        assert_true(out.len > 20000 && out.len < 400000);
        assert_string_equal(p + out.len - 15, "</body></html>\n");
        sb_free(&out);
        history_free(h);
}

static void test_empty_and_null(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        frame_clear(&fr);
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 4096, 1u << 20), 0);
        struct dashboard_info info = {.hostname = NULL, .refresh_s = 0};
        assert_int_equal(dashboard_render(&out, h, &fr, &info), 0);
        assert_non_null(
            strstr(out.buf, "Collecting: the charts begin after the first period (1 s)"));
        assert_null(strstr(out.buf, "<svg"));
        assert_null(strstr(out.buf, "http-equiv"));
        assert_non_null(strstr(out.buf, "<h1>vigil on this host</h1>"));
        sb_reset(&out);
        assert_int_equal(dashboard_render(&out, NULL, &fr, &info), 0);
        assert_null(strstr(out.buf, "<svg"));
        assert_non_null(strstr(out.buf, "<a href=\"/metrics\">"));
        sb_free(&out);
        history_free(h);
}

static void test_overflow(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        build(h);
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 1024, 16384), 0);
        struct dashboard_info info = {.hostname = "x", .refresh_s = 10};
        assert_int_equal(dashboard_render(&out, h, &fr, &info), -ENOSPC);
        sb_free(&out);
        history_free(h);
}

/* A full ring (15 minutes) of 64 noisy GPUs with 2 fans each: the page fits the
 * server's body bound (web/http_server.h HTTP_MAX_BODY), so a 64-GPU server's dashboard
 * is not refused once its history has filled. */
static void test_64_gpus_fit(void **state)
{
        (void)state;
        static struct frame big;
        frame_clear(&big);
        big.self.started_mono_ns = NSEC_PER_SEC;
        big.ngpus = 64;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        for (int i = 0; i < HISTORY_MAX_RECORDS; i++) {
                for (unsigned g = 0; g < 64; g++) {
                        struct gpu_frame *gf = &big.gpus[g];
                        gf->present = gf->ok = true;
                        gf->index = g;
                        gf->nfans = 2;
                        double n = (double)((i * 7919 + g * 104729) % 1000) / 10.0;
                        gf->temp_c = 40 + n / 3;
                        gf->power_w = 300 + n * 3.7;
                        gf->power_limit_w = 700;
                        gf->enforced_limit_w = 700;
                        gf->gpu_clock_mhz = 1500 + n;
                        gf->mem_clock_mhz = 2619;
                        gf->util_gpu_pct = n;
                        gf->util_mem_pct = n / 2;
                        gf->vram_used_bytes = (40000.0 + 97 * n) * 1048576.0;
                        gf->vram_total_bytes = 81559.0 * 1048576.0;
                        gf->fan_speed_pct[0] = gf->fan_speed_pct[1] = 30 + n / 5;
                        gf->fan_target_pct[0] = gf->fan_target_pct[1] = 30 + n / 5;
                        gf->throttle_mask = 0x1;
                        gf->throttle_valid = true;
                }
                int64_t mono = (i + 1) * NSEC_PER_SEC;
                struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
                                 .mono_ns = mono,
                                 .real_ns = REAL0 + mono};
                history_push(h, &big, &t);
        }
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 65536, HTTP_MAX_BODY), 0);
        struct dashboard_info info = {.hostname = "dgx",
                                      .now_mono_ns = (HISTORY_MAX_RECORDS + 1) * NSEC_PER_SEC,
                                      .refresh_s = 10};
        assert_int_equal(dashboard_render(&out, h, &big, &info), 0);
        print_message("64 GPUs, 15 minutes: %zu bytes\n", out.len);
        sb_free(&out);
        history_free(h);
}

/* vigil's START comes before its first record closes, sometimes a whole period or more
 * before (a slow first tick): the charts still begin early enough to show it, even once
 * there are more records than the shortest window. */
static void test_early_marker(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        frame_clear(&fr);
        for (int i = 0; i < 12; i++) {
                set_tick_values(i);
                int64_t mono = (i + 5) * NSEC_PER_SEC;
                struct tick t = {
                    .due = VCLOCK_BIT(VCLOCK_HOST), .mono_ns = mono, .real_ns = REAL0 + mono};
                history_push(h, &fr, &t);
        }
        const char *start = "type=START version=0.1.0 pid=1";
        history_add_marker(h, 2 * NSEC_PER_SEC, start, strlen(start));
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 65536, 4u << 20), 0);
        struct dashboard_info info = {.hostname = "x", .now_mono_ns = 17 * NSEC_PER_SEC};
        assert_int_equal(dashboard_render(&out, h, &fr, &info), 0);
        assert_non_null(strstr(out.buf, "<title>type=START version=0.1.0 pid=1"));
        sb_free(&out);
        history_free(h);
}

/* Legends that would run past a chart's width: the series go on to further charts,
 * and every legend entry ends inside its chart. */
static void test_legend_split(void **state)
{
        (void)state;
        struct history *h = history_new(NSEC_PER_SEC, HISTORY_SPAN_NS, HISTORY_MAX_RECORDS);
        frame_clear(&fr);
        fr.nwatches = VIGIL_MAX_WATCHES;
        for (unsigned w = 0; w < VIGIL_MAX_WATCHES; w++) {
                watch_frame_clear(&fr.watches[w]);
                snprintf(fr.watches[w].name, sizeof(fr.watches[w].name),
                         "a_rather_long_watch_name_no_%02u", w);
                fr.watches[w].count = w;
                fr.watches[w].pss_bytes = 1e6 * w;
        }
        fr.ngpus = 1;
        gpu_frame_clear(&fr.gpus[0]);
        fr.gpus[0].present = fr.gpus[0].ok = true;
        fr.gpus[0].nfans = VIGIL_MAX_FANS;
        for (unsigned k = 0; k < VIGIL_MAX_FANS; k++)
                fr.gpus[0].fan_speed_pct[k] = 30 + k;
        fr.gpus[0].temp_c = 50;
        for (int i = 0; i < 3; i++) {
                struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST) | VCLOCK_BIT(VCLOCK_GPU),
                                 .mono_ns = (i + 1) * NSEC_PER_SEC,
                                 .real_ns = REAL0 + (i + 1) * NSEC_PER_SEC};
                history_push(h, &fr, &t);
        }
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 65536, 4u << 20), 0);
        struct dashboard_info info = {.hostname = "x"};
        assert_int_equal(dashboard_render(&out, h, &fr, &info), 0);
        char name[48];
        for (unsigned w = 0; w < VIGIL_MAX_WATCHES; w++) {
                snprintf(name, sizeof(name), ">a_rather_long_watch_name_no_%02u</text>", w);
                assert_int_equal(count_str(out.buf, name), 2); /* count and PSS legends */
        }
        assert_true(count_str(out.buf, ">Processes (cont.)</text>") >= 7);
        /* Eight fans fit one legend line on their own chart. */
        assert_int_equal(count_str(out.buf, ">GPU 0 fans</text>"), 1);
        assert_int_equal(count_str(out.buf, ">GPU 0 fans (cont.)</text>"), 0);
        for (unsigned k = 0; k < VIGIL_MAX_FANS; k++) {
                snprintf(name, sizeof(name), ">fan%u</text>", k);
                assert_int_equal(count_str(out.buf, name), 1);
        }
        /* Legend texts sit at y 15: each ends before the right margin (6.2 px a glyph). */
        unsigned legends = 0;
        for (const char *p = strstr(out.buf, "\" y=\"15\">"); p;
             p = strstr(p + 1, "\" y=\"15\">")) {
                const char *x = p;
                while (x > out.buf && x[-1] != '"')
                        x--;
                double x0 = strtod(x, NULL);
                const char *t = p + 9;
                size_t len = (size_t)(strchr(t, '<') - t);
                if (!(x0 + 6.2 * (double)len <= 600 - 12 + 0.01))
                        fail_msg("legend at %.1f: %.*s", x0, (int)len, t);
                legends++;
        }
        assert_true(legends >= 2 * VIGIL_MAX_WATCHES + VIGIL_MAX_FANS + 1);
        sb_free(&out);
        history_free(h);
}

/* The GPU's row of the page's "now" table: the power of the limit it runs under, and
 * the configured limit beside it when another limiter holds it lower (350 W of 700). */
static void test_enforced_limit_shown(void **state)
{
        (void)state;
        char buf[4096];
        struct strbuf sb;
        frame_clear(&fr);
        fr.ngpus = 1;
        struct gpu_frame *g = &fr.gpus[0];
        g->present = g->ok = true;
        g->power_w = 120;
        g->power_limit_w = 700;
        g->enforced_limit_w = 350;
        sb_init_fixed(&sb, buf, sizeof(buf));
        dash_gpu_now(&sb, &fr, 0);
        assert_non_null(
            strstr(buf, "120.0 W of 350 W <span class=\"bad\">enforced</span> (limit 700 W)"));
        g->enforced_limit_w = 700; /* the same: one limit */
        sb_init_fixed(&sb, buf, sizeof(buf));
        dash_gpu_now(&sb, &fr, 0);
        assert_non_null(strstr(buf, "120.0 W of 700 W &middot;"));
        assert_null(strstr(buf, "enforced"));
        g->enforced_limit_w = NAN; /* not read: the configured one */
        sb_init_fixed(&sb, buf, sizeof(buf));
        dash_gpu_now(&sb, &fr, 0);
        assert_non_null(strstr(buf, "120.0 W of 700 W &middot;"));
}

/* The health verdict's panel heads the page: the machine's state, the unhealthy part
 * before the degraded one, its action and reason escaped; one healthy line when all are. */
static void test_health_panel(void **state)
{
        (void)state;
        frame_clear(&fr);
        struct health *hv = calloc(1, sizeof(*hv));
        assert_non_null(hv);
        health_init(hv, "", NULL, NULL);
        hv->ngpus = 2;
        struct strbuf out;
        assert_int_equal(sb_init_heap(&out, 4096, 1u << 20), 0);
        struct dashboard_info info = {.hostname = "h", .health = hv};
        assert_int_equal(dashboard_render(&out, NULL, &fr, &info), 0);
        assert_non_null(strstr(out.buf, "<div class=\"health healthy\" id=\"health\"><b>Health: "
                                        "healthy</b>"));
        assert_non_null(strstr(out.buf, "<li class=\"healthy\">healthy: every component</li>"));
        static const char *const lines[] = {
            "type=TEMP_OVER_MAX gpu=1 state=above temp=95C max=90C",
            "type=STORAGE state=read-only fs=root mount=/<x> device=/dev/sda1"};
        for (size_t i = 0; i < 2; i++)
                health_feed_event(hv, 1764700000.0 + (double)i, lines[i], strlen(lines[i]));
        sb_reset(&out);
        assert_int_equal(dashboard_render(&out, NULL, &fr, &info), 0);
        const char *h1 = strstr(out.buf, "</h1>\n<div class=\"health unhealthy\"");
        const char *un = strstr(out.buf, "<li class=\"unhealthy\">unhealthy host.storage: replace "
                                         "the part; since ");
        const char *deg = strstr(out.buf, "<li class=\"degraded\">degraded gpu1.thermal: "
                                          "inspect the hardware; since ");
        const char *note = strstr(out.buf, "<p class=\"note\">");
        assert_true(h1 && un && deg && note && h1 < un && un < deg && deg < note);
        assert_non_null(strstr(un, "/&lt;x&gt; is read-only</li>"));
        sb_free(&out);
        free(hv);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_page),
            cmocka_unit_test(test_empty_and_null),
            cmocka_unit_test(test_overflow),
            cmocka_unit_test(test_legend_split),
            cmocka_unit_test(test_early_marker),
            cmocka_unit_test(test_64_gpus_fit),
            cmocka_unit_test(test_enforced_limit_shown),
            cmocka_unit_test(test_health_panel),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
