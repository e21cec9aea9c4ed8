/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the Prometheus text renderer (metrics/metrics.c) and its counters
 * (core/counters.c), on a hand-built frame: a host, two watches, a Raspberry Pi
 * and two GPUs (one failing), with values missing here and there.
 *
 * The rendered text is also written to $VIGIL_METRICS_OUT (or tests/out/ when run from
 * the top directory) for tests/integration/metrics_lint.sh to check with promtool. */
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

#include "core/frame.h"
#include "core/vigil.h"
#include "detect/rpi_rules.h"
#include "metrics/metrics.h"
#include "util/strbuf.h"

static struct frame fr;
static struct counters ex;

static void build_frame(struct frame *f)
{
        frame_clear(f);
        struct host_frame *h = &f->host;
        h->ncpu = 2;
        h->cpu_total_pct = 37.5;
        h->cpu_pct[0] = 50;
        h->cpu_pct[1] = NAN; /* missing */
        h->load1 = 0.52;
        h->load5 = 1.25;
        h->load15 = 3;
        h->mem_total_bytes = 3981209600.0;
        h->mem_avail_bytes = 2147483648.0;
        h->mem_used_bytes = 3981209600.0 - 2147483648.0;
        h->swap_total_bytes = 104853504;
        h->swap_free_bytes = 104853504;
        h->shm_total_bytes = 1990604800;
        h->shm_used_bytes = 4096;
        /* shm_avail_bytes missing */
        h->ntemps = 2;
        snprintf(h->temps[0].chip, sizeof(h->temps[0].chip), "cpu_thermal");
        snprintf(h->temps[0].sensor, sizeof(h->temps[0].sensor), "temp1");
        h->temps[0].celsius = 47.236;
        snprintf(h->temps[1].chip, sizeof(h->temps[1].chip), "odd\"chip\\x\ny");
        snprintf(h->temps[1].sensor, sizeof(h->temps[1].sensor), "Package id 0");
        h->temps[1].celsius = 51;
        snprintf(h->governor, sizeof(h->governor), "ondemand");
        h->nfreq = 2;
        h->cpu_freq_hz[0] = 1.5e9;
        h->cpu_freq_hz[1] = 6e8;
        h->cpu_max_freq_hz = 1.8e9;
        h->uptime_s = 12345.67;

        f->nwatches = 2;
        snprintf(f->watches[0].name, sizeof(f->watches[0].name), "player");
        f->watches[0].count = 1;
        f->watches[0].pss_bytes = 52428800;
        f->watches[0].cpu_pct = 12.5;
        f->watches[0].threads = 9;
        f->watches[0].oldest_age_s = 3600;
        f->watches[0].first_pss_bytes = 52428800;
        snprintf(f->watches[1].name, sizeof(f->watches[1].name), "chromium");
        f->watches[1].count = 0; /* nothing matches: counts are 0, sizes missing */
        f->watches[1].threads = 0;

        struct fs_frame *root = &f->storage.fs[FS_ROOT], *log = &f->storage.fs[FS_LOG];
        snprintf(root->mount, sizeof(root->mount), "/");
        snprintf(root->device, sizeof(root->device), "/dev/mmcblk0p2");
        snprintf(root->fstype, sizeof(root->fstype), "ext4");
        root->size_bytes = 30719606784.0;
        root->avail_bytes = 23322923008.0;
        root->readonly = 1;
        /* the log directory's: no mounts table entry, filling */
        log->size_bytes = 1e9;
        log->avail_bytes = 5e8;
        log->readonly = 0;
        log->full_in_s = 18000;
        f->storage.errors[0] = 2; /* mmc */
        f->storage.errors[1] = 1; /* ext4 */
        f->storage.errors[2] = f->storage.errors[3] = 0;
        f->storage.errors_new = 1;

        struct rpi_frame *p = &f->rpi;
        p->present = true;
        p->temp_c = 47.2;
        p->volt_core_v = 0.8563;
        p->arm_hz = 1.5e9;
        p->core_hz = 5e8;
        /* v3d_hz missing */
        p->h264_hz = 0;
        p->pixel_hz = 7.5e7;
        p->arm_max_hz = 1.8e9;
        p->throttled = 0x50005; /* under-voltage now; under-voltage and throttled since boot */
        p->throttled_valid = true;
        p->throttle_src = RPI_SRC_GENCMD;
        p->nv3d = 1;
        snprintf(p->v3d[0].queue, sizeof(p->v3d[0].queue), "render");
        p->v3d[0].busy_ratio = 0.25;
        snprintf(p->model, sizeof(p->model), "Raspberry Pi 4 Model B Rev 1.4");

        f->ngpus = 2;
        struct gpu_frame *g = &f->gpus[0];
        g->present = true;
        g->ok = true;
        g->index = 0;
        snprintf(g->name, sizeof(g->name), "NVIDIA RTX PRO 6000 Blackwell");
        snprintf(g->uuid, sizeof(g->uuid), "GPU-aaaa");
        snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "00000000:01:00.0");
        g->temp_c = 64;
        g->temp_max_c = 90;
        g->power_w = 231.5;
        g->power_limit_w = 600;
        g->enforced_limit_w = 600;
        g->energy_j = 123456789.012;
        g->pstate = 2;
        g->gpu_clock_mhz = 2505;
        g->mem_clock_mhz = 13801;
        g->sm_clock_mhz = 2505;
        /* video clock missing */
        g->util_gpu_pct = 87;
        g->util_mem_pct = 40;
        g->vram_used_bytes = 1073741824;
        g->vram_total_bytes = 102641958912.0;
        g->pcie_gen = 5;
        g->pcie_width = 16;
        g->pcie_replay = 0;
        g->throttle_mask = 0x4 | 0x1;
        g->throttle_valid = true;
        g->nfans = 2;
        g->fan_speed_pct[0] = 45;
        g->fan_speed_pct[1] = 104; /* intended speed may exceed 100 */
        g->fan_target_pct[0] = 45;
        /* fan 1 target missing */
        g->ecc_corrected = 3;
        g->ecc_uncorrected = 0;

        g = &f->gpus[1];
        g->present = true;
        g->ok = false; /* fell off the bus: every value missing */
        g->index = 1;
        snprintf(g->name, sizeof(g->name), "NVIDIA RTX PRO 6000 Blackwell");
        snprintf(g->uuid, sizeof(g->uuid), "GPU-bbbb");
        snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "00000000:02:00.0");
        snprintf(g->error, sizeof(g->error), "GPU is lost");

        f->self.samples[VCLOCK_HOST] = 120;
        f->self.samples[VCLOCK_GPU] = 1200;
        f->self.sample_seconds[VCLOCK_HOST] = 0.000012;
        f->self.sample_seconds[VCLOCK_GPU] = 0.0025;
        f->self.missed_deadlines = 1;
        f->self.write_errors = 0;
        f->self.events_dropped = 0;
        f->self.snapshots = 2;
        f->self.started_real_ns = 1764700000500000000LL;
}

