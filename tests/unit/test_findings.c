/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the findings model (core/findings.c, core/findings_events.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/counters.h"
#include "core/findings.h"
#include "core/run_findings.h"
#include "util/clock.h"
#include "resident.h"

static struct findings *new_findings(void)
{
        struct findings *f = malloc(sizeof(*f));
        assert_non_null(f);
        findings_init(f);
        return f;
}

static void feed(struct findings *f, double t, const char *line)
{
        findings_feed_event(f, t, line, strlen(line));
}

static char *text_of(const struct findings *f)
{
        static char buf[8192];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        findings_text(f, "", &sb);
        assert_false(sb.overflow);
        return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
        if (!strstr(hay, needle)) {
                fprintf(stderr, "missing: [%s]\nin:\n%s\n", needle, hay);
                fail();
        }
}

/* Every kind has a name and a title: a new kind is one table entry. */
static void test_kind_table(void **state)
{
        (void)state;
        for (unsigned k = 0; k < FINDING_KIND_COUNT; k++) {
                assert_non_null(findings_kinds[k].name);
                assert_non_null(findings_kinds[k].title);
                for (unsigned j = 0; j < k; j++)
                        assert_string_not_equal(findings_kinds[k].name, findings_kinds[j].name);
        }
}

static void test_clean_only_when_nothing_happened(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        findings_add_source(f, "host");
        findings_add_source(f, "gpu0");
        findings_add_source(f, "gpu0");
        assert_true(findings_clean(f));
        assert_string_equal(text_of(f), "What happened: nothing \xE2\x80\x94 clean (watched: host, "
                                        "gpu0)\n");
        /* An idle GPU is worth a line, not an alarm. */
        struct finding *x = findings_get(f, FINDING_THROTTLE, "gpu0", "GpuIdle");
        assert_non_null(x);
        x->value = 0.5;
        assert_true(findings_clean(f));
        assert_contains(text_of(f), "  (fyi) gpu0: throttle reason GpuIdle 50.0% of the time\n");
        /* A power cap is. */
        findings_get(f, FINDING_THROTTLE, "gpu0", "SwPowerCap")->value = 0.25;
        assert_false(findings_clean(f));
        findings_sort(f);
        char *t = text_of(f);
        assert_contains(t,
                        "What happened:\n  (warning) gpu0: throttle reason SwPowerCap 25.0% of the "
                        "time\n");
        assert_null(strstr(t, "clean"));
        free(f);
}

static void test_lost_and_back(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 1000.0, "type=NVML_FAILED gpu=1 error=\"GPU is lost\"");
        feed(f, 1000.1, "type=NVML_EVENT gpu=1 event=GpuUnavailable mask=0x4000 data=0");
        feed(f, 1002.5, "type=GPU_RECOVERED gpu=1 failures=4");
        feed(f, 1010.0, "type=NVML_FAILED gpu=1 error=\"GPU is lost\"");
        const struct finding *x = findings_find(f, FINDING_GPU_LOST, "gpu1", NULL);
        assert_non_null(x);
        assert_int_equal(x->count, 2);
        assert_true(fabs(x->value - 2.5) < 1e-9);
        assert_true(x->open_t == 1010.0); /* lost again at the end */
        assert_contains(text_of(f),
                        "(critical) gpu1: GPU lost for 2.5 s in all, still lost at the end (2x, ");
        /* While the run goes on there is no end yet. */
        f->running = true;
        assert_contains(text_of(f), "(critical) gpu1: GPU lost for 2.5 s in all, still lost (2x, ");
        struct strbuf sb;
        static char html[8192];
        sb_init_fixed(&sb, html, sizeof(html));
        findings_html(f, &sb);
        assert_contains(html, "<li class=\"finding gpu_lost critical alarm\"><span "
                              "class=\"sev\">critical</span> <b>gpu1</b> GPU lost for 2.5 s in "
                              "all, still lost (");
        assert_false(findings_clean(f));
        free(f);
}

/* A Pi condition follows its clear event: it happened (an alarm still), and says it
 * cleared; "currently throttled" is no longer "currently". Set again: current again. */
