/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: each host source's init/sample/fini on the fixture trees
 * (tests/fixtures/{pi4,x86-server,broken}), with exact values computed by hand from
 * the fixture files. Trees are copied under a temporary directory first, so a test
 * can change files (proc/stat -> proc/stat.next) without touching the originals. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/proc_loadavg.h"
#include "collect/proc_meminfo.h"
#include "collect/proc_stat.h"
#include "collect/proc_uptime.h"
#include "collect/shm.h"
#include "collect/sys_cpufreq.h"
#include "collect/sys_hwmon.h"
#include "collect/sys_thermal.h"
#include "core/vigil.h"
#include "daemon/registry.h"
#include "util/attr.h"

#include "source_env.h"

/* Replace proc/stat's content with proc/stat.next's, in place. */
static void advance_stat(struct env *e)
{
        char buf[65536];
        int fd = open(at(e, "proc/stat.next"), O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof(buf));
        close(fd);
        assert_true(n > 0 && n < (ssize_t)sizeof(buf));
        write_file(e, "proc/stat", buf, (size_t)n);
}

/* The sources this file tests; the registry also lists other machines' sources. */
static bool is_host_source(const struct vigil_source *s)
{
        static const char *const names[] = {"proc-stat",   "proc-loadavg", "proc-meminfo",
                                            "proc-uptime", "shm",          "sys-hwmon",
                                            "sys-thermal", "sys-cpufreq"};
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                if (strcmp(s->name, names[i]) == 0)
                        return true;
        }
        return false;
}

/* init, one sample, fini. Returns the sample's result. */
static int run_once(struct env *e, const struct vigil_source *s)
{
        void *st = src_init(e, s);
        int r = src_sample(e, s, st);
        s->fini(st);
        return r;
}

static void test_pi4_cpu(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        void *st = src_init(e, &vigil_source_proc_stat);
        /* The priming read at init gives the first sample its delta. Per core over the
         * interval (busy = total - idle - iowait, total 100 ticks each): cpu0 20+5+2 =
         * 27, cpu1 50+10+2 = 62, cpu2 2+1 = 3, cpu3 90+8+1 = 99; all: 191 of 400. */
        advance_stat(e);
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_int_equal(h->ncpu, 4);
        assert_float_equal(h->cpu_total_pct, 47.75, 1e-9);
        assert_float_equal(h->cpu_pct[0], 27.0, 1e-9);
        assert_float_equal(h->cpu_pct[1], 62.0, 1e-9);
        assert_float_equal(h->cpu_pct[2], 3.0, 1e-9);
        assert_float_equal(h->cpu_pct[3], 99.0, 1e-9);
        assert_true(isnan(h->cpu_pct[4]));
        /* Nothing changed since: no time passed, so missing rather than a made-up 0. */
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_true(isnan(h->cpu_total_pct) && isnan(h->cpu_pct[0]));
        /* Counters going back (the first snapshot again): missing, not garbage. */
        char buf[65536];
        char path[600];
        snprintf(path, sizeof(path), "%s/pi4/proc/stat", fixtures_dir());
        int n = read_file_at("", path, buf, sizeof(buf));
        assert_true(n > 0);
        write_file(e, "proc/stat", buf, (size_t)n);
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_true(isnan(h->cpu_total_pct));
        for (unsigned i = 0; i < 4; i++)
                assert_true(isnan(h->cpu_pct[i]));
        /* And forward again from there: values come back. */
        advance_stat(e);
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_float_equal(h->cpu_total_pct, 47.75, 1e-9);
        vigil_source_proc_stat.fini(st);
        env_free(e);
}

static void test_x86_cpu(void **state)
{
        (void)state;
        struct env *e = env_new("x86-server");
        struct host_frame *h = &e->frame.host;
        void *st = src_init(e, &vigil_source_proc_stat);
        /* Core i: user +2i (i of it guest), system +i, iowait +(i%2), idle the rest of
         * 100 ticks: busy 3i %. All: 3 * (0+...+31) = 1488 of 3200 = 46.5 %. */
        advance_stat(e);
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_int_equal(h->ncpu, 32);
        assert_float_equal(h->cpu_total_pct, 46.5, 1e-9);
        for (unsigned i = 0; i < 32; i++)
                assert_float_equal(h->cpu_pct[i], 3.0 * i, 1e-9);
        vigil_source_proc_stat.fini(st);
        env_free(e);
}