/* The counters: x, and the GPU rules' statistics in f. */
static void build_extra(struct counters *x, struct frame *f)
{
        counters_clear(x);
        assert_int_equal(counters_add_xid(x, 0, 62), 0);
        assert_int_equal(counters_add_xid(x, 0, 119), 0);
        assert_int_equal(counters_add_xid(x, 0, 119), 0);
        assert_int_equal(counters_add_xid(x, 1, 79), 0);
        f->gpu_stats[0].anomalies[GPU_ANOM_FAN_SPIKE] = 2;
        f->gpu_stats[0].anomalies[GPU_ANOM_TDP_CHANGE] = 1;
        f->gpu_stats[0].throttle_seconds[0] = 1.5;
        f->gpu_stats[0].throttle_seconds[2] = 1.75;
        f->gpu_stats[0].throttle_seconds[9] = 3; /* UserDefinedClocks: no label */
        f->gpu_stats[1].failed_samples = 7;
        assert_int_equal(counters_set_rule(x, "temp_warn", true), 0);
        assert_int_equal(counters_set_rule(x, "shm_full", false), 0);
}

static char *render(const struct frame *f, const struct counters *x)
{
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, 1 << 20), 0);
        assert_int_equal(metrics_render(&sb, f, x), 0);
        return sb.buf; /* the caller frees */
}

/* True when text holds line as a whole line. */
static bool has_line(const char *text, const char *line)
{
        size_t n = strlen(line);
        for (const char *p = text; (p = strstr(p, line)) != NULL; p++) {
                if ((p == text || p[-1] == '\n') && p[n] == '\n')
                        return true;
        }
        return false;
}

#define assert_line(text, line)                                                                    \
        do {                                                                                       \
                if (!has_line((text), (line)))                                                     \
                        fail_msg("missing line: %s", (line));                                      \
        } while (0)

#define assert_no_line(text, line)                                                                 \
        do {                                                                                       \
                if (has_line((text), (line)))                                                      \
                        fail_msg("unexpected line: %s", (line));                                   \
        } while (0)

/* How many lines start with prefix. */
static unsigned count_prefix(const char *text, const char *prefix)
{
        unsigned n = 0;
        size_t pl = strlen(prefix);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                if (!strncmp(p, prefix, pl))
                        n++;
        }
        return n;
}

static void save_output(const char *text, const char *name)
{
        char path[512];
        const char *dir = getenv("VIGIL_METRICS_OUT");
        snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/out", name);
        FILE *fp = fopen(path, "w");
        if (!fp)
                return; /* not run from the top directory: nothing to lint */
        fputs(text, fp);
        fclose(fp);
}

