/* The Prometheus text exposition of a frame. See metrics.h.
 *
 *   # HELP vigil_gpu_power_watts Power draw of the GPU.
 *   # TYPE vigil_gpu_power_watts gauge
 *   vigil_gpu_power_watts{gpu="0",uuid="GPU-5d6c..."} 231.5
 *
 * Families are written family by family (all GPUs of one family together), as the
 * format requires. Most families come from tables of field offsets, so adding one is a
 * table line. Rendering allocates nothing: it appends to the caller's buffer. */
#include "sink/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vigil.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "unknown"
#endif

#define GAUGE   "gauge"
#define COUNTER "counter"

const char *const metrics_reason_names[METRICS_NREASONS] = {
    "gpu_idle",
    "applications_clocks_setting",
    "sw_power_cap",
    "hw_slowdown",
    "sync_boost",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "display_clock_setting",
};

/* The family being written: its header goes out with its first sample. */
struct render {
        struct strbuf *sb;
        const char *name;
        const char *type;
        const char *help;
        bool header_done;
};

/* A family of up to 5 series per object, each a double field times scale. With one
 * series key is NULL; otherwise series i carries the label key="vals[i]". */
struct fam_def {
        const char *name;
        const char *type;
        const char *help;
        const char *key;
        unsigned n;
        const char *vals[5];
        size_t off[5];
        double scale;
};

#define HOFF(f) offsetof(struct host_frame, f)
#define WOFF(f) offsetof(struct watch_frame, f)
#define ROFF(f) offsetof(struct rpi_frame, f)
#define GOFF(f) offsetof(struct gpu_frame, f)

/* ---- values and labels ---- */

static size_t put_u64(char *out, size_t cap, uint64_t u)
{
        char tmp[24];
        size_t n = 0;
        do {
                tmp[n++] = (char)('0' + u % 10);
                u /= 10;
        } while (u);
        if (n >= cap)
                return 0;
        for (size_t i = 0; i < n; i++)
                out[i] = tmp[n - 1 - i];
        out[n] = '\0';
        return n;
}

/* Fixed notation with the fewest decimals that read back to v (|v| in [1e-5, 1e15)).
 * n / 10^d is one correctly rounded division, which is what reading "n e-d" gives
 * when n < 2^53, so the test is exact. 0 when no such form exists. */
