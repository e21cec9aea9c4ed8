/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the cause of an unclean end (report/pm_cause.c) on the fixtures of
 * tests/fixtures/postmortem/causes (one per cause; make.sh there writes them), its
 * order of precedence, and the post-mortem's line that states it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pm_cause.h"
#include "report/postmortem.h"
#include "util/clock.h"

static const char *fixtures(void)
{
        return getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
}

/* The cause of the end of the log of fixture logs on the machine of fixture roots,
 * its evidence into why. */
static enum pm_cause cause_of(const char *logs, const char *roots, enum runstate_end kind,
                              int64_t prev_start_ns, char *why, size_t cap)
{
        char log[512], root[512];
        struct pm_csv_file files[4];
        struct pm_evidence e;
        snprintf(log, sizeof(log), "%s/postmortem/causes/%s/log", fixtures(), logs);
        snprintf(root, sizeof(root), "%s/postmortem/causes/%s/root", fixtures(), roots);
        int n = pm_csv_find(log, files, 4);
        assert_int_equal(n, 1);
        assert_false(isnan(files[0].last_t));
        pm_evidence_gather(log, root, kind, prev_start_ns, (int64_t)(files[0].last_t * 1e9), files,
                           n, &e);
        return pm_cause_decide(&e, kind, why, cap);
}

static void expect(const char *fixture, const char *root, enum runstate_end kind,
                   enum pm_cause want, const char *evidence)
{
        char why[PM_CAUSE_TEXT];
        enum pm_cause c = cause_of(fixture, root, kind, 0, why, sizeof(why));
        if (c != want || !strstr(why, evidence))
                fail_msg("%s on %s: %s (%s), want %s with \"%s\"", fixture, root, pm_cause_name(c),
                         why, pm_cause_name(want), evidence);
}

static void test_each_cause(void **state)
{
        (void)state;
        expect("brownout", "brownout", RUNSTATE_REBOOT, PM_CAUSE_BROWNOUT,
               "under-voltage in 3 of the 11 rows of the last 10 s of host-2026-12-03.csv "
               "(throttled 0x50005)");
        expect("thermal", "thermal", RUNSTATE_REBOOT, PM_CAUSE_THERMAL,
               "the soft temperature limit in 3 of the 11 rows");
        expect("oom", "oom", RUNSTATE_REBOOT, PM_CAUSE_OOM,
               "type=OOM_KILL pid=1100 comm=\"chromium\"");
        expect("gpu_lost", "gpu_lost", RUNSTATE_REBOOT, PM_CAUSE_GPU_LOST, "type=NVML_FAILED");
        expect("panic", "panic", RUNSTATE_REBOOT, PM_CAUSE_PANIC,
               "/sys/fs/pstore/dmesg-ramoops-0: Kernel panic - not syncing: VFS: Unable to mount");
        expect("watchdog", "watchdog", RUNSTATE_REBOOT, PM_CAUSE_WATCHDOG,
               "/sys/class/watchdog/watchdog0/bootstatus = 32 (WDIOF_CARDRESET)");
        /* an under-voltage and an OOM kill long before the end are not its cause */
        expect("power_cut", "power_cut", RUNSTATE_REBOOT, PM_CAUSE_POWER_CUT, "another boot");
        expect("power_cut", "power_cut", RUNSTATE_UNKNOWN, PM_CAUSE_POWER_CUT, "another boot");
        /* the same boot: only vigil's own OOM kill, not the machine's power */
        expect("killed_oom", "killed_oom", RUNSTATE_KILLED, PM_CAUSE_OOM, "comm=\"vigil\"");
        expect("brownout", "brownout", RUNSTATE_KILLED, PM_CAUSE_KILLED, "the same boot");
}

/* The order: panic, brown-out, heat, OOM, GPU, watchdog. */
static void test_precedence(void **state)
{
        (void)state;
        expect("brownout", "panic", RUNSTATE_REBOOT, PM_CAUSE_PANIC, "Kernel panic");
        expect("brownout", "watchdog", RUNSTATE_REBOOT, PM_CAUSE_BROWNOUT, "under-voltage");
        expect("oom", "watchdog", RUNSTATE_REBOOT, PM_CAUSE_OOM, "OOM_KILL");
        expect("gpu_lost", "watchdog", RUNSTATE_REBOOT, PM_CAUSE_GPU_LOST, "NVML_FAILED");
        expect("power_cut", "watchdog", RUNSTATE_REBOOT, PM_CAUSE_WATCHDOG, "bootstatus");
        /* a watchdog or pstore of the same boot says nothing of vigil's end */
        expect("power_cut", "panic", RUNSTATE_KILLED, PM_CAUSE_KILLED, "the same boot");
}

/* A panic record older than the previous run is not its end. */
static void test_old_panic(void **state)
{
        (void)state;
        char why[PM_CAUSE_TEXT];
        assert_int_equal(cause_of("power_cut", "panic", RUNSTATE_REBOOT, now_real_ns() + 3600e9,
                                  why, sizeof(why)),
                         PM_CAUSE_POWER_CUT);
        assert_int_equal(cause_of("power_cut", "panic", RUNSTATE_REBOOT, 0, why, sizeof(why)),
                         PM_CAUSE_PANIC);
}