static void test_host_lines(void **state)
{
        (void)state;
        build_frame(&fr);
        char *t = render(&fr, NULL);
        assert_line(t, "# HELP vigil_cpu_usage_ratio Share of the last host interval the CPU was "
                       "busy, 0-1 (cpu=\"all\": every core).");
        assert_line(t, "# TYPE vigil_cpu_usage_ratio gauge");
        assert_line(t, "vigil_cpu_usage_ratio{cpu=\"all\"} 0.375");
        assert_line(t, "vigil_cpu_usage_ratio{cpu=\"0\"} 0.5");
        assert_int_equal(count_prefix(t, "vigil_cpu_usage_ratio{cpu=\"1\"}"), 0);
        assert_line(t, "vigil_load1 0.52");
        assert_line(t, "vigil_load5 1.25");
        assert_line(t, "vigil_load15 3");
        assert_line(t, "vigil_memory_total_bytes 3981209600");
        assert_line(t, "vigil_memory_available_bytes 2147483648");
        assert_line(t, "vigil_memory_used_bytes 1833725952");
        assert_line(t, "vigil_swap_used_bytes 0");
        assert_line(t, "vigil_shm_size_bytes 1990604800");
        assert_line(t, "vigil_shm_used_bytes 4096");
        assert_int_equal(count_prefix(t, "vigil_shm_available_bytes"), 0);
        assert_int_equal(count_prefix(t, "# HELP vigil_shm_available_bytes"), 0);
        assert_line(t, "vigil_temperature_celsius{chip=\"cpu_thermal\",sensor=\"temp1\"} 47.236");
        assert_line(t, "vigil_temperature_celsius{chip=\"odd\\\"chip\\\\x\\ny\",sensor=\"Package "
                       "id 0\"} 51");
        assert_line(t, "vigil_cpu_frequency_hertz{cpu=\"0\"} 1500000000");
        assert_line(t, "vigil_cpu_frequency_hertz{cpu=\"1\"} 600000000");
        assert_int_equal(count_prefix(t, "vigil_cpu_frequency_hertz{cpu=\"all\"}"), 0);
        assert_line(t, "vigil_cpu_max_frequency_hertz 1800000000");
        assert_line(t, "vigil_cpu_governor_info{governor=\"ondemand\"} 1");
        assert_line(t, "vigil_uptime_seconds 12345.67");
        free(t);
}

/* One vocabulary for the throttled bits: each condition vigil_rpi_throttled names is the
 * rule label (vigil_rule_active) of exactly one Pi rule. */
static void test_pi_conditions_are_rule_names(void **state)
{
        (void)state;
        build_frame(&fr);
        char *t = render(&fr, NULL);
        unsigned named = 0;
        for (unsigned i = 0; i < rpi_nrules; i++) {
                char prefix[128];
                snprintf(prefix, sizeof(prefix),
                         "vigil_rpi_throttled{condition=\"%s\",since=\"now\"}", rpi_rules[i].name);
                named += count_prefix(t, prefix);
        }
        assert_int_equal(count_prefix(t, "vigil_rpi_throttled{"), 8);
        assert_int_equal(named, 4);
        free(t);
}