static void test_pi_condition_cleared(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 1000.0,
             "type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005");
        feed(f, 1000.0,
             "type=RPI_THROTTLE condition=\"currently throttled\" state=set throttled=0x50005");
        assert_contains(text_of(f), "pi: Pi under-voltage (");
        feed(f, 1060.0,
             "type=RPI_THROTTLE condition=\"under-voltage\" state=cleared throttled=0x50000");
        feed(f, 1060.0,
             "type=RPI_THROTTLE condition=\"currently throttled\" state=cleared throttled=0x50000");
        const char *t = text_of(f);
        assert_contains(t, "pi: Pi under-voltage, cleared (first ");
        assert_contains(t, "pi: Pi throttled, cleared (first ");
        assert_null(strstr(t, "currently"));
        assert_false(findings_clean(f));
        const struct finding *x = findings_find(f, FINDING_PI_THROTTLE, "pi", "under-voltage");
        assert_non_null(x);
        assert_int_equal(x->count, 1);
        feed(f, 1100.0,
             "type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005");
        assert_false(x->cleared);
        assert_int_equal(x->count, 2);
        assert_contains(text_of(f), "pi: Pi under-voltage (2x, ");
        free(f);
}

static void test_xid_meaning_and_count(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        const char *line = "type=NVML_EVENT gpu=0 event=Xid(79) mask=0x0008 data=79 xid=79 "
                           "class=reboot meaning=\"GPU has fallen off the bus\" action=\"reboot "
                           "the machine\"";
        feed(f, 2000.0, line);
        feed(f, 2005.0, line);
        feed(f, 2001.0,
             "type=NVML_EVENT gpu=0 event=Xid(999) mask=0x0008 data=999 xid=999 "
             "meaning=\"not in NVIDIA's Xid catalog\"");
        const struct finding *x = findings_find(f, FINDING_XID, "gpu0", "79");
        assert_non_null(x);
        assert_int_equal(x->count, 2);
        assert_true(x->first_t == 2000.0 && x->last_t == 2005.0);
        assert_string_equal(x->text, "GPU has fallen off the bus. Action: reboot the machine");
        assert_non_null(findings_find(f, FINDING_XID, "gpu0", "999"));
        assert_null(findings_find(f, FINDING_XID, "gpu1", "79"));
        /* Without a severity (an older log), an alarm. */
        assert_true(x->alarm);
        free(f);
}

/* An Xid NVIDIA's catalog asks nothing for (IGNORE: severity=info) is not an alarm; a
 * critical one is. */
static void test_xid_severity(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 1,
             "type=NVML_EVENT gpu=0 event=Xid(63) mask=0x0008 data=63 xid=63 class=info "
             "meaning=\"row-remap / page-retirement event\" action=\"none: informational\" "
             "severity=info nvidia_action=IGNORE");
        feed(f, 2,
             "type=NVML_EVENT gpu=0 event=Xid(46) mask=0x0008 data=46 xid=46 class=reset "
             "meaning=\"GPU stopped processing (GPU timeout)\" action=\"reset the GPU\" "
             "severity=critical nvidia_action=RESET_GPU");
        const struct finding *x = findings_find(f, FINDING_XID, "gpu0", "63");
        assert_non_null(x);
        assert_false(x->alarm);
        assert_string_equal(x->text, "row-remap / page-retirement event. Action: none: "
                                     "informational");
        x = findings_find(f, FINDING_XID, "gpu0", "46");
        assert_non_null(x);
        assert_true(x->alarm);
        free(f);
}

/* type=KERNEL_GPU lines (detect/kernel_gpu.c): a GPU fallen off the bus is a GPU lost
 * and an Xid 79; the other kinds are their own, a device without a GPU its address;
 * corrected PCIe errors are no alarm. */
