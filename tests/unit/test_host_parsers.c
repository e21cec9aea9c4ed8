/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the pure parsers of the host sources, on string literals. */
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

#include "collect/host_temp.h"
#include "collect/proc_loadavg.h"
#include "collect/proc_meminfo.h"
#include "collect/proc_stat.h"
#include "collect/proc_uptime.h"
#include "collect/shm.h"
#include "collect/sys_cpufreq.h"
#include "collect/sysfs_scan.h"
#include "util/retry.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static struct proc_stat *new_stat(void)
{
        struct proc_stat *ps = malloc(sizeof(*ps));
        assert_non_null(ps);
        memset(ps, 0x5a, sizeof(*ps)); /* the parser must not rely on zeroed memory */
        return ps;
}

static void test_stat_normal(void **state)
{
        (void)state;
        struct proc_stat *ps = new_stat();
        assert_int_equal(proc_stat_parse(S("cpu  300 10 200 5000 40 0 7 3 25 0\n"
                                           "cpu0 100 5 100 2500 20 0 4 1 25 0\n"
                                           "cpu1 200 5 100 2500 20 0 3 2 0 0\n"
                                           "intr 1 2 3\nctxt 5\n"),
                                         ps),
                         0);
        assert_true(ps->total.valid);
        assert_int_equal(ps->ncpu, 2);
        assert_true(ps->cpu[0].valid && ps->cpu[1].valid);
        assert_int_equal(ps->total.t[PS_USER], 300);
        assert_int_equal(ps->total.t[PS_STEAL], 3);
        assert_int_equal(ps->cpu[1].t[PS_IDLE], 2500);
        assert_int_equal(ps->cpu[1].t[PS_SOFTIRQ], 3);
        free(ps);
}

static void test_stat_empty_garbage(void **state)
{
        (void)state;
        struct proc_stat *ps = new_stat();
        assert_int_equal(proc_stat_parse("", 0, ps), -EINVAL);
        assert_false(ps->total.valid);
        assert_int_equal(ps->ncpu, 0);
        assert_int_equal(proc_stat_parse(S("hello\nworld\n\x01\x02\n"), ps), -EINVAL);
        assert_int_equal(ps->ncpu, 0);
        /* "cpufreq" is not a cpu line; a bad number makes only its line invalid. */
        assert_int_equal(proc_stat_parse(S("cpufreq 1 2 3 4\ncpu0 1 2 x 4\ncpu1 1 2 3 4\n"), ps),
                         0);
        assert_false(ps->total.valid);
        assert_int_equal(ps->ncpu, 2);
        assert_false(ps->cpu[0].valid);
        assert_true(ps->cpu[1].valid);
        /* Numbers glued to junk. */
        assert_int_equal(proc_stat_parse(S("cpu  1 2 3 4abc\n"), ps), -EINVAL);
        assert_false(ps->total.valid);
        free(ps);
}

static void test_stat_truncated(void **state)
{
        (void)state;
        struct proc_stat *ps = new_stat();
        /* Cut in the middle of cpu1: that line is ignored, not read as "3". */
        assert_int_equal(proc_stat_parse(S("cpu  10 0 10 100 0 0 0 0 0 0\n"
                                           "cpu0 5 0 5 50 0 0 0 0 0 0\n"
                                           "cpu1 5 0 3"),
                                         ps),
                         0);
        assert_true(ps->total.valid);
        assert_int_equal(ps->ncpu, 1);
        assert_true(ps->cpu[0].valid);
        /* Cut right after "cpu". */
        assert_int_equal(proc_stat_parse(S("cpu"), ps), -EINVAL);
        free(ps);
}