static void test_watch_and_pi_lines(void **state)
{
        (void)state;
        build_frame(&fr);
        char *t = render(&fr, NULL);
        assert_line(t, "vigil_processes{watch=\"player\"} 1");
        assert_line(t, "vigil_processes{watch=\"chromium\"} 0");
        assert_line(t, "vigil_process_pss_bytes{watch=\"player\"} 52428800");
        assert_int_equal(count_prefix(t, "vigil_process_pss_bytes{watch=\"chromium\"}"), 0);
        assert_line(t, "vigil_process_cpu_usage_ratio{watch=\"player\"} 0.125");
        assert_line(t, "vigil_process_threads{watch=\"chromium\"} 0");
        assert_line(t, "vigil_process_oldest_age_seconds{watch=\"player\"} 3600");

        assert_line(t, "vigil_rpi_temperature_celsius 47.2");
        assert_line(t, "vigil_rpi_core_voltage_volts 0.8563");
        assert_line(t, "vigil_rpi_clock_hertz{clock=\"arm\"} 1500000000");
        assert_line(t, "vigil_rpi_clock_hertz{clock=\"h264\"} 0");
        assert_line(t, "vigil_rpi_clock_hertz{clock=\"pixel\"} 75000000");
        assert_int_equal(count_prefix(t, "vigil_rpi_clock_hertz{clock=\"v3d\"}"), 0);
        assert_line(t, "vigil_rpi_clock_max_hertz{clock=\"arm\"} 1800000000");
        assert_line(t, "vigil_rpi_throttled{condition=\"under_voltage\",since=\"now\"} 1");
        assert_line(t, "vigil_rpi_throttled{condition=\"arm_frequency_capped\",since=\"now\"} 0");
        assert_line(t, "vigil_rpi_throttled{condition=\"throttled\",since=\"now\"} 1");
        assert_line(t, "vigil_rpi_throttled{condition=\"soft_temperature_limit\",since=\"now\"} 0");
        assert_line(t, "vigil_rpi_throttled{condition=\"under_voltage\",since=\"boot\"} 1");
        assert_line(t, "vigil_rpi_throttled{condition=\"arm_frequency_capped\",since=\"boot\"} 0");
        assert_line(t, "vigil_rpi_throttled{condition=\"throttled\",since=\"boot\"} 1");
        assert_line(t,
                    "vigil_rpi_throttled{condition=\"soft_temperature_limit\",since=\"boot\"} 0");
        assert_int_equal(count_prefix(t, "vigil_rpi_throttled{"), 8);
        assert_line(t, "vigil_rpi_v3d_busy_ratio{queue=\"render\"} 0.25");
        assert_line(t, "vigil_rpi_info{model=\"Raspberry Pi 4 Model B Rev 1.4\"} 1");

        /* The word by property tag: its since-boot bits are not reliable, left out. */
        fr.rpi.throttle_src = RPI_SRC_MAILBOX;
        free(t);
        t = render(&fr, NULL);
        assert_line(t, "vigil_rpi_throttled{condition=\"throttled\",since=\"now\"} 1");
        assert_int_equal(count_prefix(t, "vigil_rpi_throttled{"), 4);
        /* No word, the rpi_volt alarm alone: under-voltage now, nothing else. */
        fr.rpi.throttled = 0;
        fr.rpi.throttled_valid = false;
        fr.rpi.throttle_src = RPI_SRC_NONE;
        fr.rpi.undervolt_alarm = 1;
        free(t);
        t = render(&fr, NULL);
        assert_line(t, "vigil_rpi_throttled{condition=\"under_voltage\",since=\"now\"} 1");
        assert_int_equal(count_prefix(t, "vigil_rpi_throttled{"), 1);

        /* Not a Pi: no Pi family at all. */
        fr.rpi.present = false;
        free(t);
        t = render(&fr, NULL);
        assert_null(strstr(t, "vigil_rpi_"));
        free(t);
}

static void test_storage_lines(void **state)
{
        (void)state;
        build_frame(&fr);
        char *t = render(&fr, NULL);
        const char *root =
            "{fs=\"root\",mountpoint=\"/\",device=\"/dev/mmcblk0p2\",fstype=\"ext4\"}";
        char line[256];
        snprintf(line, sizeof(line), "vigil_filesystem_size_bytes%s 30719606784", root);
        assert_line(t, line);
        snprintf(line, sizeof(line), "vigil_filesystem_avail_bytes%s 23322923008", root);
        assert_line(t, line);
        snprintf(line, sizeof(line), "vigil_filesystem_readonly%s 1", root);
        assert_line(t, line);
        assert_line(t, "vigil_filesystem_readonly{fs=\"log\"} 0");
        assert_line(t, "vigil_filesystem_full_in_seconds{fs=\"log\"} 18000");
        assert_int_equal(count_prefix(t, "vigil_filesystem_full_in_seconds{fs=\"root\""), 0);
        assert_line(t, "# TYPE vigil_storage_kernel_errors_total counter");
        assert_line(t, "vigil_storage_kernel_errors_total{kind=\"mmc\"} 2");
        assert_line(t, "vigil_storage_kernel_errors_total{kind=\"ext4\"} 1");
        assert_line(t, "vigil_storage_kernel_errors_total{kind=\"io\"} 0");
        free(t);
        /* An escaped mount point; unreadable kernel log: no error family. */
        snprintf(fr.storage.fs[FS_ROOT].mount, sizeof(fr.storage.fs[FS_ROOT].mount), "/a\"b");
        for (unsigned k = 0; k < STORAGE_KINDS; k++)
                fr.storage.errors[k] = NAN;
        t = render(&fr, NULL);
        assert_non_null(strstr(t, "mountpoint=\"/a\\\"b\""));
        assert_null(strstr(t, "vigil_storage_kernel_errors_total"));
        free(t);
}