static void test_kernel_gpu(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 3000.0,
             "type=KERNEL_GPU kind=fallen_off_bus gpu=0 pci=0000:01:00.0 xid=79 meaning=\"GPU has "
             "fallen off the bus\" action=\"reboot the machine\" text=\"fallen off the bus\"");
        assert_non_null(findings_find(f, FINDING_GPU_LOST, "gpu0", NULL));
        const struct finding *x = findings_find(f, FINDING_XID, "gpu0", "79");
        assert_non_null(x);
        assert_string_equal(x->text, "GPU has fallen off the bus. Action: reboot the machine");
        feed(f, 3001.0,
             "type=KERNEL_GPU kind=sxid pci=0000:c6:00.0 sxid=20034 meaning=\"NVSwitch error\" "
             "action=\"a fatal SXid needs a reset\" text=\"Fatal\"");
        x = findings_find(f, FINDING_KERNEL_GPU, "0000:c6:00.0", "sxid 20034");
        assert_non_null(x);
        assert_true(x->alarm);
        assert_true(findings_find(f, FINDING_GPU_LOST, "0000:c6:00.0", NULL) == NULL);
        feed(f, 3002.0,
             "type=KERNEL_GPU kind=aer_corrected gpu=0 pci=0000:01:00.0 meaning=\"PCIe corrected "
             "error on the GPU's link\" action=\"none at once\" text=\"Corrected\"");
        x = findings_find(f, FINDING_KERNEL_GPU, "gpu0", "aer_corrected");
        assert_non_null(x);
        assert_false(x->alarm);
        feed(f, 3003.0,
             "type=KERNEL_GPU kind=gsp_timeout driver_gpu=0 meaning=\"GSP\" action=\"\"");
        assert_non_null(findings_find(f, FINDING_KERNEL_GPU, "host", "gsp_timeout"));
        assert_contains(text_of(f), "0000:c6:00.0: kernel log sxid 20034");
        /* Lost until the GPU answers again: nothing said it came back. */
        assert_contains(text_of(f), "gpu0: GPU lost, still lost at the end");
        /* A fatal SXid (severity=critical) is critical; a non-fatal one a warning. */
        assert_int_equal(
            findings_find(f, FINDING_KERNEL_GPU, "0000:c6:00.0", "sxid 20034")->severity,
            FINDING_WARNING);
        feed(f, 3004.0,
             "type=KERNEL_GPU kind=sxid pci=0000:c7:00.0 sxid=12028 severity=critical "
             "meaning=\"fatal "
             "NVSwitch error (egress)\" action=\"reset\" text=\"Fatal, Link 32\"");
        assert_int_equal(
            findings_find(f, FINDING_KERNEL_GPU, "0000:c7:00.0", "sxid 12028")->severity,
            FINDING_CRITICAL);
        /* A device NVML does not list, lost: no GPU_RECOVERED can name it. */
        feed(f, 3005.0,
             "type=KERNEL_GPU kind=fallen_off_bus pci=0000:41:00.0 xid=79 meaning=\"GPU has "
             "fallen off the bus\" action=\"reboot\" text=\"fallen off the bus\"");
        assert_contains(text_of(f), "0000:41:00.0: GPU lost, still lost at the end");
        /* The GPU answers again: back. */
        feed(f, 3010.0, "type=GPU_RECOVERED gpu=0 failures=3");
        assert_contains(text_of(f), "gpu0: GPU lost for 10.0 s in all, back");
        free(f);
}