static void test_stat_fields(void **state)
{
        (void)state;
        struct proc_stat *ps = new_stat();
        /* Old kernels: 4 fields are enough, the rest read 0; 3 are not. */
        assert_int_equal(proc_stat_parse(S("cpu0 1 2 3 4\ncpu1 1 2 3\n"), ps), 0);
        assert_true(ps->cpu[0].valid);
        assert_int_equal(ps->cpu[0].t[PS_IDLE], 4);
        assert_int_equal(ps->cpu[0].t[PS_IOWAIT], 0);
        assert_int_equal(ps->cpu[0].t[PS_STEAL], 0);
        assert_false(ps->cpu[1].valid);
        /* uint64 overflow: invalid, never wrapped. The maximum itself is fine. */
        assert_int_equal(proc_stat_parse(S("cpu0 18446744073709551616 1 1 1\n"
                                           "cpu1 18446744073709551615 1 1 1\n"),
                                         ps),
                         0);
        assert_false(ps->cpu[0].valid);
        assert_true(ps->cpu[1].valid);
        assert_true(ps->cpu[1].t[PS_USER] == UINT64_MAX);
        /* An offline core leaves a hole; an absurd cpu number is skipped. */
        assert_int_equal(proc_stat_parse(S("cpu0 1 1 1 1\ncpu2 1 1 1 1\n"
                                           "cpu99999999999999999999 1 1 1 1\ncpu256 1 1 1 1\n"),
                                         ps),
                         0);
        assert_int_equal(ps->ncpu, 3);
        assert_true(ps->cpu[0].valid);
        assert_false(ps->cpu[1].valid);
        assert_true(ps->cpu[2].valid);
        /* Parsing stops after the cpu lines: a cpu line after intr is not read. */
        assert_int_equal(proc_stat_parse(S("cpu0 1 1 1 1\nintr 5\ncpu1 1 1 1 1\n"), ps), 0);
        assert_int_equal(ps->ncpu, 1);
        free(ps);
}

static void test_stat_300_cores(void **state)
{
        (void)state;
        size_t cap = 300 * 64 + 128, len = 0;
        char *s = malloc(cap);
        assert_non_null(s);
        len += (size_t)snprintf(s + len, cap - len, "cpu  900 0 900 9000 0 0 0 0 0 0\n");
        for (unsigned i = 0; i < 300; i++)
                len += (size_t)snprintf(s + len, cap - len, "cpu%u %u 0 3 30 0 0 0 0 0 0\n", i, i);
        struct proc_stat *ps = new_stat();
        assert_int_equal(proc_stat_parse(s, len, ps), 0);
        assert_int_equal(ps->ncpu, VIGIL_MAX_CPUS);
        assert_true(ps->cpu[255].valid);
        assert_int_equal(ps->cpu[255].t[PS_USER], 255);
        assert_true(ps->total.valid);
        free(ps);
        free(s);
}

static struct proc_stat_cpu cpu_of(uint64_t user, uint64_t nice, uint64_t sys, uint64_t idle,
                                   uint64_t iowait, uint64_t irq, uint64_t softirq, uint64_t steal)
{
        struct proc_stat_cpu c = {{user, nice, sys, idle, iowait, irq, softirq, steal}, true};
        return c;
}

static void test_busy_pct(void **state)
{
        (void)state;
        struct proc_stat_cpu a = cpu_of(100, 0, 50, 1000, 10, 0, 5, 0);
        /* +20 user, +5 system, +70 idle, +3 iowait, +2 softirq: busy 27 of 100. */
        struct proc_stat_cpu b = cpu_of(120, 0, 55, 1070, 13, 0, 7, 0);
        assert_float_equal(proc_stat_busy_pct(&a, &b), 27.0, 1e-9);
        /* Steal counts as busy, like psutil. */
        struct proc_stat_cpu c = cpu_of(100, 0, 50, 1050, 10, 0, 5, 50);
        assert_float_equal(proc_stat_busy_pct(&a, &c), 50.0, 1e-9);
        /* No time passed: missing, not 0. */
        assert_true(isnan(proc_stat_busy_pct(&a, &a)));
        /* A reset counter (hotplug, wrap): missing. */
        struct proc_stat_cpu d = cpu_of(90, 0, 60, 1100, 10, 0, 5, 0);
        assert_true(isnan(proc_stat_busy_pct(&a, &d)));
        /* iowait stepping back counts as 0 (psutil, top): +10 user, +10 idle -> 50%. */
        struct proc_stat_cpu e = cpu_of(110, 0, 50, 1010, 4, 0, 5, 0);
        assert_float_equal(proc_stat_busy_pct(&a, &e), 50.0, 1e-9);
        /* Idle stepping back: +10 user only -> 100%. */
        struct proc_stat_cpu f = cpu_of(110, 0, 50, 990, 10, 0, 5, 0);
        assert_float_equal(proc_stat_busy_pct(&a, &f), 100.0, 1e-9);
        /* Invalid readings. */
        struct proc_stat_cpu g = b;
        g.valid = false;
        assert_true(isnan(proc_stat_busy_pct(&a, &g)));
        assert_true(isnan(proc_stat_busy_pct(&g, &b)));
        /* Huge counters near the top of uint64 give exact deltas. */
        struct proc_stat_cpu h1 = cpu_of(UINT64_MAX - 30, 0, 0, UINT64_MAX - 100, 0, 0, 0, 0);
        struct proc_stat_cpu h2 = cpu_of(UINT64_MAX - 5, 0, 0, UINT64_MAX - 25, 0, 0, 0, 0);
        assert_float_equal(proc_stat_busy_pct(&h1, &h2), 25.0, 1e-9);
}