static void test_gpu_lines(void **state)
{
        (void)state;
        build_frame(&fr);
        char *t = render(&fr, NULL);
        const char *g0 = "{gpu=\"0\",uuid=\"GPU-aaaa\"}";
        char line[256];
        assert_line(t, "vigil_gpu_up{gpu=\"0\",uuid=\"GPU-aaaa\"} 1");
        assert_line(t, "vigil_gpu_up{gpu=\"1\",uuid=\"GPU-bbbb\"} 0");
        assert_line(t, "vigil_gpu_info{gpu=\"0\",uuid=\"GPU-aaaa\",name=\"NVIDIA RTX PRO 6000 "
                       "Blackwell\",pci_bus_id=\"00000000:01:00.0\"} 1");
        assert_line(t, "vigil_gpu_info{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA RTX PRO 6000 "
                       "Blackwell\",pci_bus_id=\"00000000:02:00.0\"} 1");
        snprintf(line, sizeof(line), "vigil_gpu_power_watts%s 231.5", g0);
        assert_line(t, line);
        snprintf(line, sizeof(line), "vigil_gpu_energy_joules_total%s 123456789.012", g0);
        assert_line(t, line);
        assert_line(t, "# TYPE vigil_gpu_energy_joules_total counter");
        assert_line(t, "vigil_gpu_pstate{gpu=\"0\",uuid=\"GPU-aaaa\"} 2");
        assert_line(t, "vigil_gpu_clock_hertz{gpu=\"0\",uuid=\"GPU-aaaa\",clock=\"graphics\"} "
                       "2505000000");
        assert_line(t, "vigil_gpu_clock_hertz{gpu=\"0\",uuid=\"GPU-aaaa\",clock=\"memory\"} "
                       "13801000000");
        assert_int_equal(count_prefix(t, "vigil_gpu_clock_hertz{gpu=\"0\",uuid=\"GPU-aaaa\","
                                         "clock=\"video\"}"),
                         0);
        assert_line(t, "vigil_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",engine=\"gpu\"} "
                       "0.87");
        assert_line(t, "vigil_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",engine=\"memory\"} "
                       "0.4");
        assert_line(t, "vigil_gpu_memory_total_bytes{gpu=\"0\",uuid=\"GPU-aaaa\"} 102641958912");
        assert_line(t, "vigil_gpu_pcie_replay_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\"} 0");
        assert_line(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                       "\"gpu_idle\"} 1");
        assert_line(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                       "\"sw_power_cap\"} 1");
        assert_line(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                       "\"hw_slowdown\"} 0");
        assert_line(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                       "\"display_clock_setting\"} 0");
        assert_int_equal(count_prefix(t, "vigil_gpu_clocks_event_reason{"), 9);
        assert_line(t, "vigil_gpu_fan_speed_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",fan=\"0\"} 0.45");
        assert_line(t, "vigil_gpu_fan_speed_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",fan=\"1\"} 1.04");
        assert_line(t, "vigil_gpu_fan_target_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",fan=\"0\"} 0.45");
        assert_int_equal(count_prefix(t, "vigil_gpu_fan_target_ratio{"), 1);
        assert_line(t, "vigil_gpu_ecc_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\",type=\"corrected\"} "
                       "3");
        /* The failing GPU has its up and info lines and nothing else. */
        assert_int_equal(count_prefix(t, "vigil_gpu_power_watts{gpu=\"1\""), 0);
        assert_null(strstr(t, "remapped"));
        /* No extra counters without the extra part. */
        assert_null(strstr(t, "xid"));
        free(t);
        /* A 63-bit mask: every reason 1 (a double made it bit 63 alone, every reason 0);
         * the reserved memory and the recovery action when read. */
        fr.gpus[0].throttle_mask = 0x7fffffffffffffffULL;
        fr.gpus[0].vram_reserved_bytes = 536870912;
        fr.gpus[0].recovery_valid = true;
        fr.gpus[0].recovery_action = 2;
        t = render(&fr, NULL);
        assert_int_equal(count_prefix(t, "vigil_gpu_clocks_event_reason{gpu=\"0\""), 9);
        assert_null(strstr(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                              "\"gpu_idle\"} 0"));
        assert_line(t, "vigil_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-aaaa\",reason="
                       "\"display_clock_setting\"} 1");
        assert_line(t, "vigil_gpu_memory_reserved_bytes{gpu=\"0\",uuid=\"GPU-aaaa\"} 536870912");
        assert_line(t, "vigil_gpu_recovery_action{gpu=\"0\",uuid=\"GPU-aaaa\"} 2");
        assert_int_equal(count_prefix(t, "vigil_gpu_recovery_action{"), 1);
        free(t);
}

