/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the live view's full screen (local/live_screen.c) drawn at a fixed size
 * into a file: findings ranked by severity, the least severe left out first and counted
 * by severity, a critical one never left out (the GPU lines give way instead). */
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

#include "core/findings.h"
#include "core/frame.h"
#include "core/options.h"
#include "local/live_screen.h"
#include "core/health.h"
#include "util/clock.h"

static struct frame fr;
static struct findings events;
static struct vigil_options opt;
static struct host_row hr;
static struct live_gpu lg;
static char screen[1 << 16];
static struct health *verdict; /* the health verdict shown; NULL: none */

/* n healthy idle GPUs, each idle for the whole run (a GpuIdle finding each, fyi). */
static void gpus(unsigned n)
{
        frame_clear(&fr);
        fr.self.started_mono_ns = now_mono_ns() - 60 * NSEC_PER_SEC;
        fr.ngpus = n;
        for (unsigned i = 0; i < n; i++) {
                struct gpu_frame *g = &fr.gpus[i];
                g->present = g->ok = g->sampled = true;
                g->index = i;
                g->temp_c = 30;
                g->power_w = 70;
                g->power_limit_w = 700;
                g->throttle_mask = 0x1;
                g->throttle_valid = true;
                fr.gpu_stats[i].throttle_seconds[0] = 60;
        }
        live_gpu_reset(&lg);
        live_gpu_feed(&lg, &fr);
        memset(&hr, 0, sizeof(hr));
        for (unsigned c = 0; c < HC_COUNT; c++)
                hr.v[c] = NAN;
        findings_init(&events);
        opt.interval_ns = NSEC_PER_SEC;
}

/* GPU i fell off the bus: its Xid 79 and the loss, as the daemon's events.log says. */
static void fall_off(unsigned i)
{
        char line[256];
        snprintf(line, sizeof(line),
                 "type=NVML_EVENT gpu=%u event=Xid(79) mask=0x0008 data=79 xid=79 class=reboot "
                 "meaning=\"GPU has fallen off the bus\" action=\"reboot the machine\" "
                 "severity=critical nvidia_action=RESTART_BM",
                 i);
        findings_feed_event(&events, 1764700000.0 + i, line, strlen(line));
        snprintf(line, sizeof(line), "type=NVML_FAILED gpu=%u error=\"GPU is lost\"", i);
        findings_feed_event(&events, 1764700001.0 + i, line, strlen(line));
}

/* Draw one frame of rows x cols into screen[] (the screen's control sequences
 * removed, one line per row). */
static void draw(unsigned rows, unsigned cols)
{
        static struct live_screen ls;
        struct vigil_ctx ctx = {.opt = &opt, .frame = &fr, .findings = &events, .health = verdict};
        struct live_screen_in in = {.ctx = &ctx, .hr = &hr, .lg = &lg};
        FILE *tmp = tmpfile();
        assert_non_null(tmp);
        fflush(stdout);
        int saved = dup(STDOUT_FILENO);
        assert_true(saved >= 0);
        assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
        assert_int_equal(live_screen_init(&ls, false), 0);
        live_screen_draw(&ls, &in, rows, cols);
        live_screen_fini(&ls);
        fflush(stdout);
        assert_true(dup2(saved, STDOUT_FILENO) >= 0);
        close(saved);
        rewind(tmp);
        char raw[sizeof(screen)];
        size_t n = fread(raw, 1, sizeof(raw) - 1, tmp);
        fclose(tmp);
        /* Keep the text: drop ESC [ ... final and the carriage returns. */
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
                if (raw[i] == 0x1b && i + 1 < n && raw[i + 1] == '[') {
                        for (i += 2; i < n && !(raw[i] >= 0x40 && raw[i] <= 0x7e); i++)
                                ;
                        continue;
                }
                if (raw[i] != '\r')
                        screen[o++] = raw[i];
        }
        screen[o] = '\0';
}

/* The rows drawn: the last one has no newline. */
static unsigned rows_drawn(void)
{
        unsigned n = screen[0] != '\0';
        for (const char *p = screen; *p; p++)
                n += *p == '\n';
        return n;
}

