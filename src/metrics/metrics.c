/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus text exposition of a frame. See metrics.h.
 *
 *   # HELP vigil_gpu_power_watts Power draw of the GPU.
 *   # TYPE vigil_gpu_power_watts gauge
 *   vigil_gpu_power_watts{gpu="0",uuid="GPU-5d6c..."} 231.5
 *
 * Families are written family by family (all GPUs of one family together), as the
 * format requires. The families of the frame's values, and their order, come from the
 * metric slots of the areas' tables (core/metric_defs.h): a plain series is a row, and
 * a family a row marks MR_CODE is rendered here by the function of its code. Rendering
 * allocates nothing: it appends to the caller's buffer. */
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/frame_fields.h"
#include "core/metric_defs.h"
#include "core/nvlink.h"
#include "metrics/metrics_render.h"
#include "core/throttle_reasons.h"
#include "core/rpi_throttle.h"

static double field_at(const void *obj, size_t off)
{
        double v;
        memcpy(&v, (const char *)obj + off, sizeof(v));
        return v;
}

/* ---- host ---- */

/* A family over the CPUs: cpu="all" (all, when not NAN), then one series per core. */
static void render_cpus(struct render *r, const double *v, unsigned n, double scale, double all)
{
        char idx[12];
        metrics_sample(r, NULL, "cpu", "all", all * scale);
        if (n > VIGIL_MAX_CPUS)
                n = VIGIL_MAX_CPUS;
        for (unsigned i = 0; i < n; i++) {
                metrics_fmt_value(idx, sizeof(idx), i);
                metrics_sample(r, NULL, "cpu", idx, v[i] * scale);
        }
}

static void host_cpu_usage(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        render_cpus(r, f->host.cpu_pct, f->host.ncpu, 0.01, f->host.cpu_total_pct);
}

static void host_swap_used(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        metrics_sample(r, NULL, NULL, NULL, f->host.swap_total_bytes - f->host.swap_free_bytes);
}

static void host_cpu_frequency(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        render_cpus(r, f->host.cpu_freq_hz, f->host.nfreq, 1, NAN);
}

static void host_temperature(struct render *r, const struct frame *f, const char *const *bases)
{
        const struct host_frame *h = &f->host;
        (void)bases;
        unsigned nt = h->ntemps < VIGIL_MAX_TEMPS ? h->ntemps : VIGIL_MAX_TEMPS;
        for (unsigned i = 0; i < nt; i++) {
                char lab[200];
                struct strbuf lb;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, "chip=\"");
                metrics_put_label_value(&lb, h->temps[i].chip);
                sb_puts(&lb, "\"");
                if (!lb.overflow)
                        metrics_sample(r, lab, "sensor", h->temps[i].sensor, h->temps[i].celsius);
        }
}

static void host_governor(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        if (f->host.governor[0])
                metrics_sample(r, NULL, "governor", f->host.governor, 1);
}

/* ---- process watches ---- */

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
        metrics_render_table(r, f, watch_fields, watch_fields_count, f->watches,
                             sizeof(f->watches[0]), n, bases);
}

/* ---- Raspberry Pi ---- */

static void rpi_throttled(struct render *r, const struct frame *f, const char *const *bases)
{
        static const char *const conds[4] = {RPI_COND_UNDER_VOLTAGE, RPI_COND_ARM_FREQ_CAPPED,
                                             RPI_COND_THROTTLED, RPI_COND_SOFT_TEMP_LIMIT};
        const struct rpi_frame *p = &f->rpi;
        (void)bases;
        if (p->throttled_valid && p->throttled <= 0xffffffffu) {
                uint32_t word = (uint32_t)p->throttled;
                /* since="boot" only where the sticky bits mean that (gencmd). */
                unsigned nsince = rpi_frame_sticky_reliable(p) ? 2 : 1;
                for (unsigned since = 0; since < nsince; since++) {
                        for (unsigned c = 0; c < 4; c++) {
                                char lab[64];
                                snprintf(lab, sizeof(lab), "condition=\"%s\"", conds[c]);
                                metrics_sample(r, lab, "since", since ? "boot" : "now",
                                               (word >> (c + 16 * since)) & 1);
                        }
                }
        } else if (VAL_OK(p->undervolt_alarm)) {
                /* No word: the rpi_volt alarm says under-voltage now, nothing else. */
                metrics_sample(r, "condition=\"" RPI_COND_UNDER_VOLTAGE "\"", "since", "now",
                               p->undervolt_alarm);
        }
}

