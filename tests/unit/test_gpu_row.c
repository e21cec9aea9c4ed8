/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the GPU CSV row (encode/gpu_row.c), throttle names, the status and
 * summary.log lines (core/gpu_status.c) and system-info.txt (local/sysinfo.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/throttle_reasons.h"
#include "encode/gpu_row.h"
#include "local/gpu_summary.h"
#include "local/sysinfo.h"
#include "util/fmt.h"
#include "util/pfile.h"
#include "test_rng.h"

#define NS 1000000000LL

/* 2026-03-14 10:05:00.123456 UTC */
static const int64_t when = 1773482700LL * NS + 123456789LL;

static char dir[64];

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        snprintf(dir, sizeof(dir), "/tmp/vigil-gpurow-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

/* The healthy-1gpu readings. */
static void healthy(struct gpu_frame *g)
{
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->present = g->ok = g->sampled = true;
        g->sampled_real_ns = when;
        g->nfans = 2;
        g->temp_c = 45;
        g->temp_max_c = 90;
        g->power_w = 85000 / 1000.0;
        g->power_limit_w = 600000 / 1000.0;
        g->enforced_limit_w = 600;
        g->energy_j = 1008500 / 1000.0;
        g->pstate = 8;
        g->gpu_clock_mhz = g->sm_clock_mhz = 1200;
        g->mem_clock_mhz = 9000;
        g->video_clock_mhz = 1100;
        g->util_gpu_pct = 10;
        g->util_mem_pct = 5;
        g->vram_used_bytes = 536870912.0 + 1048575; /* 512 MiB and a bit: floor */
        g->vram_total_bytes = 102642810880.0;
        g->vram_reserved_bytes = 536870912.0;
        g->pcie_gen = 5;
        g->pcie_width = 16;
        g->pcie_replay = 0;
        g->throttle_mask = 1;
        g->throttle_valid = true;
        g->fan_speed_pct[0] = g->fan_target_pct[0] = 30;
        g->fan_speed_pct[1] = 31;
        g->fan_target_pct[1] = 32;
        g->s0_temp = 45;
        g->s0_target = 1;
        g->s0_controller = 1;
        g->ecc_corrected = g->ecc_uncorrected = 0;
        g->remapped_correctable = g->remapped_uncorrectable = 0;
        g->remap_pending = g->remap_failure = 0;
}

static const char *row_of(const struct gpu_frame *g, unsigned nfans, char *buf, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, buf, cap);
        gpu_row_csv(&sb, g, nfans, NULL);
        assert_false(sb.overflow);
        return buf;
}

static void test_header(void **state)
{
        (void)state;
        char buf[2048];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_row_header(&sb, 2);
        assert_string_equal(
            buf, "timestamp,gpu_temp,gpu_tlimit,power_instant,power_limit,pstate,gpu_clock,"
                 "mem_clock,gpu_util,mem_util,vram_used_mb,pcie_gen,pcie_width,throttle_bitmask,"
                 "throttle_reasons,fan0_speed_pct,fan0_target_pct,fan1_speed_pct,fan1_target_pct,"
                 "sensor0_temp,sensor0_target,sensor0_controller,flags,sm_clock,video_clock,"
                 "power_enforced_limit,energy_j,vram_total_mb,pcie_replay,ecc_corrected,"
                 "ecc_uncorrected,remapped_correctable,remapped_uncorrectable,remap_pending,"
                 "remap_failure,vram_reserved_mb,nvlink_links_up,nvlink_errors,fabric_state,"
                 "fabric_health_mask\n");
        assert_int_equal(gpu_row_columns(2), 40);
        assert_int_equal(gpu_row_columns(0), 36);
}

static void test_row_values(void **state)
{
        (void)state;
        char buf[2048];
        struct gpu_frame g;
        healthy(&g);
        assert_string_equal(row_of(&g, 2, buf, sizeof(buf)),
                            "2026/03/14 10:05:00.123,45,45,85.00,600,8,1200,9000,10,5,512,5,16,"
                            "0x0001,GpuIdle,30,30,31,32,45,1,1,,1200,1100,600,1008.500,97887,0,0,0,"
                            "0,0,0,0,512,,,,\n");
        /* Formats: power to 2 decimals, limit rounded, the mask 4 hex digits. */
        g.power_w = 412345 / 1000.0;
        g.power_limit_w = 287500 / 1000.0; /* 287.5 -> 288 (half to even: 288) */
        g.throttle_mask = 0x1a4;
        g.throttle_valid = true;
        g.temp_c = 93; /* over gpu_max: negative distance */
        snprintf(g.flags, sizeof(g.flags), "TDP_REDUCED(288W)|PWR+124W");
        assert_string_equal(row_of(&g, 2, buf, sizeof(buf)),
                            "2026/03/14 10:05:00.123,93,-3,412.35,288,8,1200,9000,10,5,512,5,16,"
                            "0x01a4,SwPowerCap|SwThermalSlowdown|HwPowerBrakeSlowdown|DisplayClocks"
                            ",30,30,31,32,45,1,1,TDP_REDUCED(288W)|PWR+124W,1200,1100,"
                            "600,1008.500,97887,0,0,0,0,0,0,0,512,,,,\n");
}

/* The mask is 64 bits wide in the row: 0x7fffffffffffffff is written as it came (a double
 * would make it 0x8000000000000000 and lose every name). */
static void test_row_mask_63_bits(void **state)
{
        (void)state;
        char buf[2048];
        struct gpu_frame g;
        healthy(&g);
        g.throttle_mask = 0x7fffffffffffffffULL;
        row_of(&g, 2, buf, sizeof(buf));
        assert_non_null(strstr(buf, ",16,0x7fffffffffffffff,GpuIdle|AppClocks|SwPowerCap|"
                                    "HwSlowdown|SyncBoost|SwThermalSlowdown|HwThermalSlowdown|"
                                    "HwPowerBrakeSlowdown|DisplayClocks|UserDefinedClocks,30,"));
}

/* Missing is an empty cell, not the reference's 0; gpu_tlimit needs both values. */
static void test_row_missing(void **state)
{
        (void)state;
        char buf[2048];
        struct gpu_frame g;
        memset(&g, 0, sizeof(g));
        gpu_frame_clear(&g);
        g.ok = true;
        g.sampled_real_ns = when;
        g.nfans = 1;
        g.temp_c = 50;
        assert_string_equal(row_of(&g, 2, buf, sizeof(buf)),
                            "2026/03/14 10:05:00.123,50,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n");
        g.temp_max_c = 0; /* the reference: 0 means unknown */
        g.temp_c = VAL_MISSING;
        g.throttle_mask = 0;
        g.throttle_valid = true;
        assert_string_equal(
            row_of(&g, 0, buf, sizeof(buf)),
            "2026/03/14 10:05:00.123,,,,,,,,,,,,,0x0000,None,,,,,,,,,,,,,,,,,,,,,\n");
}

/* The failure row: as wide as the header, NVML_FAILED:<80 characters> in flags. */
static void test_failure_row(void **state)
{
        (void)state;
        char buf[2048];
        struct gpu_frame g;
        healthy(&g);
        g.ok = false;
        snprintf(g.error, sizeof(g.error), "GPU is lost");
        assert_string_equal(row_of(&g, 2, buf, sizeof(buf)),
                            "2026/03/14 10:05:00.123,,,,,,,,,,,,,,,,,,,,,,NVML_FAILED:GPU is lost,,"
                            ",,,,,,,,,,,,,,,\n");
        memset(g.error, 'x', 90);
        g.error[90] = '\0';
        g.error[3] = ',';
        row_of(&g, 0, buf, sizeof(buf));
        char want[200] = "2026/03/14 10:05:00.123,,,,,,,,,,,,,,,,,,\"NVML_FAILED:xxx,";
        size_t n = strlen(want);
        memset(want + n, 'x', 76);
        snprintf(want + n + 76, sizeof(want) - n - 76, "\",,,,,,,,,,,,,,,,,\n");
        assert_string_equal(buf, want);
}

/* The row as it was built with snprintf before numfmt: the reference for the test below. */
static void ref_cell(struct strbuf *sb, double v, int decimals)
{
        if (VAL_OK(v))
                sb_printf(sb, ",%.*f", decimals, v);
        else
                sb_putc(sb, ',');
}

static void ref_row(struct strbuf *sb, const struct gpu_frame *g, unsigned nfans)
{
        char ts[40];
        fmt_time_gpu(ts, sizeof(ts), g->sampled_real_ns);
        sb_puts(sb, ts);
        ref_cell(sb, g->temp_c, 0);
        if (VAL_OK(g->temp_max_c) && g->temp_max_c != 0 && VAL_OK(g->temp_c))
                sb_printf(sb, ",%.0f", g->temp_max_c - g->temp_c);
        else
                sb_putc(sb, ',');
        ref_cell(sb, g->power_w, 2);
        ref_cell(sb, g->power_limit_w, 0);
        const double *ints[] = {&g->pstate, &g->gpu_clock_mhz, &g->mem_clock_mhz, &g->util_gpu_pct,
                                &g->util_mem_pct};
        for (size_t i = 0; i < 5; i++)
                ref_cell(sb, *ints[i], 0);
        if (VAL_OK(g->vram_used_bytes) && g->vram_used_bytes >= 0)
                sb_printf(sb, ",%llu", (unsigned long long)g->vram_used_bytes >> 20);
        else
                sb_putc(sb, ',');
        ref_cell(sb, g->pcie_gen, 0);
        ref_cell(sb, g->pcie_width, 0);
        if (g->throttle_valid) {
                uint64_t mask = g->throttle_mask;
                sb_printf(sb, ",0x%04llx,", (unsigned long long)mask);
                throttle_decode(sb, mask);
        } else {
                sb_puts(sb, ",,");
        }
        for (unsigned i = 0; i < nfans; i++) {
                bool have = i < g->nfans;
                ref_cell(sb, have ? g->fan_speed_pct[i] : VAL_MISSING, 0);
                ref_cell(sb, have ? g->fan_target_pct[i] : VAL_MISSING, 0);
        }
        ref_cell(sb, g->s0_temp, 0);
        ref_cell(sb, g->s0_target, 0);
        ref_cell(sb, g->s0_controller, 0);
        sb_putc(sb, ',');
        sb_csv_cell(sb, g->flags);
        ref_cell(sb, g->sm_clock_mhz, 0);
        ref_cell(sb, g->video_clock_mhz, 0);
        ref_cell(sb, g->enforced_limit_w, 0);
        ref_cell(sb, g->energy_j, 3);
        if (VAL_OK(g->vram_total_bytes) && g->vram_total_bytes >= 0)
                sb_printf(sb, ",%llu", (unsigned long long)g->vram_total_bytes >> 20);
        else
                sb_putc(sb, ',');
        const double *tail[] = {
            &g->pcie_replay,          &g->ecc_corrected,          &g->ecc_uncorrected,
            &g->remapped_correctable, &g->remapped_uncorrectable, &g->remap_pending,
            &g->remap_failure};
        for (size_t i = 0; i < 7; i++)
                ref_cell(sb, *tail[i], 0);
        if (VAL_OK(g->vram_reserved_bytes) && g->vram_reserved_bytes >= 0)
                sb_printf(sb, ",%llu", (unsigned long long)g->vram_reserved_bytes >> 20);
        else
                sb_putc(sb, ',');
        ref_cell(sb, g->nvlink_links_up, 0);
        ref_cell(sb, g->nvlink_error_sum, 0);
        ref_cell(sb, g->fabric_state, 0);
        ref_cell(sb, g->fabric_health_mask, 0);
        sb_putc(sb, '\n');
}

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t rnd(void)
{
        return test_rng_next(&rng);
}

/* A reading as NVML gives them: missing, whole, mW or mJ scaled, ties, negative, huge. */
static double reading(void)
{
        uint64_t r = rnd();
        double n = (double)(r >> 44); /* 0 .. 2^20 */
        switch (r % 8) {
        case 0:
                return VAL_MISSING;
        case 1:
                return n;
        case 2:
                return n / 1000.0;
        case 3:
                return n + 0.5;
        case 4:
                return -n / 100.0;
        case 5:
                return (double)(rnd() >> (r % 64)) / 1000.0;
        case 6:
                return (n * 10 + 5) / 10000.0;
        default:
                return (double)(rnd() >> 11);
        }
}

/* Random frames, rows through numfmt and the cached timestamp against the snprintf
 * reference, byte for byte, as the clock walks through a DST change. */
static void test_row_matches_snprintf(void **state)
{
        (void)state;
        char got[2048], want[2048];
        struct fmt_sec_cache tc = {0};
        struct gpu_frame g;
        int64_t ns = 1792890000LL * NS - 1800 * NS; /* half an hour before CEST ends */
        setenv("TZ", "Europe/Berlin", 1);
        tzset();
        for (int i = 0; i < 40000; i++) {
                healthy(&g);
                g.sampled_real_ns = ns;
                ns += (int64_t)(rnd() % (200 * 1000000));
                double *v[] = {&g.temp_c,
                               &g.temp_max_c,
                               &g.power_w,
                               &g.power_limit_w,
                               &g.pstate,
                               &g.gpu_clock_mhz,
                               &g.mem_clock_mhz,
                               &g.util_gpu_pct,
                               &g.util_mem_pct,
                               &g.vram_used_bytes,
                               &g.pcie_gen,
                               &g.pcie_width,
                               &g.s0_temp,
                               &g.s0_target,
                               &g.s0_controller,
                               &g.sm_clock_mhz,
                               &g.video_clock_mhz,
                               &g.enforced_limit_w,
                               &g.energy_j,
                               &g.pcie_replay,
                               &g.ecc_corrected,
                               &g.fan_speed_pct[0],
                               &g.fan_target_pct[1],
                               &g.vram_reserved_bytes,
                               &g.nvlink_links_up,
                               &g.nvlink_error_sum,
                               &g.fabric_state,
                               &g.fabric_health_mask};
                for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
                        *v[k] = reading();
                g.throttle_valid = rnd() % 3 != 0;
                g.throttle_mask = g.throttle_valid ? rnd() >> (rnd() % 64) : 0;
                struct strbuf a, b;
                sb_init_fixed(&a, got, sizeof(got));
                sb_init_fixed(&b, want, sizeof(want));
                gpu_row_csv(&a, &g, 2, i % 2 ? &tc : NULL);
                ref_row(&b, &g, 2);
                assert_false(a.overflow);
                assert_int_equal(a.len, b.len);
                assert_string_equal(got, want);
        }
        setenv("TZ", "UTC", 1);
        tzset();
}

static void test_throttle_names(void **state)
{
        (void)state;
        const struct {
                uint64_t mask;
                const char *text;
        } t[] = {
            {0, "None"},
            {0x1, "GpuIdle"},
            {0x5, "GpuIdle|SwPowerCap"},
            {0x200, "UserDefinedClocks"},
            {0x3ff, "GpuIdle|AppClocks|SwPowerCap|HwSlowdown|SyncBoost|SwThermalSlowdown|"
                    "HwThermalSlowdown|HwPowerBrakeSlowdown|DisplayClocks|UserDefinedClocks"},
            {0x400, "Unknown(0x400)"},
            {0x1400, "Unknown(0x1400)"},
            {0x408, "HwSlowdown"}, /* unknown bits beside a known one are dropped */
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                char buf[256];
                struct strbuf sb;
                sb_init_fixed(&sb, buf, sizeof(buf));
                throttle_decode(&sb, t[i].mask);
                assert_string_equal(buf, t[i].text);
        }
}

static void sample_stats(struct gpu_stats *s)
{
        memset(s, 0, sizeof(*s));
        s->samples = 39000;
        s->period_samples = 3000;
        s->anomalies[GPU_ANOM_FAN_SPIKE] = 2;
        s->crashes = 1;
        s->anomalies[GPU_ANOM_POWER_BREACH] = 74692;
        s->period_anomalies[GPU_ANOM_POWER_BREACH] = 74;
        s->anomalies[GPU_ANOM_FAN_INVERSION] = 5;
        s->period_anomalies[GPU_ANOM_FAN_INVERSION] = 3;
        s->anomalies[GPU_ANOM_TDP_CHANGE] = 4;
        s->period_anomalies[GPU_ANOM_TDP_CHANGE] = 1;
        s->peak_temp_c = 71;
        s->peak_power_w = 412.5;
}

static void test_status_and_summary_lines(void **state)
{
        (void)state;
        char buf[1024];
        struct strbuf sb;
        struct gpu_stats s;
        sample_stats(&s);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_status_line(&sb, &s, 3900);
        assert_string_equal(buf, "Status: 1h5m | 39000 samples | 2 spk | 1 crash | pwr 74692 "
                                 "(+74/5m) | inv 5 (+3/5m) | spur 0 (+0/5m) | tdp_chg 4 | "
                                 "peak: 71C/412W");
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_summary_line(&sb, &s, 3900, 300.4, when, 3);
        assert_string_equal(buf, "2026-03-14T10:05:00.123456 | 1h5m | window=300s | "
                                 "samples=39000 (+3000) spikes=2 crashes=1 pwr_breaches=74692 "
                                 "(rate=14.8/min) fan_inversions=5 (rate=0.6/min) "
                                 "spurious_throttles=0 (rate=0.0/min) tdp_changes=4 (period=1) "
                                 "peak_temp=71C peak_power=412W gpu=3\n");
        /* Never sampled: the reference's zero peaks. */
        memset(&s, 0, sizeof(s));
        s.peak_temp_c = s.peak_power_w = VAL_MISSING;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_status_line(&sb, &s, 59);
        assert_string_equal(buf, "Status: 0h0m | 0 samples | 0 spk | 0 crash | pwr 0 (+0/5m) | "
                                 "inv 0 (+0/5m) | spur 0 (+0/5m) | tdp_chg 0 | peak: 0C/0W");
}

static void test_summary_rotation(void **state)
{
        (void)state;
        char path[128], buf[256];
        assert_int_equal(summary_append(dir, "one\n", 4, 6), 0);
        assert_int_equal(summary_append(dir, "two\n", 4, 6), 0);   /* 4 bytes: not past 6 */
        assert_int_equal(summary_append(dir, "three\n", 6, 6), 0); /* 8 > 6: rotated first */
        snprintf(path, sizeof(path), "%s/summary.log", dir);
        assert_int_equal(read_file_at(NULL, path, buf, sizeof(buf)), 6);
        assert_string_equal(buf, "three\n");
        snprintf(path, sizeof(path), "%s/summary.log.1", dir);
        assert_int_equal(read_file_at(NULL, path, buf, sizeof(buf)), 8);
        assert_string_equal(buf, "one\ntwo\n");
}

static void test_nvidia_modules(void **state)
{
        (void)state;
        char buf[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        const char *mods = "nvidia_uvm 1540096 0 - Live 0x0000000000000000 (PO)\n"
                           "nvidia_drm 98304 2 - Live 0x0000000000000000 (PO)\n"
                           "ext4 1064960 1 - Live 0x0000000000000000\n"
                           "nvidia_modeset 1568768 1 nvidia_drm, Live 0x0 (PO)\n"
                           "NVIDIA 60000000 3 nvidia_uvm,nvidia_modeset, Live 0x0 (PO)\n"
                           "broken\n";
        assert_int_equal(sysinfo_nvidia_modules(&sb, mods), 4);
        assert_string_equal(buf, "nvidia_uvm           1540096  0\n"
                                 "nvidia_drm             98304  2\n"
                                 "nvidia_modeset       1568768  1 nvidia_drm\n"
                                 "NVIDIA              60000000  3 nvidia_uvm,nvidia_modeset\n");
}

static void put(const char *rel, const char *text)
{
        char path[256], cmd[300];
        snprintf(path, sizeof(path), "%s/root%s", dir, rel);
        snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
        assert_int_equal(system(cmd), 0);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void test_sysinfo_text(void **state)
{
        (void)state;
        char root[128], buf[8192];
        struct strbuf sb;
        struct nvml_shared sh;
        put("/etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
                               "(bookworm)\"\nID=debian\n");
        put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD "
                             "EPYC 9654 96-Core Processor\nmodel name\t: second\n");
        put("/sys/devices/virtual/dmi/id/board_vendor", "Supermicro\n");
        put("/proc/modules", "nvidia 60000000 0 - Live 0x0 (PO)\n");
        memset(&sh, 0, sizeof(sh));
        snprintf(sh.driver_version, sizeof(sh.driver_version), "570.86.15");
        sh.ngpus = 1;
        sh.gpu[0].index = 1;
        sh.gpu[0].nfans = 2;
        snprintf(sh.gpu[0].name, sizeof(sh.gpu[0].name), "NVIDIA H100 80GB HBM3");
        snprintf(sh.gpu[0].pci_bus_id, sizeof(sh.gpu[0].pci_bus_id), "00000000:18:00.0");
        sh.gpu[0].shutdown_c = 92;
        sh.gpu[0].slowdown_c = 89;
        sh.gpu[0].gpu_max_c = VAL_MISSING;
        snprintf(root, sizeof(root), "%s/root", dir);
        sb_init_fixed(&sb, buf, sizeof(buf));
        sysinfo_text(&sb, root, &sh, when);
        const char *want_head = "=== GPU Telemetry — System Info ===\n"
                                "Generated: 2026-03-14T10:05:00.123456+00:00\n"
                                "Script: vigil v" VIGIL_VERSION "\n\n"
                                "--- GPU 1 ---\n"
                                "  Name: NVIDIA H100 80GB HBM3\n"
                                "  PCI: 00000000:18:00.0\n"
                                "  UUID: N/A\n"
                                "  Serial: N/A\n"
                                "  VBIOS: N/A\n"
                                "  Driver: 570.86.15\n"
                                "  Fans: 2\n\n"
                                "--- Thermal thresholds (GPU 1) ---\n"
                                "  shutdown: 92C\n"
                                "  slowdown: 89C\n"
                                "  gpu_max: N/A\n\n"
                                "--- OS ---\n";
        assert_memory_equal(buf, want_head, strlen(want_head));
        const char *want_tail = "  Description:\tDebian GNU/Linux 12 (bookworm)\n\n"
                                "--- CPU ---\n"
                                "  model name\t: AMD EPYC 9654 96-Core Processor\n\n"
                                "--- Motherboard ---\n"
                                "  Supermicro\n"
                                "  N/A\n\n"
                                "--- NVIDIA kernel modules ---\n"
                                "nvidia              60000000  0\n";
        assert_non_null(strstr(buf, want_tail));
        assert_string_equal(strstr(buf, want_tail), want_tail);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_header),
            cmocka_unit_test(test_row_values),
            cmocka_unit_test(test_row_mask_63_bits),
            cmocka_unit_test(test_row_missing),
            cmocka_unit_test(test_failure_row),
            cmocka_unit_test(test_row_matches_snprintf),
            cmocka_unit_test(test_throttle_names),
            cmocka_unit_test(test_status_and_summary_lines),
            cmocka_unit_test(test_summary_rotation),
            cmocka_unit_test(test_nvidia_modules),
            cmocka_unit_test(test_sysinfo_text),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