static void test_event_kinds(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 1,
             "type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/crash-1.log reason=\"Event: "
             "Xid(79)\"");
        feed(f, 2,
             "type=CRASH_SNAPSHOT gpu=0 number=0 file=crashes/crash-2.log reason=\"Requested: "
             "checkup\"");
        feed(f, 3, "type=ENFORCED_LIMIT_CHANGE gpu=0 from=600W to=300W delta=-300W");
        feed(f, 4, "type=TDP_CHANGE from=600W to=450W delta=-150W gpu=0");
        feed(f, 5, "type=ANOMALY gpu=0 flag=TDP_REDUCED(450W)");
        feed(f, 5, "type=ANOMALY gpu=0 flag=PWR+75W suppressed=3");
        feed(f, 6, "type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005");
        feed(f, 7, "type=RPI_THROTTLE condition=\"under-voltage\" state=cleared throttled=0x50000");
        feed(f, 8,
             "type=RPI_THROTTLE_HISTORY throttled=0x50000 since_boot=\"under-voltage "
             "occurred since boot\"");
        feed(f, 9,
             "type=TREND field=chromium_procs state=rising slope_per_h=+4.00 "
             "limit_per_h=2.00 window=40m");
        feed(f, 9,
             "type=TREND field=player_pss_mb state=rising slope_per_h=+60.00 "
             "limit_per_h=10.00 window=90m runs_out_in=20.0h");
        feed(f, 10, "type=DISK_LOW free_mb=10 action=pause");
        feed(f, 40, "type=DISK_RESUMED free_mb=900 paused_s=30");
        feed(f, 41, "type=WRITE_RESUMED dropped_rows=12 failed_s=3 error=\"No space left\"");
        feed(f, 42, "type=THROTTLE gpu=0 from=None to=SwPowerCap"); /* shares come from counters */
        feed(f, 43, "type=START version=0.1.0 pid=1");
        feed(f, 44,
             "type=STORAGE state=read-only fs=root mount=/ device=/dev/mmcblk0p2 "
             "fstype=ext4");
        feed(f, 45, "type=STORAGE_ERRORS new=3 total=3 last=\"mmcblk0: error -110\"");
        feed(f, 46, "type=STORAGE_ERRORS state=quiet total=3");
        feed(f, 47, "type=STORAGE_FILL state=filling fs=log mount=/var/log full_in=5.2h");
        feed(f, 48, "type=STORAGE state=read-write");
        assert_string_equal(findings_find(f, FINDING_LEAK, "host", "player_pss_mb")->text,
                            "+60.00 per hour; at this rate memory runs out in ~20.0h");
        assert_non_null(findings_find(f, FINDING_CRASH_SNAPSHOT, "gpu0", "crashes/crash-1.log"));
        assert_non_null(findings_find(f, FINDING_SNAPSHOT, "gpu0", NULL));
        assert_string_equal(findings_find(f, FINDING_ENFORCED_LIMIT, "gpu0", NULL)->text,
                            "600W \xE2\x86\x92 300W");
        assert_non_null(findings_find(f, FINDING_POWER_LIMIT, "gpu0", NULL));
        assert_non_null(findings_find(f, FINDING_ANOMALY, "gpu0", "TDP_REDUCED"));
        assert_non_null(findings_find(f, FINDING_ANOMALY, "gpu0", "PWR+"));
        assert_int_equal(findings_find(f, FINDING_PI_THROTTLE, "pi", "under-voltage")->count, 1);
        assert_string_equal(findings_find(f, FINDING_PI_BOOT, "pi", NULL)->text,
                            "under-voltage occurred since boot");
        const struct finding *leak = findings_find(f, FINDING_LEAK, "host", "chromium_procs");
        assert_non_null(leak);
        assert_true(leak->value == 4.0);
        assert_true(findings_find(f, FINDING_DISK_PAUSE, "host", NULL)->value == 30.0);
        assert_int_equal(findings_find(f, FINDING_WRITE_ERRORS, "host", NULL)->count, 12);
        assert_null(findings_find(f, FINDING_THROTTLE, "gpu0", "SwPowerCap"));
        assert_string_equal(findings_find(f, FINDING_STORAGE, "host", "read-only")->text,
                            "root (/) mounted read-only");
        assert_int_equal(findings_find(f, FINDING_STORAGE, "host", "errors")->count, 3);
        assert_string_equal(findings_find(f, FINDING_STORAGE, "host", "errors")->text,
                            "mmcblk0: error -110");
        assert_string_equal(findings_find(f, FINDING_STORAGE, "host", "filling")->text,
                            "log full in 5.2h at this rate");
        size_t n = f->n;
        feed(f, 44, "type=STOP samples=3");
        feed(f, 45, "not an event line");
        assert_int_equal(f->n, n);
        /* A requested snapshot alone is no alarm. */
        struct findings *g = new_findings();
        feed(g, 2, "type=SNAPSHOT reason=\"checkup\" snapshot=incidents/x.log");
        assert_true(findings_clean(g));
        free(g);
        free(f);
}

/* A watched program: down from gone to back ("not running ... for N s"), its restarts
 * with their cause, an OOM kill of it critical and one of another process a warning. */