static void rpi_v3d_busy(struct render *r, const struct frame *f, const char *const *bases)
{
        const struct rpi_frame *p = &f->rpi;
        (void)bases;
        unsigned nq = p->nv3d < VIGIL_V3D_QUEUES ? p->nv3d : VIGIL_V3D_QUEUES;
        for (unsigned i = 0; i < nq; i++)
                metrics_sample(r, NULL, "queue", p->v3d[i].queue, p->v3d[i].busy_ratio);
}

static void rpi_info(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        if (f->rpi.model[0])
                metrics_sample(r, NULL, "model", f->rpi.model, 1);
}

/* ---- GPUs ---- */

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

static void gpu_up(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                if (bases[i])
                        metrics_sample(r, bases[i], NULL, NULL, f->gpus[i].ok ? 1 : 0);
        }
}

static void gpu_info(struct render *r, const struct frame *f, const char *const *bases)
{
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
                        metrics_sample(r, lab, "pci_bus_id", f->gpus[i].pci_bus_id, 1);
        }
}

static void gpu_pstate(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                double p = f->gpus[i].pstate;
                if (bases[i] && p >= 0 && p <= 15)
                        metrics_sample(r, bases[i], NULL, NULL, p);
        }
}

static void gpu_processes(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_proc_list *l = &f->gpu_procs[i];
                for (unsigned ty = 0; bases[i] && l->valid && ty < GPU_PROC_TYPES; ty++)
                        if (l->supported[ty])
                                metrics_sample(r, bases[i], "type",
                                               gpu_proc_type_name((enum gpu_proc_type)ty),
                                               l->count[ty]);
        }
}

static void gpu_clocks_event_reason(struct render *r, const struct frame *f,
                                    const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                uint64_t m = f->gpus[i].throttle_mask;
                if (!bases[i] || !f->gpus[i].throttle_valid)
                        continue;
                for (unsigned b = 0; b < GPU_THROTTLE_BITS; b++)
                        if (throttle_reasons[b].label)
                                metrics_sample(r, bases[i], "reason", throttle_reasons[b].label,
                                               (m >> b) & 1);
        }
}

static void gpu_recovery_action(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++)
                if (bases[i] && f->gpus[i].recovery_valid)
                        metrics_sample(r, bases[i], NULL, NULL, f->gpus[i].recovery_action);
}

/* fan="K" for each fan of each GPU: the array at off, in percent, as a ratio. */
static void gpu_fans(struct render *r, const struct frame *f, const char *const *bases, size_t off)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                unsigned nf = g->nfans < VIGIL_MAX_FANS ? g->nfans : VIGIL_MAX_FANS;
                for (unsigned j = 0; bases[i] && j < nf; j++) {
                        char idx[12];
                        metrics_fmt_value(idx, sizeof(idx), j);
                        metrics_sample(r, bases[i], "fan", idx,
                                       field_at(g, off + j * sizeof(double)) / 100);
                }
        }
}

static void gpu_fan_speed(struct render *r, const struct frame *f, const char *const *bases)
{
        gpu_fans(r, f, bases, offsetof(struct gpu_frame, fan_speed_pct));
}

static void gpu_fan_target(struct render *r, const struct frame *f, const char *const *bases)
{
        gpu_fans(r, f, bases, offsetof(struct gpu_frame, fan_target_pct));
}

/* link="L" for each link of each GPU that answered. */
static void gpu_nvlink_up(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                for (unsigned l = 0; bases[i] && l < g->nvlinks && l < VIGIL_MAX_NVLINKS; l++) {
                        char idx[12];
                        if (!VAL_OK(g->nvlink_up[l]))
                                continue;
                        metrics_fmt_value(idx, sizeof(idx), l);
                        metrics_sample(r, bases[i], "link", idx, g->nvlink_up[l]);
                }
        }
}

/* link="L",type="..." for each counter of each link that answered. */
static void gpu_nvlink_errors(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                for (unsigned l = 0; bases[i] && l < g->nvlinks && l < VIGIL_MAX_NVLINKS; l++) {
                        char lab[200];
                        struct strbuf lb;
                        sb_init_fixed(&lb, lab, sizeof(lab));
                        sb_printf(&lb, "%s,link=\"%u\"", bases[i], l);
                        for (unsigned c = 0; !lb.overflow && c < NVLINK_COUNTERS; c++)
                                if (VAL_OK(g->nvlink_errors[l][c]))
                                        metrics_sample(r, lab, "type",
                                                       nvlink_counter_name((enum nvlink_counter)c),
                                                       g->nvlink_errors[l][c]);
                }
        }
}