static void test_busy_pct_guest(void **state)
{
        (void)state;
        /* guest (9th field) is inside user already: it must not count twice. */
        struct proc_stat *p0 = new_stat(), *p1 = new_stat();
        assert_int_equal(proc_stat_parse(S("cpu0 1000 0 0 1000 0 0 0 0 500 0\n"), p0), 0);
        assert_int_equal(proc_stat_parse(S("cpu0 1040 0 0 1060 0 0 0 0 540 0\n"), p1), 0);
        assert_float_equal(proc_stat_busy_pct(&p0->cpu[0], &p1->cpu[0]), 40.0, 1e-9);
        free(p0);
        free(p1);
}

static void test_loadavg(void **state)
{
        (void)state;
        struct proc_loadavg la;
        assert_int_equal(proc_loadavg_parse(S("0.52 0.58 0.59 1/389 12345\n"), &la), 0);
        assert_true(la.load[0] == 0.52 && la.load[1] == 0.58 && la.load[2] == 0.59);
        assert_int_equal(proc_loadavg_parse("", 0, &la), -EINVAL);
        assert_true(isnan(la.load[0]) && isnan(la.load[1]) && isnan(la.load[2]));
        /* Cut in the second field: only the first is taken. */
        assert_int_equal(proc_loadavg_parse(S("0.52 0.5"), &la), -EINVAL);
        assert_true(la.load[0] == 0.52);
        assert_true(isnan(la.load[1]) && isnan(la.load[2]));
        assert_int_equal(proc_loadavg_parse(S("abc def\n"), &la), -EINVAL);
        assert_true(isnan(la.load[0]));
        assert_int_equal(proc_loadavg_parse(S("-1.00 2.00 3.00 1/1 1\n"), &la), -EINVAL);
        assert_true(isnan(la.load[0]) && isnan(la.load[2]));
        assert_int_equal(proc_loadavg_parse(S("1e999 1 1 1/1 1\n"), &la), -EINVAL);
        assert_true(isnan(la.load[0]));
        assert_int_equal(proc_loadavg_parse(S("1.5x 1 1 1/1 1\n"), &la), -EINVAL);
        assert_true(isnan(la.load[0]));
}

static void test_uptime(void **state)
{
        (void)state;
        double up = -1;
        assert_int_equal(proc_uptime_parse(S("350735.47 1383567.90\n"), &up), 0);
        assert_true(up == 350735.47);
        up = -1;
        assert_int_equal(proc_uptime_parse("", 0, &up), -EINVAL);
        assert_int_equal(proc_uptime_parse(S("350735"), &up), -EINVAL); /* cut */
        assert_int_equal(proc_uptime_parse(S("\x7f"
                                             "ELF\x02\x01\n"),
                                           &up),
                         -EINVAL);
        assert_int_equal(proc_uptime_parse(S("-3.0 1.0\n"), &up), -EINVAL);
        assert_true(up == -1);
}

static const char meminfo_pi4[] = "MemTotal:        3884360 kB\n"
                                  "MemFree:         2101324 kB\n"
                                  "MemAvailable:    3205472 kB\n"
                                  "Buffers:           65432 kB\n"
                                  "Cached:          1183744 kB\n"
                                  "SwapCached:            0 kB\n"
                                  "Active:           612340 kB\n"
                                  "SwapTotal:        102396 kB\n"
                                  "SwapFree:          51200 kB\n"
                                  "Dirty:                48 kB\n";

static void test_meminfo(void **state)
{
        (void)state;
        struct proc_meminfo m;
        struct host_frame h;
        host_frame_clear(&h);
        assert_int_equal(proc_meminfo_parse(S(meminfo_pi4), &m), 0);
        /* SwapCached must not be taken for Cached. */
        assert_int_equal(m.kb[MI_CACHED], 1183744);
        proc_meminfo_apply(&m, &h);
        assert_true(h.mem_total_bytes == 3884360.0 * 1024);
        assert_true(h.mem_avail_bytes == 3205472.0 * 1024);
        assert_true(h.mem_used_bytes == (3884360.0 - 3205472.0) * 1024);
        assert_true(h.swap_total_bytes == 102396.0 * 1024);
        assert_true(h.swap_free_bytes == 51200.0 * 1024);
}