static void test_watch_and_oom(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        feed(f, 100,
             "type=WATCH watch=\"player\" state=\"gone\" old_pid=812 "
             "cause=\"out of memory (python3 pid 812)\"");
        const struct finding *x = findings_find(f, FINDING_WATCH_DOWN, "host", "player");
        assert_non_null(x);
        assert_true(isfinite(x->open_t));
        assert_contains(text_of(f), "watch down player");
        assert_contains(text_of(f), "still missing");
        feed(f, 114, "type=WATCH watch=\"player\" state=\"back\" pid=990 down_s=14 restarts=1");
        assert_true(isnan(x->open_t));
        assert_true(fabs(x->value - 14.0) < 1e-9);
        assert_contains(text_of(f), "watch down player for 14.0 s in all, back");
        feed(f, 200,
             "type=WATCH watch=\"player\" state=\"restarted\" pid=991 old_pid=990 "
             "cause=\"segfault (chromium pid 990)\"");
        x = findings_find(f, FINDING_WATCH_RESTART, "host", "player");
        assert_non_null(x);
        assert_int_equal(x->count, 2);
        assert_string_equal(x->text, "segfault (chromium pid 990)");
        assert_true(fabs(findings_find(f, FINDING_WATCH_DOWN, "host", "player")->value - 14.0) <
                    1e-9);
        /* a restart without a gap opens no time down */
        feed(f, 300, "type=WATCH watch=\"kiosk\" state=\"restarted\" pid=5 old_pid=4");
        assert_null(findings_find(f, FINDING_WATCH_DOWN, "host", "kiosk"));
        feed(f, 400,
             "type=OOM_KILL pid=812 comm=\"python3\" watch=\"player\" "
             "scope=\"machine\"");
        feed(f, 401, "type=OOM_KILL pid=9 comm=\"sleep\" scope=\"machine\"");
        x = findings_find(f, FINDING_OOM_KILL, "host", "player");
        assert_non_null(x);
        assert_int_equal(x->severity, FINDING_CRITICAL);
        assert_string_equal(x->text, "python3 (pid 812)");
        x = findings_find(f, FINDING_OOM_KILL, "host", "sleep");
        assert_non_null(x);
        assert_int_equal(x->severity, FINDING_WARNING);
        feed(f, 402, "type=PROCESS_FAULT pid=3 comm=\"Xorg\" what=\"segfault\"");
        assert_non_null(findings_find(f, FINDING_PROCESS_FAULT, "host", "Xorg"));
        free(f);
}

static void test_bounded(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        char key[32];
        for (unsigned i = 0; i < FINDINGS_MAX + 5; i++) {
                snprintf(key, sizeof(key), "%u", i);
                findings_note(f, FINDING_XID, "gpu0", key, 1, (double)i, NULL);
        }
        assert_int_equal(f->n, FINDINGS_MAX);
        assert_int_equal(f->dropped, 5);
        assert_false(findings_clean(f));
        assert_contains(text_of(f), "(5 more findings not listed)");
        /* Long keys and sources are cut, never overflow. */
        char longkey[300];
        memset(longkey, 'k', sizeof(longkey) - 1);
        longkey[sizeof(longkey) - 1] = '\0';
        findings_init(f);
        assert_non_null(findings_note(f, FINDING_INCIDENT, longkey, longkey, 1, NAN, longkey));
        assert_int_equal(strlen(f->items[0].key), FINDING_KEY_LEN - 1);
        free(f);
}