static size_t fmt_fixed(char *out, size_t cap, double v)
{
        static const double p10[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                     1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
        double a = fabs(v);
        if (!(a >= 1e-5 && a < 1e15))
                return 0;
        for (unsigned d = 1; d < sizeof(p10) / sizeof(p10[0]); d++) {
                double s = round(a * p10[d]);
                if (s >= 9007199254740992.0)
                        return 0;
                if (s / p10[d] != a)
                        continue;
                char digits[24];
                size_t nd = put_u64(digits, sizeof(digits), (uint64_t)s);
                size_t lead = nd <= d ? d + 1 - nd : 0; /* zeros before the digits */
                size_t len = (v < 0) + lead + nd + 1;
                if (len + 1 > cap)
                        return 0;
                char *p = out;
                if (v < 0)
                        *p++ = '-';
                for (size_t i = 0; i < lead + nd; i++) {
                        if (i == lead + nd - d)
                                *p++ = '.';
                        *p++ = i < lead ? '0' : digits[i - lead];
                }
                *p = '\0';
                return (size_t)(p - out);
        }
        return 0;
}

size_t metrics_fmt_value(char *out, size_t cap, double v)
{
        if (cap == 0)
                return 0;
        const char *word = isnan(v) ? "NaN" : isinf(v) ? (v > 0 ? "+Inf" : "-Inf") : NULL;
        if (word) {
                int n = snprintf(out, cap, "%s", word);
                return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
        }
        if (v == trunc(v) && fabs(v) < 1e15) {
                if (v >= 0)
                        return put_u64(out, cap, (uint64_t)v);
                if (cap < 2)
                        return 0;
                out[0] = '-';
                size_t n = put_u64(out + 1, cap - 1, (uint64_t)-v);
                return n ? n + 1 : 0;
        }
        size_t n = fmt_fixed(out, cap, v);
        if (n)
                return n;
        /* Very large, very small, or 17 significant digits: the general form. */
        int m = snprintf(out, cap, "%.15g", v);
        if (m > 0 && (size_t)m < cap && strtod(out, NULL) == v)
                return (size_t)m;
        m = snprintf(out, cap, "%.17g", v);
        return m < 0 || (size_t)m >= cap ? 0 : (size_t)m;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static unsigned utf8_len(const unsigned char *s)
{
        unsigned n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
        if (n == 0 || s[0] > 0xf4)
                return 0;
        for (unsigned i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        }
        /* Overlong 3/4-byte forms, surrogates and code points past U+10FFFF. */
        if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
            (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
                return 0;
        return n;
}

void metrics_put_label_value(struct strbuf *out, const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
                const unsigned char *run = p;
                while (*p >= 0x20 && *p < 0x7f && *p != '\\' && *p != '"')
                        p++;
                sb_put(out, (const char *)run, (size_t)(p - run));
                if (!*p)
                        break;
                if (*p == '\\' || *p == '"' || *p == '\n') {
                        sb_putc(out, '\\');
                        sb_putc(out, *p == '\n' ? 'n' : (char)*p);
                        p++;
                } else if (*p >= 0x80 && utf8_len(p)) {
                        unsigned n = utf8_len(p);
                        sb_put(out, (const char *)p, n);
                        p += n;
                } else {
                        sb_putc(out, '?');
                        p++;
                }
        }
}

/* ---- samples ---- */

static void fam_begin(struct render *r, const char *name, const char *type, const char *help)
{
        r->name = name;
        r->type = type;
        r->help = help;
        r->header_done = false;
}

/* One sample of the current family: name{base,key="val"} v. base is a pre-escaped
 * label list (or NULL); key/val an optional label with a raw value. NAN is skipped. */
static void sample(struct render *r, const char *base, const char *key, const char *val, double v)
{
        struct strbuf *sb = r->sb;
        char num[40];
        if (isnan(v))
                return;
        if (!r->header_done) {
                sb_puts(sb, "# HELP ");
                sb_puts(sb, r->name);
                sb_putc(sb, ' ');
                sb_puts(sb, r->help);
                sb_puts(sb, "\n# TYPE ");
                sb_puts(sb, r->name);
                sb_putc(sb, ' ');
                sb_puts(sb, r->type);
                sb_putc(sb, '\n');
                r->header_done = true;
        }
        sb_puts(sb, r->name);
        bool has_base = base && base[0];
        if (has_base || key) {
                sb_putc(sb, '{');
                if (has_base)
                        sb_puts(sb, base);
                if (has_base && key)
                        sb_putc(sb, ',');
                if (key) {
                        sb_puts(sb, key);
                        sb_puts(sb, "=\"");
                        metrics_put_label_value(sb, val);
                        sb_putc(sb, '"');
                }
                sb_putc(sb, '}');
        }
        sb_putc(sb, ' ');
        sb_put(sb, num, metrics_fmt_value(num, sizeof(num), v));
        sb_putc(sb, '\n');
}

static double field_at(const void *obj, size_t off)
{
        double v;
        memcpy(&v, (const char *)obj + off, sizeof(v));
        return v;
}

/* The series of def for one object (a host, watch, Pi or GPU part of the frame). */
static void def_samples(struct render *r, const struct fam_def *def, const void *obj,
                        const char *base)
{
        for (unsigned i = 0; i < def->n; i++)
                sample(r, base, def->key, def->vals[i], field_at(obj, def->off[i]) * def->scale);
}

/* Each family of defs over count objects of the given stride, family by family. */
static void render_defs(struct render *r, const struct fam_def *defs, size_t ndefs,
                        const void *objs, size_t stride, unsigned count, const char *const *bases)
{
        for (size_t d = 0; d < ndefs; d++) {
                fam_begin(r, defs[d].name, defs[d].type, defs[d].help);
                for (unsigned i = 0; i < count; i++) {
                        if (bases && !bases[i])
                                continue;
                        def_samples(r, &defs[d], (const char *)objs + i * stride,
                                    bases ? bases[i] : NULL);
                }
        }
}

/* ---- host ---- */

static const struct fam_def host_defs[] = {
    {"vigil_load1", GAUGE, "1-minute load average.", NULL, 1, {0}, {HOFF(load1)}, 1},
    {"vigil_load5", GAUGE, "5-minute load average.", NULL, 1, {0}, {HOFF(load5)}, 1},
    {"vigil_load15", GAUGE, "15-minute load average.", NULL, 1, {0}, {HOFF(load15)}, 1},
    {"vigil_memory_total_bytes",
     GAUGE,
     "Total usable memory (MemTotal).",
     NULL,
     1,
     {0},
     {HOFF(mem_total_bytes)},
     1},
    {"vigil_memory_available_bytes",
     GAUGE,
     "Memory available for new work (MemAvailable).",
     NULL,
     1,
     {0},
     {HOFF(mem_avail_bytes)},
     1},
    {"vigil_memory_used_bytes",
     GAUGE,
     "Memory in use: total minus available.",
     NULL,
     1,
     {0},
     {HOFF(mem_used_bytes)},
     1},
    {"vigil_swap_total_bytes",
     GAUGE,
     "Total swap space.",
     NULL,
     1,
     {0},
     {HOFF(swap_total_bytes)},
     1},
    {"vigil_swap_free_bytes",
     GAUGE,
     "Unused swap space.",
     NULL,
     1,
     {0},
     {HOFF(swap_free_bytes)},
     1},
    {"vigil_shm_size_bytes",
     GAUGE,
     "Size of the /dev/shm file system.",
     NULL,
     1,
     {0},
     {HOFF(shm_total_bytes)},
     1},
    {"vigil_shm_used_bytes",
     GAUGE,
     "Space used in /dev/shm.",
     NULL,
     1,
     {0},
     {HOFF(shm_used_bytes)},
     1},
    {"vigil_shm_available_bytes",
     GAUGE,
     "Space available in /dev/shm.",
     NULL,
     1,
     {0},
     {HOFF(shm_avail_bytes)},
     1},
    {"vigil_cpu_max_frequency_hertz",
     GAUGE,
     "Highest frequency the kernel may request (cpu0).",
     NULL,
     1,
     {0},
     {HOFF(cpu_max_freq_hz)},
     1},
    {"vigil_uptime_seconds",
     GAUGE,
     "Time since the system booted.",
     NULL,
     1,
     {0},
     {HOFF(uptime_s)},
     1},
};

static void render_cpus(struct render *r, const char *name, const char *help, const double *v,
                        unsigned n, double scale, double all)
{
        char idx[12];
        fam_begin(r, name, GAUGE, help);
        sample(r, NULL, "cpu", "all", all * scale);
        if (n > VIGIL_MAX_CPUS)
                n = VIGIL_MAX_CPUS;
        for (unsigned i = 0; i < n; i++) {
                put_u64(idx, sizeof(idx), i);
                sample(r, NULL, "cpu", idx, v[i] * scale);
        }
}

static void render_host(struct render *r, const struct host_frame *h)
{
        render_cpus(
            r, "vigil_cpu_usage_ratio",
            "Share of the last host interval the CPU was busy, 0-1 (cpu=\"all\": every core).",
            h->cpu_pct, h->ncpu, 0.01, h->cpu_total_pct);
        render_defs(r, host_defs, sizeof(host_defs) / sizeof(host_defs[0]), h, 0, 1, NULL);
        fam_begin(r, "vigil_swap_used_bytes", GAUGE, "Swap space in use: total minus free.");
        sample(r, NULL, NULL, NULL, h->swap_total_bytes - h->swap_free_bytes);
        render_cpus(r, "vigil_cpu_frequency_hertz",
                    "Frequency the kernel requests for the core (scaling_cur_freq).",
                    h->cpu_freq_hz, h->nfreq, 1, NAN);

        fam_begin(r, "vigil_temperature_celsius", GAUGE,
                  "Temperature of a hwmon sensor or thermal zone.");
        unsigned nt = h->ntemps < VIGIL_MAX_TEMPS ? h->ntemps : VIGIL_MAX_TEMPS;
        for (unsigned i = 0; i < nt; i++) {
                char lab[200];
                struct strbuf lb;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, "chip=\"");
                metrics_put_label_value(&lb, h->temps[i].chip);
                sb_puts(&lb, "\"");
                if (!lb.overflow)
                        sample(r, lab, "sensor", h->temps[i].sensor, h->temps[i].celsius);
        }

        fam_begin(r, "vigil_cpu_governor_info", GAUGE, "The cpufreq governor of cpu0.");
        if (h->governor[0])
                sample(r, NULL, "governor", h->governor, 1);
}

/* ---- process watches ---- */

static const struct fam_def watch_defs[] = {
    {"vigil_process_count", GAUGE, "Processes matching the watch.", NULL, 1, {0}, {WOFF(count)}, 1},
    {"vigil_process_pss_bytes",
     GAUGE,
     "Total proportional set size of the matching processes.",
     NULL,
     1,
     {0},
     {WOFF(pss_bytes)},
     1},
    {"vigil_process_first_pss_bytes",
     GAUGE,
     "Proportional set size of the matching process with the lowest pid.",
     NULL,
     1,
     {0},
     {WOFF(first_pss_bytes)},
     1},
    {"vigil_process_cpu_usage_ratio",
     GAUGE,
     "CPU used by the matching processes over the last interval (1 = one core).",
     NULL,
     1,
     {0},
     {WOFF(cpu_pct)},
     0.01},
    {"vigil_process_threads",
     GAUGE,
     "Threads of the matching processes.",
     NULL,
     1,
     {0},
     {WOFF(threads)},
     1},
    {"vigil_process_oldest_age_seconds",
     GAUGE,
     "Age of the oldest matching process.",
     NULL,
     1,
     {0},
     {WOFF(oldest_age_s)},
     1},
};

static void render_watches(struct render *r, const struct frame *f)
{
        char labs[VIGIL_MAX_WATCHES][96];
        const char *bases[VIGIL_MAX_WATCHES];
        unsigned n = f->nwatches < VIGIL_MAX_WATCHES ? f->nwatches : VIGIL_MAX_WATCHES;
        for (unsigned i = 0; i < n; i++) {
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_puts(&lb, "watch=\"");
                metrics_put_label_value(&lb, f->watches[i].name);
                sb_putc(&lb, '"');
                bases[i] = lb.overflow ? NULL : labs[i];
        }
        render_defs(r, watch_defs, sizeof(watch_defs) / sizeof(watch_defs[0]), f->watches,
                    sizeof(f->watches[0]), n, bases);
}

/* ---- Raspberry Pi ---- */

static const struct fam_def rpi_defs[] = {
    {"vigil_rpi_temperature_celsius",
     GAUGE,
     "SoC temperature reported by the firmware.",
     NULL,
     1,
     {0},
     {ROFF(temp_c)},
     1},
    {"vigil_rpi_core_voltage_volts",
     GAUGE,
     "Core voltage reported by the firmware.",
     NULL,
     1,
     {0},
     {ROFF(volt_core_v)},
     1},
    {"vigil_rpi_clock_hertz",
     GAUGE,
     "Clock rate measured by the firmware.",
     "clock",
     5,
     {"arm", "core", "v3d", "h264", "pixel"},
     {ROFF(arm_hz), ROFF(core_hz), ROFF(v3d_hz), ROFF(h264_hz), ROFF(pixel_hz)},
     1},
    {"vigil_rpi_clock_max_hertz",
     GAUGE,
     "Configured maximum clock rate.",
     "clock",
     1,
     {"arm"},
     {ROFF(arm_max_hz)},
     1},
};

static void render_rpi(struct render *r, const struct rpi_frame *p)
{
        static const char *const conds[4] = {"under_voltage", "arm_frequency_capped", "throttled",
                                             "soft_temperature_limit"};
        if (!p->present)
                return;
        render_defs(r, rpi_defs, sizeof(rpi_defs) / sizeof(rpi_defs[0]), p, 0, 1, NULL);

        fam_begin(r, "vigil_rpi_throttled", GAUGE,
                  "Firmware throttling condition (get_throttled): 1 when set, now or since boot.");
        if (VAL_OK(p->throttled) && p->throttled >= 0 && p->throttled <= 4294967295.0) {
                uint32_t word = (uint32_t)p->throttled;
                for (unsigned since = 0; since < 2; since++) {
                        for (unsigned c = 0; c < 4; c++) {
                                char lab[64];
                                snprintf(lab, sizeof(lab), "condition=\"%s\"", conds[c]);
                                sample(r, lab, "since", since ? "boot" : "now",
                                       (word >> (c + 16 * since)) & 1);
                        }
                }
        }

        fam_begin(r, "vigil_rpi_v3d_busy_ratio", GAUGE,
                  "Share of the last interval the V3D queue was busy, 0-1.");
        unsigned nq = p->nv3d < VIGIL_V3D_QUEUES ? p->nv3d : VIGIL_V3D_QUEUES;
        for (unsigned i = 0; i < nq; i++)
                sample(r, NULL, "queue", p->v3d[i].queue, p->v3d[i].busy_ratio);

        fam_begin(r, "vigil_rpi_info", GAUGE, "The board model (device tree).");
        if (p->model[0])
                sample(r, NULL, "model", p->model, 1);
}

/* ---- GPUs ---- */

static const struct fam_def gpu_defs[] = {
    {"vigil_gpu_temperature_celsius",
     GAUGE,
     "GPU core temperature.",
     NULL,
     1,
     {0},
     {GOFF(temp_c)},
     1},
    {"vigil_gpu_temperature_max_celsius",
     GAUGE,
     "Highest GPU temperature for normal operation (GPU_MAX threshold).",
     NULL,
     1,
     {0},
     {GOFF(temp_max_c)},
     1},
    {"vigil_gpu_power_watts", GAUGE, "Power draw of the GPU.", NULL, 1, {0}, {GOFF(power_w)}, 1},
    {"vigil_gpu_power_limit_watts",
     GAUGE,
     "Power management limit.",
     NULL,
     1,
     {0},
     {GOFF(power_limit_w)},
     1},
    {"vigil_gpu_enforced_power_limit_watts",
     GAUGE,
     "Power limit the driver enforces.",
     NULL,
     1,
     {0},
     {GOFF(enforced_limit_w)},
     1},
    {"vigil_gpu_energy_joules_total",
     COUNTER,
     "Energy used since the driver was loaded.",
     NULL,
     1,
     {0},
     {GOFF(energy_j)},
     1},
    {"vigil_gpu_clock_hertz",
     GAUGE,
     "Current clock rate.",
     "clock",
     4,
     {"graphics", "memory", "sm", "video"},
     {GOFF(gpu_clock_mhz), GOFF(mem_clock_mhz), GOFF(sm_clock_mhz), GOFF(video_clock_mhz)},
     1e6},
    {"vigil_gpu_utilization_ratio",
     GAUGE,
     "Share of the last sample period the engine was busy, 0-1.",
     "engine",
     2,
     {"gpu", "memory"},
     {GOFF(util_gpu_pct), GOFF(util_mem_pct)},
     0.01},
    {"vigil_gpu_memory_used_bytes",
     GAUGE,
     "Frame buffer memory in use.",
     NULL,
     1,
     {0},
     {GOFF(vram_used_bytes)},
     1},
    {"vigil_gpu_memory_total_bytes",
     GAUGE,
     "Frame buffer memory installed.",
     NULL,
     1,
     {0},
     {GOFF(vram_total_bytes)},
     1},
    {"vigil_gpu_pcie_link_generation",
     GAUGE,
     "Current PCIe link generation.",
     NULL,
     1,
     {0},
     {GOFF(pcie_gen)},
     1},
    {"vigil_gpu_pcie_link_width",
     GAUGE,
     "Current PCIe link width (lanes).",
     NULL,
     1,
     {0},
     {GOFF(pcie_width)},
     1},
    {"vigil_gpu_pcie_replay_errors_total",
     COUNTER,
     "PCIe replay counter.",
     NULL,
     1,
     {0},
     {GOFF(pcie_replay)},
     1},
    {"vigil_gpu_ecc_errors_total",
     COUNTER,
     "ECC errors since the driver was loaded.",
     "type",
     2,
     {"corrected", "uncorrected"},
     {GOFF(ecc_corrected), GOFF(ecc_uncorrected)},
     1},
    {"vigil_gpu_remapped_rows",
     GAUGE,
     "Memory rows remapped, by the error that caused it.",
     "type",
     2,
     {"correctable", "uncorrectable"},
     {GOFF(remapped_correctable), GOFF(remapped_uncorrectable)},
     1},
    {"vigil_gpu_remapped_rows_pending",
     GAUGE,
     "1 when a row remapping waits for a GPU reset.",
     NULL,
     1,
     {0},
     {GOFF(remap_pending)},
     1},
    {"vigil_gpu_remapped_rows_failure",
     GAUGE,
     "1 when a row remapping has failed.",
     NULL,
     1,
     {0},
     {GOFF(remap_failure)},
     1},
};

/* "gpu="N",uuid="..."" for each present GPU slot; NULL for the others. */
static void gpu_bases(const struct frame *f, char (*labs)[160], const char **bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                bases[i] = NULL;
                if (i >= f->ngpus || !g->present)
                        continue;
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_printf(&lb, "gpu=\"%u\"", g->index);
                if (g->uuid[0]) {
                        sb_puts(&lb, ",uuid=\"");
                        metrics_put_label_value(&lb, g->uuid);
                        sb_putc(&lb, '"');
                }
                if (!lb.overflow)
                        bases[i] = labs[i];
        }
}