/* The code-rendered families of the areas' tables (MR_CODE rows), one function each,
 * by the row's code. */
static const metrics_code_fn codes[MC_COUNT] = {
    [MC_HOST_CPU_USAGE] = host_cpu_usage,
    [MC_HOST_SWAP_USED] = host_swap_used,
    [MC_HOST_CPU_FREQUENCY] = host_cpu_frequency,
    [MC_HOST_TEMPERATURE] = host_temperature,
    [MC_HOST_GOVERNOR] = host_governor,
    [MC_RPI_THROTTLED] = rpi_throttled,
    [MC_RPI_V3D_BUSY] = rpi_v3d_busy,
    [MC_RPI_INFO] = rpi_info,
    [MC_STORAGE_ERRORS] = metrics_storage_errors,
    [MC_SD_INFO] = metrics_sd_info,
    [MC_DISPLAY_INFO] = metrics_display_info,
    [MC_GPU_UP] = gpu_up,
    [MC_GPU_INFO] = gpu_info,
    [MC_GPU_PSTATE] = gpu_pstate,
    [MC_GPU_PROCESSES] = gpu_processes,
    [MC_GPU_CLOCKS_EVENT_REASON] = gpu_clocks_event_reason,
    [MC_GPU_RECOVERY_ACTION] = gpu_recovery_action,
    [MC_GPU_FAN_SPEED] = gpu_fan_speed,
    [MC_GPU_FAN_TARGET] = gpu_fan_target,
    [MC_GPU_NVLINK_UP] = gpu_nvlink_up,
    [MC_GPU_NVLINK_ERRORS] = gpu_nvlink_errors,
};

bool metrics_code_complete(void)
{
        for (unsigned c = MC_NONE + 1; c < MC_COUNT; c++)
                if (!codes[c])
                        return false;
        return true;
}

/* The storage health families: one series per file system, then the machine's. */
static void render_storage(struct render *r, const struct frame *f)
{
        char labs[FS_COUNT][METRICS_FS_LABELS_MAX];
        const char *bases[FS_COUNT];
        metrics_storage_bases(f, labs, bases);
        metrics_render_table(r, f, fs_fields, fs_fields_count, f->storage.fs,
                             sizeof(f->storage.fs[0]), FS_COUNT, bases);
        metrics_render_table(r, f, storage_fields, storage_fields_count, &f->storage, 0, 1, NULL);
        metrics_render_sd(r, f);
}

/* Every family of f and x, in exposition order, into r's output. */
static void render_all(struct render *r, const struct frame *f, const struct counters *x)
{
        char labs[VIGIL_MAX_GPUS][160];
        const char *bases[VIGIL_MAX_GPUS];

        metrics_render_table(r, f, host_fields, host_fields_count, &f->host, 0, 1, NULL);
        render_watches(r, f);
        if (f->rpi.present) /* the Pi's families only on a Pi */
                metrics_render_table(r, f, rpi_fields, rpi_fields_count, &f->rpi, 0, 1, NULL);
        render_storage(r, f);
        metrics_render_display(r, f);
        metrics_render_net(r, f);
        gpu_bases(f, labs, bases);
        metrics_render_table(r, f, gpu_fields, gpu_fields_count, f->gpus, sizeof(f->gpus[0]),
                             VIGIL_MAX_GPUS, bases);
        struct render_src src = {.f = f, .x = x, .gpu_bases = bases};
        metrics_render_counters(r, &src);
}

int metrics_render(struct strbuf *out, const struct frame *f, const struct counters *x)
{
        struct render r = {.sb = out, .codes = codes};
        render_all(&r, f, x);
        if (r.broken)
                return -EINVAL;
        return out->overflow ? -ENOBUFS : 0;
}

int metrics_visit(const struct frame *f, const struct counters *x, metrics_visit_fn fn, void *arg)
{
        struct strbuf none;
        char b[1];
        sb_init_fixed(&none, b, sizeof(b));
        struct render r = {.sb = &none, .visit = fn, .arg = arg, .codes = codes};
        render_all(&r, f, x);
        return r.broken ? -EINVAL : 0;
}