static unsigned count_lines(const char *needle)
{
        unsigned n = 0;
        for (const char *p = screen; p; p = strchr(p, '\n')) {
                p += *p == '\n';
                const char *end = strchr(p, '\n');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                const char *hit = strstr(p, needle);
                n += hit && hit < p + len;
        }
        return n;
}

/* The screen: 8 idle GPUs at 80x24, one of them lost after an Xid 79. The Xid
 * and the loss come first; the idle lines give way and are counted as fyi. */
static void test_critical_first_at_80x24(void **state)
{
        (void)state;
        gpus(8);
        fall_off(3);
        for (unsigned i = 0; i < 6; i++) { /* six warnings */
                char line[64];
                snprintf(line, sizeof(line), "type=ANOMALY gpu=%u flag=FAN_SPIKE", i);
                findings_feed_event(&events, 1764700000.0, line, strlen(line));
        }
        draw(24, 80);
        assert_int_equal(rows_drawn(), 24);
        assert_int_equal(count_lines("gpu3: Xid 79"), 1);
        assert_int_equal(count_lines("gpu3: GPU lost"), 1);
        const char *xid = strstr(screen, "gpu3: Xid 79"), *lost = strstr(screen, "gpu3: GPU lost");
        const char *fyi = strstr(screen, "(fyi)");
        assert_true(!fyi || (fyi > xid && fyi > lost));
        assert_int_equal(count_lines("earlier not shown"), 0);
        /* What was left out is counted by severity. */
        assert_int_equal(count_lines("FAN_SPIKE"), 6);
        assert_int_equal(count_lines("  (5 fyi not shown)"), 1);
        assert_int_equal(count_lines("critical not shown"), 0);
        assert_int_equal(count_lines("gpu7 "), 1); /* every GPU line still fits */
        /* Severity as a label, not only as order; the run goes on: no "end" yet. */
        assert_int_equal(count_lines("  (critical) gpu3: Xid 79"), 1);
        assert_int_equal(count_lines("  (critical) gpu3: GPU lost, still lost ("), 1);
        assert_int_equal(count_lines("at the end"), 0);
        assert_int_equal(count_lines("  (warning) gpu"), 6);
}

/* More critical findings than the screen has rows for the findings: every one is
 * shown, and the GPU lines give way. */
static void test_criticals_never_dropped(void **state)
{
        (void)state;
        gpus(8);
        for (unsigned i = 0; i < 8; i++)
                fall_off(i);
        draw(24, 80);
        for (unsigned i = 0; i < 8; i++) {
                char want[32];
                snprintf(want, sizeof(want), "gpu%u: Xid 79", i);
                assert_int_equal(count_lines(want), 1);
                snprintf(want, sizeof(want), "gpu%u: GPU lost", i);
                assert_int_equal(count_lines(want), 1);
        }
        assert_int_equal(count_lines("8 fyi not shown)"), 1);
        assert_true(rows_drawn() <= 24);
        assert_int_equal(count_lines(" vigil "), 1); /* the title stays */
}

/* An Xid of the application class is a warning: it comes after a critical one, and a
 * screen short of rows drops it before any critical one. */
static void test_xid_class_severity(void **state)
{
        (void)state;
        gpus(1);
        const char *app = "type=NVML_EVENT gpu=0 event=Xid(13) mask=0x0008 data=13 xid=13 "
                          "class=application meaning=\"graphics engine exception\" "
                          "action=\"restart the application\" severity=warning "
                          "nvidia_action=RESTART_APP";
        findings_feed_event(&events, 1764700000.0, app, strlen(app));
        fall_off(0);
        const struct finding *x13 = findings_find(&events, FINDING_XID, "gpu0", "13");
        const struct finding *x79 = findings_find(&events, FINDING_XID, "gpu0", "79");
        assert_non_null(x13);
        assert_non_null(x79);
        assert_int_equal(x13->severity, FINDING_WARNING);
        assert_int_equal(x79->severity, FINDING_CRITICAL);
        findings_sort(&events);
        assert_int_equal(events.items[events.n - 1].kind, FINDING_XID);
        assert_string_equal(events.items[events.n - 1].key, "13");
        draw(8, 80); /* title, host, GPU header and line, then 4 rows of findings */
        assert_int_equal(count_lines("gpu0: Xid 79"), 1);
        assert_int_equal(count_lines("gpu0: GPU lost"), 1);
        assert_int_equal(count_lines("Xid 13"), 0);
        assert_int_equal(count_lines("(1 warning, 1 fyi not shown)"), 1);
}