static void test_extra_and_self(void **state)
{
        (void)state;
        build_frame(&fr);
        build_extra(&ex, &fr);
        /* The run before this one: the machine rebooted under it (core/runstate.h). */
        ex.runs_known = true;
        ex.previous_end = 3;
        ex.unclean_ends[0] = 2;
        ex.unclean_ends[1] = 1;
        char *t = render(&fr, &ex);
        assert_line(t, "# TYPE vigil_unclean_ends_total counter");
        assert_line(t, "vigil_unclean_ends_total{kind=\"killed\"} 2");
        assert_line(t, "vigil_unclean_ends_total{kind=\"reboot\"} 1");
        assert_line(t, "vigil_unclean_ends_total{kind=\"unknown\"} 0");
        assert_line(t, "vigil_previous_run_end{kind=\"reboot\"} 1");
        assert_int_equal(count_prefix(t, "vigil_previous_run_end{"), 1);
        assert_line(t, "# TYPE vigil_gpu_xid_errors_total counter");
        assert_line(t, "vigil_gpu_xid_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\",xid=\"62\"} 1");
        assert_line(t, "vigil_gpu_xid_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\",xid=\"119\"} 2");
        assert_line(t, "vigil_gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-bbbb\",xid=\"79\"} 1");
        assert_line(t,
                    "vigil_gpu_anomalies_total{gpu=\"0\",uuid=\"GPU-aaaa\",type=\"fan_spike\"} 2");
        assert_line(t,
                    "vigil_gpu_anomalies_total{gpu=\"0\",uuid=\"GPU-aaaa\",type=\"tdp_change\"} 1");
        /* One sample per counted kind, none for kinds never counted. */
        assert_int_equal(count_prefix(t, "vigil_gpu_anomalies_total{"), 2);
        /* The nine reasons nvml.h names, per GPU; the reference's tenth has no label. */
        assert_int_equal(count_prefix(t, "vigil_gpu_clocks_event_reason_seconds_total{"), 18);
        assert_line(t, "vigil_gpu_clocks_event_reason_seconds_total{gpu=\"0\",uuid=\"GPU-aaaa\","
                       "reason=\"gpu_idle\"} 1.5");
        assert_line(t, "vigil_gpu_clocks_event_reason_seconds_total{gpu=\"0\",uuid=\"GPU-aaaa\","
                       "reason=\"sw_power_cap\"} 1.75");
        assert_line(t, "vigil_gpu_clocks_event_reason_seconds_total{gpu=\"1\",uuid=\"GPU-bbbb\","
                       "reason=\"hw_slowdown\"} 0");
        assert_line(t, "vigil_gpu_nvml_failures_total{gpu=\"1\",uuid=\"GPU-bbbb\"} 7");
        assert_line(t, "vigil_rule_active{rule=\"temp_warn\"} 1");
        assert_line(t, "vigil_rule_active{rule=\"shm_full\"} 0");
        assert_line(t, "vigil_rule_fired_total{rule=\"temp_warn\"} 1");
        assert_line(t, "vigil_rule_fired_total{rule=\"shm_full\"} 0");

        assert_line(t, "vigil_samples_total{source=\"host\"} 120");
        assert_line(t, "vigil_samples_total{source=\"gpu\"} 1200");
        assert_line(t, "vigil_samples_total{source=\"pss\"} 0");
        assert_line(t, "vigil_sample_duration_seconds{source=\"host\"} 0.000012");
        assert_line(t, "vigil_sample_duration_seconds{source=\"gpu\"} 0.0025");
        assert_int_equal(count_prefix(t, "vigil_sample_duration_seconds{source=\"pss\"}"), 0);
        assert_line(t, "vigil_missed_deadlines_total 1");
        assert_line(t, "vigil_write_errors_total 0");
        assert_line(t, "vigil_events_dropped_total 0");
        assert_line(t, "vigil_snapshots_total 2");
        assert_line(t, "vigil_start_time_seconds 1764700000.5");
        assert_line(t, "vigil_build_info{version=\"" VIGIL_VERSION "\"} 1");
        save_output(t, "metrics_render.prom");
        free(t);
}

/* Every family: one # HELP, then its # TYPE, then only its own samples, contiguous. */
static void test_structure(void **state)
{
        (void)state;
        build_frame(&fr);
        build_extra(&ex, &fr);
        char *t = render(&fr, &ex);
        char seen[200][80];
        unsigned nseen = 0;
        char fam[80] = "";
        bool expect_type = false;
        for (char *line = t; *line;) {
                char *nl = strchr(line, '\n');
                assert_non_null(nl); /* every line ends with a newline */
                *nl = '\0';
                if (!strncmp(line, "# HELP ", 7)) {
                        assert_false(expect_type);
                        const char *name = line + 7;
                        size_t n = strcspn(name, " ");
                        assert_true(n < sizeof(fam));
                        snprintf(fam, sizeof(fam), "%.*s", (int)n, name);
                        for (unsigned i = 0; i < nseen; i++)
                                assert_string_not_equal(seen[i], fam);
                        assert_true(nseen < 200);
                        snprintf(seen[nseen++], sizeof(seen[0]), "%s", fam);
                        expect_type = true;
                } else if (!strncmp(line, "# TYPE ", 7)) {
                        assert_true(expect_type);
                        size_t n = strlen(fam);
                        assert_int_equal(strncmp(line + 7, fam, n), 0);
                        assert_true(!strcmp(line + 7 + n, " gauge") ||
                                    !strcmp(line + 7 + n, " counter"));
                        if (!strcmp(line + 7 + n, " counter"))
                                assert_non_null(strstr(fam, "_total"));
                        expect_type = false;
                } else {
                        assert_false(expect_type);
                        size_t n = strlen(fam);
                        assert_true(n > 0);
                        assert_int_equal(strncmp(line, fam, n), 0);
                        assert_true(line[n] == '{' || line[n] == ' ');
                        assert_null(strstr(line, "NaN"));
                }
                line = nl + 1;
        }
        assert_true(nseen > 60);
        free(t);
}