/* Missing files are no evidence: a log directory and a machine with nothing. */
static void test_nothing_there(void **state)
{
        (void)state;
        struct pm_evidence e;
        char why[PM_CAUSE_TEXT];
        pm_evidence_gather("/nonexistent/log", "/nonexistent/root", RUNSTATE_REBOOT, 0, 0, NULL, 0,
                           &e);
        assert_int_equal(pm_cause_decide(&e, RUNSTATE_REBOOT, why, sizeof(why)),
                         PM_CAUSE_POWER_CUT);
        for (int c = 0; c < PM_CAUSE_COUNT; c++) {
                assert_int_equal(pm_cause_find(pm_cause_name((enum pm_cause)c)), c);
                assert_false(e.held[c]);
        }
        assert_int_equal(pm_cause_find("nope"), -1);
}

/* The previous boot's kernel log, its last lines: what it says at the end. */
static void test_kernel_log(void **state)
{
        (void)state;
        static const char head[] =
            "=== Kernel log of the previous boot ===\n"
            "journal: journalctl -k -b -1 -n 5000\n"
            "Important lines (2 of 900):\n"
            "Dec 03 03:00:01 pi kernel: hwmon hwmon1: Undervoltage detected!\n"
            "Dec 03 03:00:09 pi kernel: Out of memory: Killed process 7 (x) "
            "total-vm:1kB, anon-rss:1kB, file-rss:1kB, shmem-rss:1kB\n"
            "Last 3 lines:\n";
        static const struct {
                const char *tail;
                int cause; /* -1: none */
                const char *evidence;
        } cases[] = {
            {"Dec 03 03:01:18 pi kernel: hwmon hwmon1: Undervoltage detected!\n", PM_CAUSE_BROWNOUT,
             "kernel log: Dec 03 03:01:18 pi kernel: hwmon hwmon1: Undervoltage detected!"},
            {"Dec 03 03:01:10 pi kernel: hwmon hwmon1: Undervoltage detected!\n"
             "Dec 03 03:01:12 pi kernel: hwmon hwmon1: Voltage normalised\n",
             -1, ""},
            {"Dec 03 03:01:18 pi kernel: Memory cgroup out of memory: Killed process 812 "
             "(chromium) total-vm:900000kB, anon-rss:400000kB\n",
             PM_CAUSE_OOM, "Killed process 812 (chromium)"},
            {"Dec 03 03:01:18 pi kernel: thermal thermal_zone0: critical temperature reached, "
             "shutting down\n",
             PM_CAUSE_THERMAL, "critical temperature reached"},
            {"Dec 03 03:01:18 pi kernel: Kernel panic - not syncing: Attempted to kill init!\n",
             PM_CAUSE_PANIC, "Attempted to kill init"},
            {"Dec 03 03:01:18 pi kernel: usb 1-1: new device\n", -1, ""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char text[2048];
                struct pm_evidence e;
                memset(&e, 0, sizeof(e));
                int n = snprintf(text, sizeof(text),
                                 "%s%s\n=== Kernel crash dumps (pstore) ===\n"
                                 "Dec 03 Undervoltage detected! Out of memory: Killed process 1\n",
                                 head, cases[i].tail);
                pm_evidence_klog(&e, text, (size_t)n);
                for (int c = 0; c < PM_CAUSE_COUNT; c++)
                        if (e.held[c] != (c == cases[i].cause))
                                fail_msg("case %zu: %s %s", i, pm_cause_name((enum pm_cause)c),
                                         e.held[c] ? "held" : "not held");
                if (cases[i].cause >= 0)
                        assert_non_null(strstr(e.text[cases[i].cause], cases[i].evidence));
        }
        /* no kernel log section: nothing */
        struct pm_evidence e;
        memset(&e, 0, sizeof(e));
        pm_evidence_klog(&e, "Last 2 lines:\nOut of memory: Killed process 1 (a)\n", 45);
        for (int c = 0; c < PM_CAUSE_COUNT; c++)
                assert_false(e.held[c]);
}

/* The post-mortem states the cause on the line after its title, and the latest
 * post-mortem reads it back. */
static void test_postmortem_line(void **state)
{
        (void)state;
        char log[512], root[512], tmp[] = "/tmp/vigil-pmcause.XXXXXX", cmd[1200];
        snprintf(log, sizeof(log), "%s/postmortem/causes/thermal/log", fixtures());
        snprintf(root, sizeof(root), "%s/postmortem/causes/thermal/root", fixtures());
        assert_non_null(mkdtemp(tmp));
        snprintf(cmd, sizeof(cmd), "cp -r %s/. %s/", log, tmp);
        assert_int_equal(system(cmd), 0);
        struct postmortem_input in = {.log_dir = tmp,
                                      .root = root,
                                      .kind = RUNSTATE_REBOOT,
                                      .boot_id = "",
                                      .now_ns = now_real_ns()};
        struct postmortem_info info, back;
        assert_int_equal(postmortem_write(&in, &info), 0);
        assert_string_equal(info.cause, "thermal");
        assert_non_null(strstr(info.cause_text, "overheating, the soft temperature limit"));
        FILE *f = fopen(info.path, "r");
        char line[512];
        assert_non_null(f);
        assert_non_null(fgets(line, sizeof(line), f));
        assert_string_equal(line, "=== VIGIL POST-MORTEM ===\n");
        assert_non_null(fgets(line, sizeof(line), f));
        assert_int_equal(
            strncmp(line, "Cause: thermal: overheating, the soft temperature limit", 55), 0);
        fclose(f);
        assert_int_equal(postmortem_latest(tmp, &back), 0);
        assert_string_equal(back.cause, "thermal");
        assert_string_equal(back.cause_text, info.cause_text);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_each_cause), cmocka_unit_test(test_precedence),
            cmocka_unit_test(test_old_panic),  cmocka_unit_test(test_nothing_there),
            cmocka_unit_test(test_kernel_log), cmocka_unit_test(test_postmortem_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