static void test_meminfo_old_kernel(void **state)
{
        (void)state;
        struct proc_meminfo m;
        struct host_frame h;
        host_frame_clear(&h);
        /* No MemAvailable line (before 3.14): free + buffers + cached. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:        1000000 kB\n"
                                              "MemFree:          200000 kB\n"
                                              "Buffers:           30000 kB\n"
                                              "Cached:           400000 kB\n"
                                              "SwapCached:            0 kB\n"),
                                            &m),
                         0);
        proc_meminfo_apply(&m, &h);
        assert_true(h.mem_avail_bytes == 630000.0 * 1024);
        assert_true(h.mem_used_bytes == 370000.0 * 1024);
        assert_true(isnan(h.swap_total_bytes));
        /* A malformed MemAvailable is missing, not replaced by the estimate. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:        1000000 kB\n"
                                              "MemFree:          200000 kB\n"
                                              "MemAvailable:     lots kB\n"
                                              "Buffers:           30000 kB\n"
                                              "Cached:           400000 kB\n"),
                                            &m),
                         0);
        proc_meminfo_apply(&m, &h);
        assert_true(isnan(h.mem_avail_bytes) && isnan(h.mem_used_bytes));
}

/* Dirty plus Writeback from /proc/meminfo's text; a missing or malformed line is -1
 * (never taken as a quiet machine). */
/* The unwritten kB of a /proc/meminfo text (proc_meminfo_unwritten_kb of its parse). */
static long long unwritten_kb(const char *text, size_t len)
{
        struct proc_meminfo m = {.seen = 0, .valid = 0};
        (void)proc_meminfo_parse(text, len, &m);
        return proc_meminfo_unwritten_kb(&m);
}

static void test_unwritten_kb(void **state)
{
        (void)state;
        const char *ok = "MemTotal: 10 kB\nDirty:              1234 kB\nWriteback:  "
                         "7 kB\nWritebackTmp:   99 kB\n";
        assert_int_equal(unwritten_kb(ok, strlen(ok)), 1241);
        const char *nowb = "Dirty: 5 kB\nWritebackTmp: 0 kB\n";
        assert_int_equal(unwritten_kb(nowb, strlen(nowb)), -1);
        const char *bad = "Dirty: x kB\nWriteback: 0 kB\n";
        assert_int_equal(unwritten_kb(bad, strlen(bad)), -1);
        const char *unit = "Dirty: 5 MB\nWriteback: 0 kB\n";
        assert_int_equal(unwritten_kb(unit, strlen(unit)), -1);
        const char *cut = "Dirty: 5";
        assert_int_equal(unwritten_kb(cut, strlen(cut)), -1);
        const char *mid = "XDirty: 5 kB\nDirty: 6 kB\nWriteback: 1 kB\n";
        assert_int_equal(unwritten_kb(mid, strlen(mid)), 7);
        assert_int_equal(unwritten_kb("", 0), -1);
}

static void test_meminfo_bad(void **state)
{
        (void)state;
        struct proc_meminfo m;
        struct host_frame h;
        host_frame_clear(&h);
        assert_int_equal(proc_meminfo_parse("", 0, &m), -EINVAL);
        proc_meminfo_apply(&m, &h);
        assert_true(isnan(h.mem_total_bytes) && isnan(h.mem_avail_bytes));
        assert_true(isnan(h.mem_used_bytes) && isnan(h.swap_free_bytes));
        /* Cut mid-number: "MemTotal: 38" of 3884360 must not be taken. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:        38"), &m), -EINVAL);
        /* Overflow, garbage, a wrong unit. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:  99999999999999999999999 kB\n"
                                              "SwapTotal:  12 MB\n"
                                              "SwapFree:  \x01\x02\n"),
                                            &m),
                         -EINVAL);
        proc_meminfo_apply(&m, &h);
        assert_true(isnan(h.mem_total_bytes) && isnan(h.swap_total_bytes));
        assert_true(isnan(h.swap_free_bytes));
        /* More available than total: used is missing, not negative. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:  100 kB\nMemAvailable:  200 kB\n"), &m),
                         0);
        proc_meminfo_apply(&m, &h);
        assert_true(h.mem_avail_bytes == 200.0 * 1024);
        assert_true(isnan(h.mem_used_bytes));
        /* The largest value is converted without wrapping. */
        assert_int_equal(proc_meminfo_parse(S("MemTotal:  18446744073709551615 kB\n"), &m), 0);
        proc_meminfo_apply(&m, &h);
        assert_true(h.mem_total_bytes == 18446744073709551615.0 * 1024);
}

static void test_shm(void **state)
{
        (void)state;
        struct shm_statvfs v = {1, 2, 3, 4};
        struct host_frame h;
        host_frame_clear(&h);
        assert_int_equal(shm_parse_override(S("4096 485545 470185 470185\n"), &v), 0);
        assert_int_equal(v.frsize, 4096);
        assert_int_equal(v.bavail, 470185);
        shm_apply(&v, &h);
        assert_true(h.shm_total_bytes == 485545.0 * 4096);
        assert_true(h.shm_used_bytes == 15360.0 * 4096);
        assert_true(h.shm_avail_bytes == 470185.0 * 4096);
        assert_int_equal(shm_parse_override(S("4096 1 2\n"), &v), -EINVAL);
        assert_int_equal(shm_parse_override(S("4096 1 2 3 4\n"), &v), -EINVAL);
        assert_int_equal(shm_parse_override(S("4096 1 2 3x\n"), &v), -EINVAL);
        assert_int_equal(shm_parse_override(S("4096 99999999999999999999 2 3\n"), &v), -ERANGE);
        assert_int_equal(shm_parse_override("", 0, &v), -EINVAL);
        assert_int_equal(v.frsize, 4096);
        /* More free than the size: used and the impossible avail are missing. */
        struct shm_statvfs bad = {4096, 100, 200, 300};
        shm_apply(&bad, &h);
        assert_true(h.shm_total_bytes == 409600.0);
        assert_true(isnan(h.shm_used_bytes) && isnan(h.shm_avail_bytes));
        shm_apply(NULL, &h);
        assert_true(isnan(h.shm_total_bytes));
}

static void test_temp_parse(void **state)
{
        (void)state;
        double c = 1;
        assert_int_equal(host_temp_parse_millic(S("47236\n"), &c), 0);
        assert_float_equal(c, 47.236, 1e-12);
        assert_int_equal(host_temp_parse_millic(S("-5000\n"), &c), 0);
        assert_float_equal(c, -5.0, 1e-12);
        c = 1;
        assert_int_equal(host_temp_parse_millic(S("abc\n"), &c), -EINVAL);
        assert_int_equal(host_temp_parse_millic("", 0, &c), -EINVAL);
        assert_int_equal(host_temp_parse_millic(S("47236abc\n"), &c), -EINVAL);
        assert_int_equal(host_temp_parse_millic(S("99999999999999999999\n"), &c), -ERANGE);
        assert_int_equal(host_temp_parse_millic(S("2000000\n"), &c), -ERANGE);
        assert_int_equal(host_temp_parse_millic(S("-300000\n"), &c), -ERANGE);
        assert_true(c == 1);
}

static struct host_temp temp_of(const char *chip, const char *sensor, double c)
{
        struct host_temp t;
        memset(&t, 0, sizeof(t));
        snprintf(t.chip, sizeof(t.chip), "%s", chip);
        snprintf(t.sensor, sizeof(t.sensor), "%s", sensor);
        t.celsius = c;
        return t;
}

static void test_pick_main(void **state)
{
        (void)state;
        /* x86: the coretemp package wins over nvme (first) and the Core sensors. */
        struct host_temp x86[] = {
            temp_of("nvme", "Composite", 38.85),          temp_of("coretemp", "Core 0", 40),
            temp_of("coretemp", "Package id 0", 52),      temp_of("acpitz", "temp1", 27.8),
            temp_of("x86_pkg_temp", "thermal_zone1", 53),
        };
        assert_int_equal(host_temp_pick_main(x86, 5), 2);
        /* Without the package sensor: any coretemp sensor beats acpitz. */
        x86[2].celsius = NAN;
        assert_int_equal(host_temp_pick_main(x86, 5), 1);
        /* Without coretemp values: x86_pkg_temp (a zone) comes before acpitz. */
        x86[1].celsius = NAN;
        assert_int_equal(host_temp_pick_main(x86, 5), 4);
        /* Pi: the hwmon chip cpu_thermal first, the zone cpu-thermal when it fails. */
        struct host_temp pi[] = {
            temp_of("rpi_volt", "temp1", 99),
            temp_of("cpu_thermal", "temp1", 47.236),
            temp_of("cpu-thermal", "thermal_zone0", 47.723),
        };
        assert_int_equal(host_temp_pick_main(pi, 3), 1);
        pi[1].celsius = NAN;
        assert_int_equal(host_temp_pick_main(pi, 3), 2);
        /* AMD: k10temp Tctl over Tccd1 even when listed later. */
        struct host_temp amd[] = {
            temp_of("k10temp", "Tccd1", 60),
            temp_of("k10temp", "Tctl", 65),
        };
        assert_int_equal(host_temp_pick_main(amd, 2), 1);
        /* Nothing preferred: the first sensor with a value. */
        struct host_temp other[] = {
            temp_of("nvme", "Composite", NAN),
            temp_of("nvme", "Sensor 1", 36),
            temp_of("iwlwifi_1", "temp1", 40),
        };
        assert_int_equal(host_temp_pick_main(other, 3), 1);
        other[1].celsius = NAN;
        other[2].celsius = NAN;
        assert_int_equal(host_temp_pick_main(other, 3), -1);
        assert_int_equal(host_temp_pick_main(other, 0), -1);
}

static void test_name_index(void **state)
{
        (void)state;
        unsigned v = 77;
        assert_int_equal(sysfs_name_index("hwmon12", "hwmon", "", &v), 0);
        assert_int_equal(v, 12);
        assert_int_equal(sysfs_name_index("temp3_input", "temp", "_input", &v), 0);
        assert_int_equal(v, 3);
        assert_int_equal(sysfs_name_index("cpu0", "cpu", "", &v), 0);
        assert_int_equal(v, 0);
        v = 77;
        assert_int_equal(sysfs_name_index("hwmon", "hwmon", "", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("hwmon01", "hwmon", "", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("hwmon1x", "hwmon", "", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("cpufreq", "cpu", "", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("temp_input", "temp", "_input", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("temp3_label", "temp", "_input", &v), -EINVAL);
        assert_int_equal(sysfs_name_index("thermal_zone99999999999", "thermal_zone", "", &v),
                         -EINVAL);
        assert_int_equal(v, 77);
}

static void test_cpufreq_khz(void **state)
{
        (void)state;
        double hz = 1;
        assert_int_equal(cpufreq_parse_khz(S("600000\n"), &hz), 0);
        assert_true(hz == 600e6);
        hz = 1;
        assert_int_equal(cpufreq_parse_khz(S("<unknown>\n"), &hz), -EINVAL);
        assert_int_equal(cpufreq_parse_khz("", 0, &hz), -EINVAL);
        assert_int_equal(cpufreq_parse_khz(S("-1\n"), &hz), -EINVAL);
        assert_int_equal(cpufreq_parse_khz(S("99999999999999999999\n"), &hz), -ERANGE);
        assert_true(hz == 1);
}

static void test_retry_gate(void **state)
{
        (void)state;
        struct retry_gate g = {0, false};
        const int64_t s = 1000000000LL;
        assert_false(retry_due(&g, 100 * s, RETRY_INTERVAL_NS)); /* arms */
        assert_false(retry_due(&g, 159 * s, RETRY_INTERVAL_NS));
        assert_true(retry_due(&g, 160 * s, RETRY_INTERVAL_NS));
        assert_false(retry_due(&g, 161 * s, RETRY_INTERVAL_NS));
        assert_true(retry_due(&g, 500 * s, RETRY_INTERVAL_NS));
        assert_false(retry_due(&g, 559 * s, RETRY_INTERVAL_NS));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_stat_normal),
            cmocka_unit_test(test_stat_empty_garbage),
            cmocka_unit_test(test_stat_truncated),
            cmocka_unit_test(test_stat_fields),
            cmocka_unit_test(test_stat_300_cores),
            cmocka_unit_test(test_busy_pct),
            cmocka_unit_test(test_busy_pct_guest),
            cmocka_unit_test(test_loadavg),
            cmocka_unit_test(test_uptime),
            cmocka_unit_test(test_meminfo),
            cmocka_unit_test(test_meminfo_old_kernel),
            cmocka_unit_test(test_meminfo_bad),
            cmocka_unit_test(test_unwritten_kb),
            cmocka_unit_test(test_shm),
            cmocka_unit_test(test_temp_parse),
            cmocka_unit_test(test_pick_main),
            cmocka_unit_test(test_name_index),
            cmocka_unit_test(test_cpufreq_khz),
            cmocka_unit_test(test_retry_gate),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