static void test_html_escaped(void **state)
{
        (void)state;
        struct findings *f = new_findings();
        findings_note(f, FINDING_INCIDENT, "host", "<script>", 1, NAN, "a & b");
        char buf[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        findings_html(f, &sb);
        assert_contains(buf, "<section class=\"findings alarm\">");
        assert_contains(buf, "incident &lt;script&gt;");
        assert_contains(buf, "a &amp; b");
        assert_null(strstr(buf, "<script>"));
        free(f);
}

/* The daemon's counters each become one finding, counted once: the GPU rules'
 * statistics in the frame, whether or not the counters kept outside it are known. */
static void test_run_counters_once(void **state)
{
        (void)state;
        struct frame *fr = calloc(1, sizeof(*fr));
        struct counters *x = calloc(1, sizeof(*x));
        struct findings *out = calloc(1, sizeof(*out));
        assert_non_null(fr);
        assert_non_null(x);
        assert_non_null(out);
        fr->ngpus = 1;
        fr->gpus[0].present = fr->gpus[0].ok = true;
        fr->self.started_mono_ns = now_mono_ns() - 100 * NSEC_PER_SEC;
        fr->gpu_stats[0].anomalies[GPU_ANOM_FAN_SPIKE] = 3;
        fr->gpu_stats[0].failed_samples = 4;
        fr->gpu_stats[0].throttle_seconds[2] = 5;
        fr->gpu_stats[0].throttle_seconds[9] = 5;
        const struct counters *xs[2] = {NULL, x};
        for (unsigned i = 0; i < 2; i++) {
                struct run_findings_in in = {.frame = fr, .extra = xs[i]};
                run_findings_from(&in, out);
                const struct finding *a = findings_find(out, FINDING_ANOMALY, "gpu0", "FAN_SPIKE");
                assert_non_null(a);
                assert_int_equal(a->count, 3);
                const struct finding *n = findings_find(out, FINDING_NVML_FAILED, "gpu0", NULL);
                assert_non_null(n);
                assert_int_equal(n->count, 4);
                assert_non_null(findings_find(out, FINDING_THROTTLE, "gpu0", "SwPowerCap"));
                assert_non_null(findings_find(out, FINDING_THROTTLE, "gpu0", "UserDefinedClocks"));
                assert_null(findings_find(out, FINDING_THROTTLE, "gpu0", "GpuIdle"));
        }
        free(out);
        free(x);
        free(fr);
}

/* Every alarm says what a person does about it (the Alertmanager alert's runbook). */
static void test_every_alarm_has_a_runbook(void **state)
{
        (void)state;
        for (int k = 0; k < FINDING_KIND_COUNT; k++)
                if (findings_kinds[k].alarm) {
                        assert_non_null(findings_kinds[k].runbook);
                        assert_true(strlen(findings_kinds[k].runbook) > 20);
                }
}

/* findings_init writes the head alone and findings_copy copies the head and the items
 * in use: in fresh pages the unused items are never touched (the daemon keeps two sets
 * and the dashboard copies one a page), and the copy says what the original says. */
static void test_copy_touches_what_is_used(void **state)
{
        (void)state;
        const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        struct findings *f = fresh_pages(sizeof(*f)), *c = fresh_pages(sizeof(*c));
        assert_non_null(f);
        assert_non_null(c);
        assert_true(sizeof(*f) / pg >= 7);
        findings_init(f);
        assert_int_equal(resident_pages(f, sizeof(*f)), 1);
        findings_add_source(f, "gpu0");
        feed(f, 1000.0, "type=NVML_FAILED gpu=1 error=\"GPU is lost\"");
        findings_get(f, FINDING_THROTTLE, "gpu0", "SwPowerCap")->value = 0.25;
        assert_int_equal(f->n, 2);
        findings_copy(c, f);
        size_t used = offsetof(struct findings, items) + f->n * sizeof(f->items[0]);
        assert_true(resident_pages(c, sizeof(*c)) <= (long)((used + pg - 1) / pg));
        char *want = strdup(text_of(f));
        assert_string_equal(text_of(c), want);
        free(want);
        munmap(f, sizeof(*f));
        munmap(c, sizeof(*c));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_kind_table),
            cmocka_unit_test(test_every_alarm_has_a_runbook),
            cmocka_unit_test(test_clean_only_when_nothing_happened),
            cmocka_unit_test(test_lost_and_back),
            cmocka_unit_test(test_pi_condition_cleared),
            cmocka_unit_test(test_xid_meaning_and_count),
            cmocka_unit_test(test_xid_severity),
            cmocka_unit_test(test_event_kinds),
            cmocka_unit_test(test_kernel_gpu),
            cmocka_unit_test(test_watch_and_oom),
            cmocka_unit_test(test_bounded),
            cmocka_unit_test(test_html_escaped),
            cmocka_unit_test(test_run_counters_once),
            cmocka_unit_test(test_copy_touches_what_is_used),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