/* The widest row of screen[], in columns (a UTF-8 character is one). */
static unsigned widest_row(void)
{
        unsigned w = 0, max = 0;
        for (const unsigned char *p = (const unsigned char *)screen; *p; p++) {
                if (*p == '\n') {
                        w = 0;
                        continue;
                }
                if ((*p & 0xc0) != 0x80 && ++w > max)
                        max = w;
        }
        return max;
}

/* At every size, narrow ones included, no row is wider than the terminal and no more
 * rows are drawn than it has (a row past the width wraps; one past the height, or a
 * character in the bottom-right corner followed by another, scrolls the screen). */
static void test_never_past_the_terminal(void **state)
{
        (void)state;
        static const unsigned cols[] = {1, 2, 10, 19, 20, 40, 79, 80, 81, 120, 200};
        static const unsigned rows[] = {1, 2, 3, 5, 24, 50};
        for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
                for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
                        gpus(8);
                        fall_off(3);
                        draw(rows[r], cols[c]);
                        if (widest_row() > cols[c] || rows_drawn() > rows[r])
                                fail_msg("%ux%u: %u columns, %u rows", cols[c], rows[r],
                                         widest_row(), rows_drawn());
                }
}

/* The second row (the one under the title), without its newline. */
static void row2(char *out, size_t cap)
{
        const char *p = strchr(screen, '\n');
        assert_non_null(p);
        p++;
        const char *end = strchr(p, '\n');
        snprintf(out, cap, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
}

/* The health verdict under the title: the lost GPU's part with its action first, within
 * 80 columns, every critical finding still shown; one healthy line when all are; past
 * three parts, the last row counts the rest. */
static void test_health_lines(void **state)
{
        (void)state;
        verdict = calloc(1, sizeof(*verdict));
        assert_non_null(verdict);
        health_init(verdict, "", NULL, NULL);
        verdict->ngpus = 8;
        gpus(8);
        char row[512];
        draw(24, 80);
        row2(row, sizeof(row));
        assert_string_equal(row, "health: healthy: every component");
        fall_off(3);
        static const char lost[] = "type=GPU_COUNT state=missing answering=7 expected=8 from=state";
        health_feed_event(verdict, 1764700002.0, lost, strlen(lost));
        draw(24, 80);
        row2(row, sizeof(row));
        assert_memory_equal(row, "unhealthy gpu.pcie: reboot the machine; since ", 46);
        assert_true(widest_row() <= 80 && rows_drawn() <= 24);
        assert_int_equal(count_lines("gpu3: Xid 79"), 1);
        assert_int_equal(count_lines("gpu3: GPU lost"), 1);
        for (unsigned g = 0; g < 5; g++) {
                char line[96];
                snprintf(line, sizeof(line),
                         "type=TEMP_OVER_MAX gpu=%u state=above temp=95C max=90C", g);
                health_feed_event(verdict, 1764700003.0, line, strlen(line));
        }
        draw(24, 80);
        assert_int_equal(count_lines("degraded gpu"), 1); /* 3 rows: the last counts */
        assert_int_equal(count_lines("  (+4 more: vigil health)"), 1);
        assert_true(strstr(screen, "unhealthy gpu.pcie") < strstr(screen, "degraded gpu"));
        free(verdict);
        verdict = NULL;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_critical_first_at_80x24),
            cmocka_unit_test(test_criticals_never_dropped),
            cmocka_unit_test(test_xid_class_severity),
            cmocka_unit_test(test_never_past_the_terminal),
            cmocka_unit_test(test_health_lines),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