/* A frame with nothing sampled: only the families that always have a value. */
static void test_empty_frame_exact(void **state)
{
        (void)state;
        frame_clear(&fr);
        char *t = render(&fr, NULL);
        assert_string_equal(
            t, "# HELP vigil_samples_total Samples taken, by cadence.\n"
               "# TYPE vigil_samples_total counter\n"
               "vigil_samples_total{source=\"host\"} 0\n"
               "vigil_samples_total{source=\"gpu\"} 0\n"
               "vigil_samples_total{source=\"pss\"} 0\n"
               "# HELP vigil_missed_deadlines_total Scheduler deadlines missed.\n"
               "# TYPE vigil_missed_deadlines_total counter\n"
               "vigil_missed_deadlines_total 0\n"
               "# HELP vigil_write_errors_total Failed writes to the log directory.\n"
               "# TYPE vigil_write_errors_total counter\n"
               "vigil_write_errors_total 0\n"
               "# HELP vigil_sync_errors_total Failed syncs and write-backs of the log "
               "directory's files (each retried the next round).\n"
               "# TYPE vigil_sync_errors_total counter\n"
               "vigil_sync_errors_total 0\n"
               "# HELP vigil_events_dropped_total Events lost because the queue was full.\n"
               "# TYPE vigil_events_dropped_total counter\n"
               "vigil_events_dropped_total 0\n"
               "# HELP vigil_snapshots_total Diagnostic snapshots written.\n"
               "# TYPE vigil_snapshots_total counter\n"
               "vigil_snapshots_total 0\n"
               "# HELP vigil_build_info vigil's version.\n"
               "# TYPE vigil_build_info gauge\n"
               "vigil_build_info{version=\"" VIGIL_VERSION "\"} 1\n");
        free(t);
}

static void test_overflow(void **state)
{
        (void)state;
        char small[256];
        struct strbuf sb;
        build_frame(&fr);
        sb_init_fixed(&sb, small, sizeof(small));
        assert_int_equal(metrics_render(&sb, &fr, NULL), -ENOBUFS);
}

static void check_fmt(double v, const char *want)
{
        char out[48];
        size_t n = metrics_fmt_value(out, sizeof(out), v);
        assert_string_equal(out, want);
        assert_int_equal(n, strlen(want));
}

static void test_fmt_value(void **state)
{
        (void)state;
        check_fmt(0, "0");
        check_fmt(-0.0, "0");
        check_fmt(42, "42");
        check_fmt(-7, "-7");
        check_fmt(3981209600.0, "3981209600");
        check_fmt(0.5, "0.5");
        check_fmt(0.1 + 0.2, "0.30000000000000004");
        check_fmt(1.0 / 3, "0.3333333333333333");
        check_fmt(-47.25, "-47.25");
        check_fmt(0.000012, "0.000012");
        check_fmt(1e-7, "1e-07");
        check_fmt(1e15, "1e+15");
        check_fmt(1e20, "1e+20");
        check_fmt(123456789.012, "123456789.012");
        check_fmt(INFINITY, "+Inf");
        check_fmt(-INFINITY, "-Inf");
        check_fmt(NAN, "NaN");
        /* Every value reads back exactly. */
        double vals[] = {0.87, 1.04, 0.0025, 2.0 / 7, 1764700000.5, 6.02214076e23, 5e-324};
        for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
                char out[48];
                metrics_fmt_value(out, sizeof(out), vals[i]);
                assert_true(strtod(out, NULL) == vals[i]);
        }
        char tiny[3];
        assert_int_equal(metrics_fmt_value(tiny, sizeof(tiny), 12345), 0);
}

static void test_label_escaping(void **state)
{
        (void)state;
        char buf[128];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        metrics_put_label_value(&sb, "a\\b\"c\nd\te\x01 \xc3\xa9 \xff\xe2\x82");
        assert_string_equal(buf, "a\\\\b\\\"c\\nd?e? \xc3\xa9 ???");
        sb_reset(&sb);
        metrics_put_label_value(&sb, "\xed\xa0\x80|\xf0\x9f\x98\x80|\xc0\xaf");
        assert_string_equal(buf, "???|\xf0\x9f\x98\x80|??");
}

/* The kernel log's GPU errors: a GPU's device with its labels, every kind; other
 * devices by address; past the table "other"; the skipped records. After the push's
 * families (the order of metrics/metrics_counters.c's table). */
