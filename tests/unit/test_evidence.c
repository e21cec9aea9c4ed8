/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: snapshot sections from the evidence collectors (detect/evidence.c), on the
 * kmsg and pcie fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/evidence.h"
#include "util/clock.h"
#include "util/pfile.h"

#define SEC NSEC_PER_SEC
/* 2026-12-02 12:00:00 UTC */
static const int64_t noon = 1796212800LL * SEC;

static char dir[64];

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        snprintf(dir, sizeof(dir), "/tmp/vigil-evidence-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

static const struct snapshot_header header = {
    .title = "GPU CRASH FOLLOW-UP (+10s)",
    .real_ns = noon + 10 * SEC,
    .gpu_name = "NVIDIA GeForce RTX 5090",
    .gpu_pci = "00000000:01:00.0",
    .uptime_s = 3610,
    .samples = 36100,
    .peak_temp_c = 83,
    .peak_power_w = 575,
    .event_number = 1,
};

static void test_followup_file(void **state)
{
        (void)state;
        struct kmsg *k;
        struct snapshot_followups f;
        struct snapshot_followup_due d;
        char path[256], buf[8192];
        memset(&f, 0, sizeof(f));
        snapshot_followups_arm(&f, 0, 100 * SEC, "crash-20261202-120000.log");
        assert_int_equal(snapshot_followups_due(&f, 110 * SEC, &d, 1), 1);
        assert_int_equal(kmsg_open(&k, "tests/fixtures/kmsg", 0), 0);
        /* The list taken 2.5 s before the follow-up (after the crash, at an Xid). */
        struct gpu_proc_list procs = {.valid = true,
                                      .supported = {true, true},
                                      .count = {1, 0},
                                      .taken_real_ns = noon + 7500 * (SEC / 1000),
                                      .reason = "event",
                                      .n = 1};
        procs.p[0] = (struct gpu_proc){.pid = 4242, .used_bytes = 1073741824.0};
        snprintf(procs.p[0].name, sizeof(procs.p[0].name), "python3");
        snprintf(procs.p[0].cmdline, sizeof(procs.p[0].cmdline), "python3 train.py");
        assert_int_equal(evidence_followup(dir, &d, &header, k, "tests/fixtures/pcie/offbus",
                                           "00000000:01:00.0", &procs, path, sizeof(path)),
                         0);
        char want_path[256];
        snprintf(want_path, sizeof(want_path), "%s/crashes/crash-20261202-120000-followup-10s.log",
                 dir);
        assert_string_equal(path, want_path);
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        assert_string_equal(
            buf,
            "=== GPU CRASH FOLLOW-UP (+10s) ===\n"
            "Time: 2026-12-02T12:00:10.000000+00:00\n"
            "Script: vigil v" VIGIL_VERSION "\n"
            "GPU: NVIDIA GeForce RTX 5090 (00000000:01:00.0)\n"
            "Uptime: 3610s, 36100 samples\n"
            "Peaks: 83C / 575W\n"
            "Event #: 1\n"
            "Pwr breach:0 Fan inv:0 Spur throt:0\n"
            "Follow-up of: crash-20261202-120000 (+10s)\n"
            "\n"
            "=== GPU processes ===\n"
            "Last list: 2026-12-02T12:00:07.500000+00:00 (2.5 s before this snapshot, event); "
            "compute 1, graphics 0\n"
            "      PID TYPE     NAME               GPU MEM  COMMAND\n"
            "     4242 compute  python3           1024 MiB  python3 train.py\n"
            "\n"
            "=== PCIe state (sysfs) ===\n"
            "device 0000:01:00.0: config space reads 0xffff: the device no longer answers (off "
            "the bus)\n"
            "  link: Unknown x0 (max 16.0 GT/s PCIe x16)\n"
            "  AER correctable: 3 (Receiver Error 2, Bad TLP 1)\n"
            "  AER nonfatal: 3 (Completion Timeout 3)\n"
            "  AER fatal: 0\n"
            "upstream port 0000:00:01.0: vendor 0x8086, device 0x460d\n"
            "  link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)\n"
            "  AER correctable: 5 (Receiver Error 5)\n"
            "  AER nonfatal: 0\n"
            "  AER fatal: 1 (Surprise Down Error 1)\n"
            "  AER messages received as root port: correctable 5, nonfatal 0, fatal 1\n"
            "\n"
            "=== dmesg (nvidia/gpu errors) ===\n"
            "[ 1234.567890] nvidia: loading out-of-tree module taints kernel.\n"
            "[ 1234.600000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 "
            "2025\n"
            "[ 3600.123456] NVRM: Xid (PCI:0000:01:00): 62, pid='<unknown>', name=<unknown>, "
            "2a5c3b18 2a5c3630 2a5c2d8c 2a5d0114 00000000\n"
            "[ 3600.223456] NVRM: Xid (PCI:0000:01:00): 45, pid=4242, name=python3, Ch 00000010\n"
            "[ 3606.123456] NVRM: Xid (PCI:0000:01:00): 119, pid=4242, name=python3, Timeout "
            "after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
            "(GSP_RM_CONTROL) (0x20801348 0x4).\n"
            "[ 3610.000100] nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
            "type=Transaction Layer, (Receiver ID)\n"
            "[ 3649.000000] NVRM: GPU at PCI:0000:01:00: GPU-5a1b2c3d-0000-1111-2222-333344445555\n"
            "[ 3649.000100] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
            "[ 3649.000200] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n"
            "\n"
            "=== PCIe AER errors ===\n"
            "[ 3610.000000] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: "
            "0000:01:00.0\n"
            "[ 3610.000100] nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
            "type=Transaction Layer, (Receiver ID)\n");
        kmsg_close(k);
}

/* A whole crash snapshot as a caller assembles it: the sections in order. */
static void test_crash_snapshot(void **state)
{
        (void)state;
        struct snapshot *s;
        struct gpu_ring r;
        struct gpu_frame g;
        char path[256];
        static char buf[65536];
        assert_int_equal(ring_init(&r, 100, 1), 0);
        for (int i = 0; i < 3; i++) {
                memset(&g, 0, sizeof(g));
                gpu_frame_clear(&g);
                g.ok = i < 2;
                g.nfans = 1;
                g.sampled_real_ns = noon - (3 - i) * 100 * NSEC_PER_MSEC;
                g.temp_c = 70 + i;
                snprintf(g.error, sizeof(g.error), "GPU is lost");
                ring_push(&r, &g);
        }
        struct snapshot_header h = header;
        h.title = "GPU CRASH DETECTED";
        h.error = "GPU is lost";
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_CRASH, noon), 0);
        snapshot_header(s, &h);
        evidence_ring(s, "Last 5 minutes of samples", &r);
        const enum kmsg_filter filters[] = {KMSG_FILTER_POWER, KMSG_FILTER_COUNT};
        evidence_kernel_log(s, NULL, filters, 2);
        const char *argv[] = {"/bin/echo", "00:00.0 Host bridge", NULL};
        assert_int_equal(evidence_program(s, "PCIe device state", argv, 5 * SEC), 0);
        const char *missing[] = {"vigil-no-such-tool", NULL};
        evidence_program(s, "nvidia-smi (may fail)", missing, 5 * SEC);
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        const char *after_header = strstr(buf, "Spur throt:0\n\n");
        assert_non_null(after_header);
        assert_string_equal(after_header + 14,
                            "=== Last 5 minutes of samples ===\n"
                            "timestamp,gpu_temp,gpu_tlimit,power_instant,power_limit,pstate,"
                            "gpu_clock,mem_clock,gpu_util,mem_util,vram_used_mb,pcie_gen,"
                            "pcie_width,throttle_bitmask,fan0_speed_pct,fan0_target_pct,"
                            "sensor0_temp,sensor0_target,sensor0_controller,flags\n"
                            "2026/12/02 11:59:59.700,70,,,,,,,,,,,,,,,,,,\n"
                            "2026/12/02 11:59:59.800,71,,,,,,,,,,,,,,,,,,\n"
                            "2026/12/02 11:59:59.900,,,,,,,,,,,,,,,,,,,NVML_FAILED:GPU is lost\n"
                            "\n=== dmesg (voltage/thermal) ===\n"
                            "(kernel log not collected)\n"
                            "\n=== PCIe device state ===\n"
                            "00:00.0 Host bridge\n"
                            "\n=== nvidia-smi (may fail) ===\n"
                            "(not available: vigil-no-such-tool)\n");
        ring_fini(&r);
        /* An empty ring says so. */
        assert_int_equal(ring_init(&r, 10, 0), 0);
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_SPIKE, noon), 0);
        evidence_ring(s, "Recent samples", &r);
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "=== Recent samples ===\n(no samples recorded)\n");
        ring_fini(&r);
}

/* The flight recorder at full size passes through the snapshot in chunks. */
static void test_full_ring(void **state)
{
        (void)state;
        struct snapshot *s;
        struct gpu_ring r;
        struct gpu_frame g;
        char path[256];
        assert_int_equal(ring_init(&r, RING_MAX_SAMPLES, 2), 0);
        for (int i = 0; i < RING_MAX_SAMPLES + 10; i++) {
                memset(&g, 0, sizeof(g));
                gpu_frame_clear(&g);
                g.ok = true;
                g.nfans = 2;
                g.sampled_real_ns = noon + (int64_t)i * 100 * NSEC_PER_MSEC;
                g.temp_c = 60;
                g.power_w = 300.25;
                ring_push(&r, &g);
        }
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_SPIKE, noon + 3600 * SEC), 0);
        evidence_ring(s, "Flight recorder", &r);
        assert_false(snapshot_truncated(s));
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[512];
        size_t lines = 0;
        while (fgets(line, sizeof(line), f))
                lines++;
        fclose(f);
        assert_int_equal(lines, 1 + 1 + RING_MAX_SAMPLES); /* title, header, rows */
        ring_fini(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_followup_file),
            cmocka_unit_test(test_crash_snapshot),
            cmocka_unit_test(test_full_ring),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
