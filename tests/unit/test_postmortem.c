/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the run state file (core/runstate.c) and the post-mortem's pure parts
 * (report/pm_csv.c, pm_klog.c, postmortem.c) on string literals and a temporary log
 * directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/runstate.h"
#include "report/pm_csv.h"
#include "report/pm_klog.h"
#include "report/postmortem.h"

#define BOOT_A "5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10"
#define BOOT_B "0b5d6e7f-1111-4222-8333-944455556666"

static char dir[64];

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        snprintf(dir, sizeof(dir), "/tmp/vigil-postmortem-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        char cmd[128];
        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void test_state_roundtrip(void **state)
{
        (void)state;
        struct runstate st = {.pid = 4242, .started_ns = 1796212800123456789LL};
        struct runstate back;
        char buf[RUNSTATE_MAX_BYTES];
        struct strbuf sb;
        snprintf(st.boot_id, sizeof(st.boot_id), "%s", BOOT_A);
        st.unclean[RUNSTATE_REBOOT] = 3;
        sb_init_fixed(&sb, buf, sizeof(buf));
        runstate_format(&st, &sb);
        assert_int_equal(runstate_parse(sb.buf, sb.len, &back), 0);
        assert_string_equal(back.boot_id, BOOT_A);
        assert_int_equal(back.pid, 4242);
        assert_int_equal(back.started_ns, 1796212800123456789LL);
        assert_int_equal(back.stopped_ns, 0);
        assert_int_equal(back.unclean[RUNSTATE_REBOOT], 3);
        /* Saved and loaded through the file. */
        st.stopped_ns = 1796212900LL * 1000000000LL;
        assert_int_equal(runstate_save(dir, &st), 0);
        assert_int_equal(runstate_load(dir, &back), 0);
        assert_int_equal(back.stopped_ns, st.stopped_ns);
}

/* The machine's identity: kept across runs, and the pair a cloned image betrays. */
static void test_state_identity(void **state)
{
        (void)state;
        struct runstate st = {.pid = 1}, back;
        char buf[RUNSTATE_MAX_BYTES];
        struct strbuf sb;
        snprintf(st.machine_id, sizeof(st.machine_id), "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091");
        snprintf(st.hardware_id, sizeof(st.hardware_id), "/h5rj2y2/cnfcp0087t00y5/ rev a");
        sb_init_fixed(&sb, buf, sizeof(buf));
        runstate_format(&st, &sb);
        assert_non_null(strstr(buf, "\nmachine_id=4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091\n"));
        assert_int_equal(runstate_parse(sb.buf, sb.len, &back), 0);
        assert_string_equal(back.machine_id, st.machine_id);
        assert_string_equal(back.hardware_id, st.hardware_id);
        const char *id = st.machine_id;
        assert_false(runstate_cloned(&back, id, st.hardware_id)); /* the same machine */
        assert_true(runstate_cloned(&back, id, "10000000deadbeef"));
        assert_false(runstate_cloned(&back, "0f0e0d0c0b0a09080706050403020100", "x")); /* renewed */
        assert_false(runstate_cloned(&back, id, "")); /* no hardware identity here */
        assert_false(runstate_cloned(NULL, id, "x")); /* no earlier run */
        back.hardware_id[0] = '\0';                   /* a state file from before */
        assert_false(runstate_cloned(&back, id, "x"));
        /* A value with a control byte is not read. */
        const char *t = "pid=3\nhardware_id=ab\001cd\n";
        assert_int_equal(runstate_parse(t, strlen(t), &back), 0);
        assert_string_equal(back.hardware_id, "");
}

static void test_state_parse_damage(void **state)
{
        (void)state;
        struct runstate st;
        memset(&st, 0x5a, sizeof(st));
        /* Not a state file: nothing known; *ret untouched. */
        assert_int_equal(runstate_parse("hello\nworld=1\n", 14, &st), -22);
        assert_int_equal(st.pid, 0x5a5a5a5a5a5a5a5aLL);
        /* A bad boot id and a negative time are ignored, the rest read. */
        const char *t = "boot_id=not-a-boot-id\nstarted_ns=-5\npid=7\nunclean_killed=2\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_string_equal(st.boot_id, "");
        assert_int_equal(st.started_ns, 0);
        assert_int_equal(st.pid, 7);
        assert_int_equal(st.unclean[RUNSTATE_KILLED], 2);
        /* Upper case is the same boot id (lower-cased). */
        t = "boot_id=5C1F1A8E-7A43-4D8E-9F55-0E2B1D7F6A10\r\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_string_equal(st.boot_id, BOOT_A);
        assert_int_equal(runstate_load(dir, &st) == -2 || runstate_load(dir, &st) == 0, 1);
}

static void test_classify(void **state)
{
        (void)state;
        struct runstate prev = {.pid = 1};
        snprintf(prev.boot_id, sizeof(prev.boot_id), "%s", BOOT_A);
        assert_int_equal(runstate_classify(NULL, BOOT_A), RUNSTATE_FIRST);
        assert_int_equal(runstate_classify(&prev, BOOT_A), RUNSTATE_KILLED);
        assert_int_equal(runstate_classify(&prev, BOOT_B), RUNSTATE_REBOOT);
        assert_int_equal(runstate_classify(&prev, ""), RUNSTATE_UNKNOWN);
        prev.stopped_ns = 1;
        assert_int_equal(runstate_classify(&prev, BOOT_B), RUNSTATE_CLEAN);
        assert_false(runstate_end_unclean(RUNSTATE_CLEAN));
        assert_true(runstate_end_unclean(RUNSTATE_REBOOT));
        assert_string_equal(runstate_end_name(RUNSTATE_KILLED), "killed");
}

static void test_boot_id(void **state)
{
        (void)state;
        char id[40], path[256];
        snprintf(path, sizeof(path), "%s/proc/sys/kernel/random", dir);
        char cmd[700];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && echo %s > '%s/boot_id'", path, BOOT_B, path);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(runstate_boot_id(dir, id, sizeof(id)), 0);
        assert_string_equal(id, BOOT_B);
        snprintf(cmd, sizeof(cmd), "echo garbage > '%s/boot_id'", path);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(runstate_boot_id(dir, id, sizeof(id)), -22);
        assert_string_equal(id, "");
}

static void test_split(void **state)
{
        (void)state;
        const char *cell[8];
        size_t len[8];
        const char *row = "2026-12-03T03:01:02.300,0x50005,\"NOW:under-voltage,HAS:x\",,47.2";
        unsigned n = pm_csv_split(row, strlen(row), cell, len, 8);
        assert_int_equal(n, 5);
        assert_int_equal(len[2], strlen("NOW:under-voltage,HAS:x"));
        assert_memory_equal(cell[2], "NOW:under-voltage,HAS:x", len[2]);
        assert_int_equal(len[3], 0);
        assert_memory_equal(cell[4], "47.2", 4);
        assert_int_equal(pm_csv_split("a,b,c", 5, cell, len, 2), 2);
}

static void test_klog_rank(void **state)
{
        (void)state;
        static const char text[] =
            "-- Boot 1 --\n"
            "kernel: usb 1-2: new high-speed USB device\n"
            "kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, GPU has fallen off the bus.\n"
            "kernel: e1000e: NIC Link is Up\n"
            "kernel: mmc0: timeout waiting for hardware interrupt\n"
            "kernel: hwmon hwmon1: Undervoltage detected!\n"
            "kernel: last line\n";
        char buf[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_true(pm_klog_important("x AER: y", 8));
        assert_true(pm_klog_important("EXT4-fs error", 13));
        assert_false(pm_klog_important("usb 1-2: new", 12));
        pm_klog_rank(&sb, text, sizeof(text) - 1, NULL);
        const char *imp = strstr(sb.buf, "Important lines (3 of 6):\n");
        const char *tail = strstr(sb.buf, "Last 6 lines:\n");
        assert_non_null(imp);
        assert_non_null(tail);
        assert_true(imp < tail);
        assert_non_null(strstr(imp, "fallen off the bus.  [Xid 79: GPU has fallen off the bus]\n"
                                    "kernel: mmc0:"));
        /* Journal notes are not lines. */
        assert_null(strstr(sb.buf, "-- Boot"));
        assert_non_null(strstr(tail, "kernel: last line\n"));
}

/* A kern.log with binary garbage (NUL bytes after a power loss, escape sequences):
 * the post-mortem shows its lines with every control byte as \xNN, never raw. */
static void test_klog_binary(void **state)
{
        (void)state;
        static const char text[] = "kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\0\0\0, "
                                   "GPU has fallen off the bus.\n"
                                   "\0\0\0\0\0\0\0\0kernel: \x1b[31mpanic\x1b[0m\r\n"
                                   "kernel: last line\x7f\n";
        char buf[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        pm_klog_rank(&sb, text, sizeof(text) - 1, NULL);
        for (size_t i = 0; i < sb.len; i++)
                assert_true((unsigned char)sb.buf[i] >= 0x20 && sb.buf[i] != 0x7f
                                ? true
                                : sb.buf[i] == '\n');
        assert_non_null(strstr(sb.buf, "name=x\\x00\\x00\\x00, GPU has fallen off the bus."));
        assert_non_null(strstr(sb.buf, "\\x00kernel: \\x1b[31mpanic\\x1b[0m\\x0d"));
        assert_non_null(strstr(sb.buf, "kernel: last line\\x7f\n"));
}

/* A GPU fallen off the bus without an Xid 79 (the 570.x probe message, osapi.c:3659,
 * as journalctl -k prints a record with two '\n') is a GPU lost, with its address;
 * the probe failure and an SXid are named. */
static void test_klog_gpu(void **state)
{
        (void)state;
        static const char text[] =
            "Dec 03 03:01:02 host kernel: NVRM: The NVIDIA GPU 0000:b3:00.0\n"
            "                             NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
            "                             NVRM: fallen off the bus and is not responding to "
            "commands.\n"
            "Dec 03 03:01:02 host kernel: nvidia 0000:b3:00.0: probe with driver nvidia failed "
            "with error -1\n"
            "Dec 03 03:01:03 host kernel: nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 28001, OSFP "
            "Thermal Warn Activated\n";
        char buf[4096];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        pm_klog_rank(&sb, text, sizeof(text) - 1, NULL);
        const char *imp = strstr(sb.buf, "Important lines (5 of 5):\n");
        assert_non_null(imp);
        assert_non_null(strstr(imp, "not responding to commands.  [GPU lost 0000:b3:00.0, as "
                                    "Xid 79: GPU has fallen off the bus]\n"));
        assert_non_null(strstr(imp, "failed with error -1  [init_failed]\n"));
        assert_non_null(strstr(imp, "Thermal Warn Activated  [sxid]\n"));
        const char *tail = strstr(sb.buf, "Last 5 lines:\n");
        assert_non_null(tail);
        assert_non_null(strstr(tail, "[GPU lost 0000:b3:00.0, as Xid 79"));
}

/* A log directory: a GPU log whose last 10 s run hot, a torn last row, a Pi host log
 * under-volted in its last row, and an older day that must not be read. */
static void test_build(void **state)
{
        (void)state;
        char gpu[8192] = "timestamp,gpu_temp,power_instant,gpu_clock,mem_clock,fan0_speed_pct,"
                         "throttle_bitmask,throttle_reasons\n";
        for (int s = 0; s <= 70; s++) {
                size_t n = strlen(gpu);
                snprintf(gpu + n, sizeof(gpu) - n,
                         "2026/12/03 03:%02d:%02d.000,%d,%d.5,1980,9501,%d,%s\n", s / 60, s % 60,
                         s >= 61 ? 80 + s - 61 : 60, 100 + s, 30 + s % 3,
                         s >= 65 ? "0x0040,HwThermalSlowdown" : "0x0000,None");
        }
        strcat(gpu, "2026/12/03 03:01:1"); /* torn */
        put("gpu0-2026-12-03.csv", gpu);
        put("gpu0-2026-12-02.csv", "timestamp,gpu_temp\n2026/12/02 23:59:59.000,99\n");
        put("host-2026-12-03.csv",
            "timestamp,temp_c,volt_core_v,throttled_raw,throttle_flags\n"
            "2026-12-03T03:01:09.000,61.0,0.8625,0x50000,\"HAS:under-voltage occurred\"\n"
            "2026-12-03T03:01:10.000,62.5,0.8563,0x50005,\"NOW:under-voltage,HAS:x\"\n");
        put("events.log",
            "2026-12-03T03:00:20.000000 type=GPU_PROCESSES gpu=0 reason=start compute=1 "
            "graphics=0 pids=4000:python3 workloads=4000=slurm:4100.0\n"
            "2026-12-03T03:00:25.000000 type=GPU_PROCESSES gpu=1 reason=start compute=1 "
            "graphics=0 pids=77:Xorg\n"
            "2026-12-03T03:00:29.000000 type=GPU_PROCESSES gpu=0 reason=xid compute=1 "
            "graphics=0 pids=4242:python3 workloads=4242=pod:ml-team/train-0:"
            "4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:7d3f8a9b2c1e\n"
            "2026-12-03T03:00:30.000000 type=NVML_EVENT gpu=0 xid=79\n");
        struct runstate prev = {.pid = 99, .started_ns = 1796266800LL * 1000000000LL};
        struct postmortem_input in = {.log_dir = dir,
                                      .root = dir,
                                      .kind = RUNSTATE_KILLED,
                                      .prev = &prev,
                                      .boot_id = BOOT_A,
                                      .now_ns = 1796270000LL * 1000000000LL};
        struct strbuf sb;
        int64_t quiet = 0;
        assert_int_equal(sb_init_heap(&sb, 4096, 1 << 20), 0);
        postmortem_build(&in, &sb, &quiet);
        /* The host's last row (03:01:10) is the latest. */
        assert_int_equal(quiet, 1796266870LL * 1000000000LL);
        assert_non_null(strstr(sb.buf, "End: killed: vigil was killed or crashed (same boot)\n"));
        assert_non_null(strstr(sb.buf, "Went quiet: 2026-12-03T03:01:10.000\n"));
        assert_non_null(strstr(sb.buf, "  host-2026-12-03.csv: 2026-12-03T03:01:10.000,62.5,"));
        assert_non_null(strstr(sb.buf, "  gpu0-2026-12-03.csv: 2026/12/03 03:01:10.000,"));
        assert_non_null(strstr(sb.buf, "(then a partial row)"));
        assert_null(strstr(sb.buf, "gpu0-2026-12-02"));
        /* 03:00:10 .. 03:01:10: 61 rows of the GPU in the window. */
        assert_non_null(strstr(sb.buf, "61 rows in the last 60 s:\n"));
        assert_null(strstr(sb.buf, "2026/12/03 03:00:09.000"));
        /* 03:01:00 .. 03:01:10: temperatures 60 (s=60), then 80..89. */
        assert_non_null(strstr(sb.buf, "min/max of the last 10 s (11 rows): gpu_temp 60..89; "
                                       "power_instant 160.5..170.5; gpu_clock 1980..1980; "
                                       "mem_clock 9501..9501; fan0_speed_pct 30..32; "
                                       "throttle reasons seen 0x0040 HwThermalSlowdown\n"));
        assert_non_null(strstr(sb.buf, "Raspberry Pi, last row: throttled=0x50005 "
                                       "volt_core_v=0.8563 temp_c=62.5"));
        assert_non_null(strstr(sb.buf, "UNDER-VOLTAGE NOW in the last row"));
        assert_non_null(strstr(sb.buf, "type=NVML_EVENT gpu=0 xid=79\n"));
        assert_null(strstr(sb.buf, "=== Kernel"));
        /* What happened comes first, after the header: the unclean end, then the run's
         * events. */
        const char *what = strstr(sb.buf, "\nWhat happened:\n  (critical) host: previous run "
                                          "ended uncleanly killed (2026-12-03 03:01:10): vigil "
                                          "was killed or crashed (same boot)\n");
        assert_non_null(what);
        assert_true(what < strstr(sb.buf, "=== Rows of the last"));
        assert_non_null(strstr(what, "  (critical) gpu0: Xid 79 (2026-12-03 03:00:30)"));
        /* Whose work was on the GPUs: GPU 0's last list (the pod, not the earlier job),
         * and no line for GPU 1, which named no workload. Before the rows. */
        const char *work = strstr(sb.buf, "=== Whose work was on the GPUs (their last process "
                                          "list) ===\nGPU 0 at 2026-12-03T03:00:29.000000 (xid): "
                                          "4242=pod:ml-team/train-0:"
                                          "4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:7d3f8a9b2c1e\n\n");
        assert_non_null(work);
        assert_true(work < strstr(sb.buf, "=== Rows of the last"));
        sb_free(&sb);
}

/* A last row after the moment this boot began (a clock set back, an uptime that does
 * not fit): the time the machine was down is unknown, never negative. */
static void test_down_never_negative(void **state)
{
        (void)state;
        char path[128];
        snprintf(path, sizeof(path), "%s/proc", dir);
        assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
        /* This boot began 10000 s before now: 1796260000, before the last row (1796266870). */
        put("proc/uptime", "10000.00 100.00\n");
        struct runstate prev = {.pid = 99, .started_ns = 1796266800LL * 1000000000LL};
        struct postmortem_input in = {.log_dir = dir,
                                      .root = dir,
                                      .kind = RUNSTATE_REBOOT,
                                      .prev = &prev,
                                      .boot_id = BOOT_A,
                                      .now_ns = 1796270000LL * 1000000000LL,
                                      .brief = true};
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 4096, 1 << 20), 0);
        postmortem_build(&in, &sb, NULL);
        assert_non_null(strstr(sb.buf, "Machine down: unknown (the last row is 6870 s after this "
                                       "boot began: the clock or the uptime is inconsistent)\n"));
        assert_null(strstr(sb.buf, "down: -"));
        /* brief: the header and what happened, no rows. */
        assert_non_null(strstr(sb.buf, "What happened:\n"));
        assert_null(strstr(sb.buf, "=== Rows"));
        sb_free(&sb);
        snprintf(path, sizeof(path), "%s/proc/uptime", dir);
        unlink(path);
}

static void test_write_latest(void **state)
{
        (void)state;
        struct postmortem_info pm, found;
        struct postmortem_input in = {.log_dir = dir,
                                      .root = dir,
                                      .kind = RUNSTATE_REBOOT,
                                      .boot_id = "",
                                      .now_ns = 1796270000LL * 1000000000LL};
        assert_int_equal(postmortem_latest(dir, &found), -2);
        assert_int_equal(postmortem_write(&in, &pm), 0);
        assert_string_equal(pm.rel, "postmortem/postmortem-20261203-035320.log");
        in.kind = RUNSTATE_KILLED;
        struct postmortem_info pm2;
        assert_int_equal(postmortem_write(&in, &pm2), 0); /* the same second: kept apart */
        assert_string_equal(pm2.rel, "postmortem/postmortem-20261203-035320-2.log");
        assert_int_equal(postmortem_latest(dir, &found), 0);
        assert_string_equal(found.rel, pm2.rel);
        assert_int_equal(found.kind, RUNSTATE_KILLED);
        assert_int_equal(found.written_ns, in.now_ns);
        char line[2048];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        runstate_finding(&found, &sb);
        assert_non_null(strstr(line, "previous run: vigil was killed or crashed (same boot)"));
        assert_non_null(strstr(line, "; post-mortem: "));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_state_roundtrip),
            cmocka_unit_test(test_state_parse_damage),
            cmocka_unit_test(test_state_identity),
            cmocka_unit_test(test_classify),
            cmocka_unit_test(test_boot_id),
            cmocka_unit_test(test_split),
            cmocka_unit_test(test_klog_rank),
            cmocka_unit_test(test_klog_gpu),
            cmocka_unit_test(test_klog_binary),
            cmocka_unit_test(test_build),
            cmocka_unit_test(test_down_never_negative),
            cmocka_unit_test(test_write_latest),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