static void test_pi4_proc(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        assert_int_equal(run_once(e, &vigil_source_proc_loadavg), 0);
        assert_true(h->load1 == 1.13 && h->load5 == 0.98 && h->load15 == 0.87);
        assert_int_equal(run_once(e, &vigil_source_proc_uptime), 0);
        assert_true(h->uptime_s == 350735.47);
        assert_int_equal(run_once(e, &vigil_source_proc_meminfo), 0);
        assert_true(h->mem_total_bytes == 3977584640.0); /* 3884360 kB */
        assert_true(h->mem_avail_bytes == 3282403328.0); /* 3205472 kB */
        assert_true(h->mem_used_bytes == 695181312.0);   /* 678888 kB */
        assert_true(h->swap_total_bytes == 104853504.0); /* 102396 kB */
        assert_true(h->swap_free_bytes == 104853504.0);
        assert_int_equal(run_once(e, &vigil_source_shm), 0);
        assert_true(h->shm_total_bytes == 1988792320.0); /* 485545 * 4096 */
        assert_true(h->shm_used_bytes == 62914560.0);    /* (485545 - 470185) * 4096 */
        assert_true(h->shm_avail_bytes == 1925877760.0); /* 470185 * 4096 */
        env_free(e);
}

static void test_x86_proc(void **state)
{
        (void)state;
        struct env *e = env_new("x86-server");
        struct host_frame *h = &e->frame.host;
        assert_int_equal(run_once(e, &vigil_source_proc_loadavg), 0);
        assert_true(h->load1 == 12.34 && h->load5 == 10.56 && h->load15 == 9.87);
        assert_int_equal(run_once(e, &vigil_source_proc_uptime), 0);
        assert_true(h->uptime_s == 1234567.89);
        assert_int_equal(run_once(e, &vigil_source_proc_meminfo), 0);
        assert_true(h->mem_total_bytes == 131811076.0 * 1024);
        assert_true(h->mem_avail_bytes == 120456788.0 * 1024);
        assert_true(h->mem_used_bytes == 11354288.0 * 1024);
        assert_true(h->swap_total_bytes == 8388604.0 * 1024);
        /* No seam file here: statvfs of the fixture's own dev/shm directory. */
        assert_int_equal(run_once(e, &vigil_source_shm), 0);
        assert_true(VAL_OK(h->shm_total_bytes) && h->shm_total_bytes > 0);
        assert_true(VAL_OK(h->shm_used_bytes) && h->shm_used_bytes <= h->shm_total_bytes);
        assert_true(VAL_OK(h->shm_avail_bytes) && h->shm_avail_bytes <= h->shm_total_bytes);
        env_free(e);
}

/* hwmon then thermal, as the registry runs them. */
static void run_temps(struct env *e)
{
        void *hw = src_init(e, &vigil_source_sys_hwmon);
        void *th = src_init(e, &vigil_source_sys_thermal);
        for (int i = 0; i < 2; i++) { /* twice: the list is rebuilt, not appended to */
                assert_int_equal(src_sample(e, &vigil_source_sys_hwmon, hw), 0);
                assert_int_equal(src_sample(e, &vigil_source_sys_thermal, th), 0);
        }
        vigil_source_sys_thermal.fini(th);
        vigil_source_sys_hwmon.fini(hw);
}

static void assert_temp(const struct host_temp *t, const char *chip, const char *sensor, double c)
{
        assert_string_equal(t->chip, chip);
        assert_string_equal(t->sensor, sensor);
        if (isnan(c))
                assert_true(isnan(t->celsius));
        else
                assert_float_equal(t->celsius, c, 1e-9);
}