static void render_gpu_special(struct render *r, const struct frame *f, const char *const *bases)
{
        fam_begin(r, "vigil_gpu_up", GAUGE, "1 when the last sample of the GPU succeeded.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (bases[i])
                        sample(r, bases[i], NULL, NULL, f->gpus[i].ok ? 1 : 0);
        }
        fam_begin(r, "vigil_gpu_info", GAUGE, "GPU identity: name and PCI bus id.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                char lab[320];
                struct strbuf lb;
                if (!bases[i])
                        continue;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, bases[i]);
                sb_puts(&lb, ",name=\"");
                metrics_put_label_value(&lb, f->gpus[i].name);
                sb_putc(&lb, '"');
                if (!lb.overflow)
                        sample(r, lab, "pci_bus_id", f->gpus[i].pci_bus_id, 1);
        }
        fam_begin(r, "vigil_gpu_pstate", GAUGE, "Performance state, 0 (highest) to 15 (lowest).");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                double p = f->gpus[i].pstate;
                if (bases[i] && p >= 0 && p <= 15)
                        sample(r, bases[i], NULL, NULL, p);
        }
}

static void render_gpu_arrays(struct render *r, const struct frame *f, const char *const *bases)
{
        fam_begin(r, "vigil_gpu_clocks_event_reason", GAUGE,
                  "1 when the clock-event (throttle) reason is active.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                double m = f->gpus[i].throttle_mask;
                if (!bases[i] || !(m >= 0 && m < 18446744073709551616.0))
                        continue;
                for (unsigned b = 0; b < METRICS_NREASONS; b++)
                        sample(r, bases[i], "reason", metrics_reason_names[b],
                               ((uint64_t)m >> b) & 1);
        }
        const char *names[2] = {"vigil_gpu_fan_speed_ratio", "vigil_gpu_fan_target_ratio"};
        const char *helps[2] = {"Intended fan speed, 0-1 (may exceed 1).",
                                "Target fan speed, 0-1."};
        for (unsigned k = 0; k < 2; k++) {
                fam_begin(r, names[k], GAUGE, helps[k]);
                for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                        const struct gpu_frame *g = &f->gpus[i];
                        unsigned nf = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
                        for (unsigned j = 0; bases[i] && j < nf; j++) {
                                char idx[12];
                                put_u64(idx, sizeof(idx), j);
                                sample(r, bases[i], "fan", idx,
                                       (k ? g->fan_target_pct[j] : g->fan_speed_pct[j]) / 100);
                        }
                }
        }
}