static void test_kernel_log_families(void **state)
{
        (void)state;
        build_frame(&fr);
        counters_clear(&ex);
        assert_int_equal(counters_add_klog(&ex, "0000:01:00.0", 0, COUNTERS_KLOG_KINDS), 0);
        assert_int_equal(counters_add_klog(&ex, "0000:01:00.0", 0, 3), 0);  /* fallen_off_bus */
        assert_int_equal(counters_add_klog(&ex, "0000:c6:00.0", -1, 2), 0); /* sxid */
        assert_int_equal(counters_add_klog(&ex, "", -1, 5), 0);             /* gsp_timeout */
        assert_int_equal(counters_add_klog(&ex, "", -1, COUNTERS_KLOG_KINDS + 1), -EINVAL);
        for (unsigned i = 0; i < COUNTERS_MAX_KLOG_DEV; i++) {
                char pci[16];
                snprintf(pci, sizeof(pci), "0000:%02x:00.0", 0x40 + i);
                assert_int_equal(counters_add_klog(&ex, pci, -1, 8), 0); /* aer_fatal */
        }
        assert_int_equal(ex.klog_other[8], 3); /* the table held 3 already */
        ex.klog_skipped[KLOG_SKIP_MALFORMED] = 4;
        ex.push.on = true;
        char *t = render(&fr, &ex);
        assert_no_line(t, "# TYPE vigil_gpu_kernel_errors_total counter"); /* klog_on unset */
        free(t);
        ex.klog_on = true;
        t = render(&fr, &ex);
        assert_line(t, "# TYPE vigil_gpu_kernel_errors_total counter");
        assert_line(t, "vigil_gpu_kernel_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\","
                       "pci=\"0000:01:00.0\",kind=\"fallen_off_bus\"} 1");
        assert_line(t, "vigil_gpu_kernel_errors_total{gpu=\"0\",uuid=\"GPU-aaaa\","
                       "pci=\"0000:01:00.0\",kind=\"aer_fatal\"} 0");
        assert_line(t, "vigil_gpu_kernel_errors_total{pci=\"0000:c6:00.0\",kind=\"sxid\"} 1");
        assert_line(t, "vigil_gpu_kernel_errors_total{pci=\"unknown\",kind=\"gsp_timeout\"} 1");
        assert_line(t, "vigil_gpu_kernel_errors_total{pci=\"other\",kind=\"aer_fatal\"} 3");
        assert_int_equal(count_prefix(t, "vigil_gpu_kernel_errors_total{"),
                         COUNTERS_MAX_KLOG_DEV * COUNTERS_KLOG_KINDS + 1);
        assert_line(t, "vigil_kernel_log_records_skipped_total{reason=\"malformed\"} 4");
        assert_line(t, "vigil_kernel_log_records_skipped_total{reason=\"overwritten\"} 0");
        assert_true(strstr(t, "vigil_remote_write_queue_bytes") <
                    strstr(t, "vigil_gpu_kernel_errors_total"));
        free(t);
}

static void test_extra_bounds(void **state)
{
        (void)state;
        counters_clear(&ex);
        for (uint32_t x = 0; x < COUNTERS_MAX_XIDS; x++)
                assert_int_equal(counters_add_xid(&ex, 3, 1000 + x), 0);
        assert_int_equal(counters_add_xid(&ex, 3, 79), 0);
        assert_int_equal(counters_add_xid(&ex, 3, 1000), 0);
        assert_int_equal(ex.gpus[3].nxids, COUNTERS_MAX_XIDS);
        assert_int_equal(ex.gpus[3].xids_other, 1);
        assert_int_equal(ex.gpus[3].xids[0].count, 2);
        assert_int_equal(counters_add_xid(&ex, VIGIL_MAX_GPUS, 79), -EINVAL);

        char name[COUNTERS_NAME_LEN + 1];
        memset(name, 'a', COUNTERS_NAME_LEN);
        name[COUNTERS_NAME_LEN] = '\0';
        assert_int_equal(counters_set_rule(&ex, name, true), -EINVAL);
        assert_int_equal(counters_set_rule(&ex, "", true), -EINVAL);
        assert_int_equal(counters_add_event(&ex, 0, GPU_EV_COUNT), -EINVAL);
        assert_int_equal(counters_add_event(&ex, VIGIL_MAX_GPUS, GPU_EV_XID), -EINVAL);

        assert_int_equal(counters_set_rule(&ex, "r", true), 0);
        assert_int_equal(counters_set_rule(&ex, "r", true), 0);
        assert_int_equal(counters_set_rule(&ex, "r", false), 0);
        assert_int_equal(counters_set_rule(&ex, "r", true), 0);
        assert_int_equal(ex.rules[0].fired, 2);
        assert_true(ex.rules[0].active);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_host_lines),
            cmocka_unit_test(test_kernel_log_families),
            cmocka_unit_test(test_watch_and_pi_lines),
            cmocka_unit_test(test_pi_conditions_are_rule_names),
            cmocka_unit_test(test_gpu_lines),
            cmocka_unit_test(test_extra_and_self),
            cmocka_unit_test(test_storage_lines),
            cmocka_unit_test(test_structure),
            cmocka_unit_test(test_empty_frame_exact),
            cmocka_unit_test(test_overflow),
            cmocka_unit_test(test_fmt_value),
            cmocka_unit_test(test_label_escaping),
            cmocka_unit_test(test_extra_bounds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