static void test_pi4_temps(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        run_temps(e);
        /* hwmon0 cpu_thermal (through its sysfs-style symlink); rpi_volt has no temps. */
        assert_int_equal(h->ntemps, 2);
        assert_temp(&h->temps[0], "cpu_thermal", "temp1", 47.236);
        assert_temp(&h->temps[1], "cpu-thermal", "thermal_zone0", 47.723);
        assert_float_equal(h->temp_c, 47.236, 1e-9);
        env_free(e);
}

static void test_x86_temps(void **state)
{
        (void)state;
        struct env *e = env_new("x86-server");
        struct host_frame *h = &e->frame.host;
        char label[32];
        run_temps(e);
        /* hwmon0 nvme (3), hwmon1 nvme (1), hwmon3 coretemp (17), hwmon5 acpitz (2),
         * then zones acpitz and x86_pkg_temp. hwmon2 (power_meter) has no temps. The two
         * chips named nvme are told apart by their device links (nvme0, nvme1). */
        assert_int_equal(h->ntemps, 25);
        assert_temp(&h->temps[0], "nvme_nvme0", "Composite", 38.85);
        assert_temp(&h->temps[2], "nvme_nvme0", "Sensor 2", 43.85);
        assert_temp(&h->temps[3], "nvme_nvme1", "Composite", 36.85);
        assert_temp(&h->temps[4], "coretemp", "Package id 0", 52.0);
        for (unsigned j = 0; j < 16; j++) { /* temp2..temp17 in numeric order */
                snprintf(label, sizeof(label), "Core %u", j);
                assert_temp(&h->temps[5 + j], "coretemp", label, 40.0 + j);
        }
        assert_temp(&h->temps[21], "acpitz", "temp1", 27.8);
        assert_temp(&h->temps[22], "acpitz", "temp2", 29.8);
        assert_temp(&h->temps[23], "acpitz", "thermal_zone0", 27.8);
        assert_temp(&h->temps[24], "x86_pkg_temp", "thermal_zone1", 53.0);
        /* The package sensor, not the first one (nvme) nor the zone. */
        assert_float_equal(h->temp_c, 52.0, 1e-9);
        env_free(e);
}

static void test_x86_temps_renumbered(void **state)
{
        (void)state;
        struct env *e = env_new("x86-server");
        struct host_frame *h = &e->frame.host;
        /* Another boot: coretemp became hwmon0 and nvme hwmon3. Found by name. */
        run_cmd("cd '%s/sys/class/hwmon' && mv hwmon3 tmp && mv hwmon0 hwmon3 && mv tmp hwmon0",
                e->root);
        run_temps(e);
        assert_int_equal(h->ntemps, 25);
        assert_temp(&h->temps[0], "coretemp", "Package id 0", 52.0);
        /* Each drive keeps its label: its device link, not its hwmon number. */
        assert_temp(&h->temps[17], "nvme_nvme1", "Composite", 36.85); /* hwmon1 */
        assert_temp(&h->temps[18], "nvme_nvme0", "Composite", 38.85); /* hwmon3 now */
        assert_float_equal(h->temp_c, 52.0, 1e-9);
        env_free(e);
}

static void test_pi4_cpufreq(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        assert_int_equal(run_once(e, &vigil_source_sys_cpufreq), 0);
        /* cpu0..3/cpufreq all link to policy0. */
        assert_int_equal(h->nfreq, 4);
        for (unsigned i = 0; i < 4; i++)
                assert_true(h->cpu_freq_hz[i] == 600e6);
        assert_true(isnan(h->cpu_freq_hz[4]));
        assert_string_equal(h->governor, "ondemand");
        assert_true(h->cpu_max_freq_hz == 1500e6);
        env_free(e);
}