/* ---- counters kept outside the frame ---- */

static void render_gpu_extra(struct render *r, const struct metrics_extra *x,
                             const char *const *bases)
{
        char code[12];
        fam_begin(r, "vigil_gpu_xid_errors_total", COUNTER, "Xid errors reported, by Xid code.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct metrics_gpu_extra *g = &x->gpus[i];
                unsigned n = g->nxids < METRICS_MAX_XIDS ? g->nxids : METRICS_MAX_XIDS;
                for (unsigned j = 0; bases[i] && j < n; j++) {
                        put_u64(code, sizeof(code), g->xids[j].xid);
                        sample(r, bases[i], "xid", code, (double)g->xids[j].count);
                }
                if (bases[i] && g->xids_other)
                        sample(r, bases[i], "xid", "other", (double)g->xids_other);
        }
        fam_begin(r, "vigil_gpu_anomalies_total", COUNTER, "Anomalies flagged, by type.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct metrics_gpu_extra *g = &x->gpus[i];
                unsigned n = g->nanomalies < METRICS_MAX_ANOMALY_TYPES ? g->nanomalies
                                                                       : METRICS_MAX_ANOMALY_TYPES;
                for (unsigned j = 0; bases[i] && j < n; j++)
                        sample(r, bases[i], "type", g->anomalies[j].type,
                               (double)g->anomalies[j].count);
        }
        fam_begin(r, "vigil_gpu_clocks_event_reason_seconds_total", COUNTER,
                  "Time spent with the clock-event (throttle) reason active.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                for (unsigned b = 0; bases[i] && b < METRICS_NREASONS; b++)
                        sample(r, bases[i], "reason", metrics_reason_names[b],
                               x->gpus[i].reason_seconds[b]);
        }
        fam_begin(r, "vigil_gpu_nvml_failures_total", COUNTER, "Samples in which NVML failed.");
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (bases[i])
                        sample(r, bases[i], NULL, NULL, (double)x->gpus[i].nvml_failures);
        }
}

static void render_rules(struct render *r, const struct metrics_extra *x)
{
        unsigned n = x->nrules < METRICS_MAX_RULES ? x->nrules : METRICS_MAX_RULES;
        fam_begin(r, "vigil_rule_active", GAUGE, "1 while the monitoring rule's condition holds.");
        for (unsigned i = 0; i < n; i++)
                sample(r, NULL, "rule", x->rules[i].name, x->rules[i].active ? 1 : 0);
        fam_begin(r, "vigil_rule_fired_total", COUNTER, "Times the monitoring rule became active.");
        for (unsigned i = 0; i < n; i++)
                sample(r, NULL, "rule", x->rules[i].name, (double)x->rules[i].fired);
}

/* ---- vigil itself ---- */

static void render_self(struct render *r, const struct self_frame *s)
{
        static const char *const src[VCLOCK_COUNT] = {"host", "gpu", "pss"};
        fam_begin(r, "vigil_samples_total", COUNTER, "Samples taken, by cadence.");
        for (unsigned c = 0; c < VCLOCK_COUNT; c++)
                sample(r, NULL, "source", src[c], (double)s->samples[c]);
        fam_begin(r, "vigil_sample_duration_seconds", GAUGE, "Duration of the last sample.");
        for (unsigned c = 0; c < VCLOCK_COUNT; c++) {
                if (s->samples[c])
                        sample(r, NULL, "source", src[c], s->sample_seconds[c]);
        }
        struct {
                const char *name;
                const char *help;
                uint64_t v;
        } counters[] = {
            {"vigil_missed_deadlines_total", "Scheduler deadlines missed.", s->missed_deadlines},
            {"vigil_write_errors_total", "Failed writes to the log directory.", s->write_errors},
            {"vigil_events_dropped_total", "Events lost because the queue was full.",
             s->events_dropped},
            {"vigil_snapshots_total", "Diagnostic snapshots written.", s->snapshots},
        };
        for (unsigned i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
                fam_begin(r, counters[i].name, COUNTER, counters[i].help);
                sample(r, NULL, NULL, NULL, (double)counters[i].v);
        }
        fam_begin(r, "vigil_start_time_seconds", GAUGE,
                  "Start time of vigil, seconds since the epoch.");
        if (s->started_real_ns > 0)
                sample(r, NULL, NULL, NULL, (double)s->started_real_ns / 1e9);
        fam_begin(r, "vigil_build_info", GAUGE, "vigil's version.");
        sample(r, NULL, "version", VIGIL_VERSION, 1);
}

int metrics_render(struct strbuf *out, const struct frame *f, const struct metrics_extra *x)
{
        struct render r = {.sb = out};
        char labs[VIGIL_MAX_GPUS][160];
        const char *bases[VIGIL_MAX_GPUS];

        render_host(&r, &f->host);
        render_watches(&r, f);
        render_rpi(&r, &f->rpi);
        gpu_bases(f, labs, bases);
        render_gpu_special(&r, f, bases);
        render_defs(&r, gpu_defs, sizeof(gpu_defs) / sizeof(gpu_defs[0]), f->gpus,
                    sizeof(f->gpus[0]), VIGIL_MAX_GPUS, bases);
        render_gpu_arrays(&r, f, bases);
        if (x) {
                render_gpu_extra(&r, x, bases);
                render_rules(&r, x);
        }
        render_self(&r, &f->self);
        return out->overflow ? -ENOBUFS : 0;
}