static void test_x86_cpufreq(void **state)
{
        (void)state;
        struct env *e = env_new("x86-server");
        struct host_frame *h = &e->frame.host;
        void *st = src_init(e, &vigil_source_sys_cpufreq);
        assert_int_equal(src_sample(e, &vigil_source_sys_cpufreq, st), 0);
        assert_int_equal(h->nfreq, 32);
        for (unsigned i = 0; i < 32; i++)
                assert_true(h->cpu_freq_hz[i] == (3400000.0 + i * 1000) * 1000);
        assert_string_equal(h->governor, "performance");
        assert_true(h->cpu_max_freq_hz == 3900e6);
        /* The kept-open file is re-read: a new value shows on the next sample. */
        write_file(e, "sys/devices/system/cpu/cpu7/cpufreq/scaling_cur_freq", "800000\n", 7);
        write_file(e, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n", 10);
        assert_int_equal(src_sample(e, &vigil_source_sys_cpufreq, st), 0);
        assert_true(h->cpu_freq_hz[7] == 800e6);
        assert_string_equal(h->governor, "powersave");
        vigil_source_sys_cpufreq.fini(st);
        env_free(e);
}

static void test_broken(void **state)
{
        (void)state;
        struct env *e = env_new("broken");
        struct host_frame *h = &e->frame.host;

        /* proc/stat: cpu1 has "abc" for idle, cpu2 is cut mid-line (ignored). Total:
         * +30 user +10 system +60 idle = 40 %; cpu0: +10 +5 of 50 = 30 %. */
        void *st = src_init(e, &vigil_source_proc_stat);
        advance_stat(e);
        assert_int_equal(src_sample(e, &vigil_source_proc_stat, st), 0);
        assert_int_equal(h->ncpu, 2);
        assert_float_equal(h->cpu_total_pct, 40.0, 1e-9);
        assert_float_equal(h->cpu_pct[0], 30.0, 1e-9);
        assert_true(isnan(h->cpu_pct[1]));
        vigil_source_proc_stat.fini(st);

        /* meminfo: only MemTotal and SwapFree are sound. */
        assert_int_equal(run_once(e, &vigil_source_proc_meminfo), 0);
        assert_true(h->mem_total_bytes == 1024000000.0);
        assert_true(isnan(h->mem_avail_bytes) && isnan(h->mem_used_bytes));
        assert_true(isnan(h->swap_total_bytes));
        assert_true(h->swap_free_bytes == 0.0);

        assert_true(run_once(e, &vigil_source_proc_loadavg) < 0); /* empty */
        assert_true(isnan(h->load1) && isnan(h->load5) && isnan(h->load15));
        assert_true(run_once(e, &vigil_source_proc_uptime) < 0); /* binary junk */
        assert_true(isnan(h->uptime_s));

        /* shm seam: more free blocks than blocks. */
        assert_int_equal(run_once(e, &vigil_source_shm), 0);
        assert_true(h->shm_total_bytes == 409600.0);
        assert_true(isnan(h->shm_used_bytes));
        assert_true(h->shm_avail_bytes == 204800.0);

        /* temp1 "abc", temp2 a directory (EISDIR), temp3 fine; hwmon1 has no name;
         * zone0 has an empty temp, zone1 no type. */
        run_temps(e);
        assert_int_equal(h->ntemps, 4);
        assert_temp(&h->temps[0], "cpu_thermal", "temp1", NAN);
        assert_temp(&h->temps[1], "cpu_thermal", "temp2", NAN);
        assert_temp(&h->temps[2], "cpu_thermal", "temp3", 45.0);
        assert_temp(&h->temps[3], "cpu-thermal", "thermal_zone0", NAN);
        assert_float_equal(h->temp_c, 45.0, 1e-9);

        /* No cpufreq at all (as in a VM): missing values, the source is fine. */
        assert_int_equal(run_once(e, &vigil_source_sys_cpufreq), 0);
        assert_int_equal(h->nfreq, 0);
        assert_string_equal(h->governor, "");
        assert_true(isnan(h->cpu_max_freq_hz));
        env_free(e);
}

static void test_empty_root(void **state)
{
        (void)state;
        struct env *e = env_new(NULL);
        struct host_frame *h = &e->frame.host;
        unsigned found = 0;
        for (const struct vigil_source *const *s = vigil_sources; *s; s++) {
                if (!is_host_source(*s))
                        continue;
                found++;
                void *st = src_init(e, *s);
                (*s)->sample(st, &e->ctx, &e->tick);
                (*s)->fini(st);
        }
        assert_int_equal(found, 8);
        assert_int_equal(h->ncpu, 0);
        assert_true(isnan(h->cpu_total_pct) && isnan(h->load1) && isnan(h->uptime_s));
        assert_true(isnan(h->mem_total_bytes) && isnan(h->shm_total_bytes));
        assert_int_equal(h->ntemps, 0);
        assert_true(isnan(h->temp_c));
        assert_int_equal(h->nfreq, 0);
        env_free(e);
}

static void test_retry_absent(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        run_cmd("cd '%s' && mv proc/loadavg proc/loadavg.away && mv sys/class/hwmon sys/hw.away",
                e->root);
        void *la = src_init(e, &vigil_source_proc_loadavg);
        void *hw = src_init(e, &vigil_source_sys_hwmon);
        run_cmd("cd '%s' && mv proc/loadavg.away proc/loadavg && mv sys/hw.away sys/class/hwmon",
                e->root);
        /* Absent at init: no retry before 60 s have passed since the first sample. */
        int64_t t0 = e->tick.mono_ns;
        for (int64_t dt = 0; dt < 60; dt += 59) {
                e->tick.mono_ns = t0 + dt * SEC;
                assert_true(src_sample(e, &vigil_source_proc_loadavg, la) < 0);
                assert_true(isnan(h->load1));
                assert_int_equal(src_sample(e, &vigil_source_sys_hwmon, hw), 0);
                assert_int_equal(h->ntemps, 0);
        }
        e->tick.mono_ns = t0 + 60 * SEC;
        assert_int_equal(src_sample(e, &vigil_source_proc_loadavg, la), 0);
        assert_true(h->load1 == 1.13);
        assert_int_equal(src_sample(e, &vigil_source_sys_hwmon, hw), 0);
        assert_int_equal(h->ntemps, 1);
        assert_temp(&h->temps[0], "cpu_thermal", "temp1", 47.236);
        vigil_source_proc_loadavg.fini(la);
        vigil_source_sys_hwmon.fini(hw);
        env_free(e);
}

static void test_temps_bounded(void **state)
{
        (void)state;
        struct env *e = env_new(NULL);
        struct host_frame *h = &e->frame.host;
        /* One chip with 100 sensors and 100 zones: at most VIGIL_MAX_TEMPS kept. */
        run_cmd("mkdir -p '%s/sys/class/hwmon/hwmon0' '%s/sys/class/thermal'", e->root, e->root);
        write_file(e, "sys/class/hwmon/hwmon0/name", "big\n", 4);
        for (unsigned i = 1; i <= 100; i++) {
                char rel[128], val[32];
                int n = snprintf(val, sizeof(val), "%u\n", 1000 * i);
                snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/temp%u_input", i);
                write_file(e, rel, val, (size_t)n);
                snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u", i);
                assert_int_equal(mkdir(at(e, rel), 0755), 0);
                snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u/type", i);
                write_file(e, rel, "zone\n", 5);
                snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u/temp", i);
                write_file(e, rel, val, (size_t)n);
        }
        run_temps(e);
        assert_int_equal(h->ntemps, VIGIL_MAX_TEMPS);
        assert_temp(&h->temps[0], "big", "temp1", 1.0);
        assert_temp(&h->temps[VIGIL_MAX_TEMPS - 1], "big", "temp64", 64.0);
        assert_float_equal(h->temp_c, 1.0, 1e-9);
        env_free(e);
}

/* The host sources in registry order, as the daemon runs them (sys_hwmon must come
 * before sys_thermal). Returns how many were found. */
static unsigned registry_host_sources(const struct vigil_source **ret, unsigned cap)
{
        unsigned n = 0;
        for (const struct vigil_source *const *s = vigil_sources; *s; s++) {
                if (is_host_source(*s) && n < cap)
                        ret[n++] = *s;
        }
        return n;
}

static void test_registry_pi4(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        struct host_frame *h = &e->frame.host;
        const struct vigil_source *src[16];
        void *st[16];
        unsigned n = registry_host_sources(src, 16);
        assert_int_equal(n, 8);
        for (unsigned i = 0; i < n; i++) {
                assert_true(src[i]->clocks & VCLOCK_BIT(VCLOCK_HOST));
                st[i] = src_init(e, src[i]);
        }
        advance_stat(e);
        for (unsigned round = 0; round < 3; round++) {
                for (unsigned i = 0; i < n; i++)
                        assert_int_equal(src[i]->sample(st[i], &e->ctx, &e->tick), 0);
                if (round == 0)
                        assert_float_equal(h->cpu_total_pct, 47.75, 1e-9);
        }
        assert_int_equal(h->ntemps, 2);
        assert_float_equal(h->temp_c, 47.236, 1e-9);
        assert_true(h->mem_used_bytes == 695181312.0);
        assert_true(h->shm_used_bytes == 62914560.0);
        assert_true(h->load15 == 0.87 && h->uptime_s == 350735.47);
        assert_string_equal(h->governor, "ondemand");
        for (unsigned i = 0; i < n; i++)
                src[i]->fini(st[i]);
        env_free(e);
}

static void test_attr_read(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        char buf[8];
        int fd = attr_open(e->root, "/proc/loadavg");
        assert_true(fd >= 0);
        /* Bounded: cap-1 bytes, NUL-terminated. */
        assert_int_equal(attr_read(fd, buf, sizeof(buf)), 7);
        assert_string_equal(buf, "1.13 0.");
        close(fd);
        fd = attr_open(e->root, "/sys/class/hwmon/hwmon0");
        assert_true(fd >= 0);
        assert_int_equal(attr_read(fd, buf, sizeof(buf)), -EISDIR);
        assert_string_equal(buf, "");
        close(fd);
        assert_int_equal(attr_open(e->root, "/nonexistent"), -ENOENT);
        assert_int_equal(attr_read(-1, buf, sizeof(buf)), -EBADF);
        assert_int_equal(attr_trim_len("ondemand\n \t\r\n", 13), 8);
        env_free(e);
}

static void test_live_system(void **state)
{
        (void)state;
        /* The running machine, root "": values exist and are sane (not exact). */
        struct env *e = env_new(NULL);
        struct host_frame *h = &e->frame.host;
        e->opt.root[0] = '\0';
        assert_int_equal(run_once(e, &vigil_source_proc_meminfo), 0);
        assert_true(h->mem_total_bytes > 0 && h->mem_avail_bytes <= h->mem_total_bytes);
        assert_int_equal(run_once(e, &vigil_source_proc_loadavg), 0);
        assert_true(h->load1 >= 0);
        assert_int_equal(run_once(e, &vigil_source_proc_uptime), 0);
        assert_true(h->uptime_s > 0);
        assert_int_equal(run_once(e, &vigil_source_proc_stat), 0);
        assert_true(h->ncpu >= 1);
        assert_true(isnan(h->cpu_total_pct) || (h->cpu_total_pct >= 0 && h->cpu_total_pct <= 100));
        env_free(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pi4_cpu),
            cmocka_unit_test(test_x86_cpu),
            cmocka_unit_test(test_pi4_proc),
            cmocka_unit_test(test_x86_proc),
            cmocka_unit_test(test_pi4_temps),
            cmocka_unit_test(test_x86_temps),
            cmocka_unit_test(test_x86_temps_renumbered),
            cmocka_unit_test(test_pi4_cpufreq),
            cmocka_unit_test(test_x86_cpufreq),
            cmocka_unit_test(test_broken),
            cmocka_unit_test(test_empty_root),
            cmocka_unit_test(test_retry_absent),
            cmocka_unit_test(test_temps_bounded),
            cmocka_unit_test(test_registry_pi4),
            cmocka_unit_test(test_attr_read),
            cmocka_unit_test(test_live_system),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
