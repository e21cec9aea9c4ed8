/* The host row and its CSV form. Formats follow the reference monitor's Python
 * csv.DictWriter output: repr() of floats, psutil's one-decimal percentages, hex(). */
#include "core/host_row.h"

#include <stdio.h>
#include <string.h>

#include "core/rpi_throttle.h"
#include "util/fmt.h"

#define MB (1024.0 * 1024.0)

enum col_fmt { F_PY, F_PCT1, F_INT, F_HEX };

static const struct {
        const char *name;
        enum col_fmt fmt;
} cols[HC_COUNT] = {
    [HC_UPTIME] = {"uptime_s", F_PY},
    [HC_CPU_TOTAL] = {"cpu_total_pct", F_PCT1},
    [HC_LOAD1] = {"load1", F_PY},
    [HC_LOAD5] = {"load5", F_PY},
    [HC_LOAD15] = {"load15", F_PY},
    [HC_TEMP] = {"temp_c", F_PY},
    [HC_VOLT] = {"volt_core_v", F_PY},
    [HC_ARM] = {"arm_mhz", F_PY},
    [HC_CORE] = {"core_mhz", F_PY},
    [HC_V3D] = {"v3d_mhz", F_PY},
    [HC_PIXEL] = {"pixel_mhz", F_PY},
    [HC_H264] = {"h264_mhz", F_PY},
    [HC_ARM_CFG] = {"arm_cur_mhz_cfg", F_PY},
    [HC_MEM_USED] = {"mem_used_mb", F_PY},
    [HC_MEM_AVAIL] = {"mem_avail_mb", F_PY},
    [HC_SHM_USED] = {"shm_used_mb", F_PY},
    [HC_PLAYER_PSS] = {"player_pss_mb", F_PY},
    [HC_PLAYER_CPU] = {"player_cpu_pct", F_PCT1},
    [HC_PLAYER_THREADS] = {"player_threads", F_INT},
    [HC_CHROMIUM_PROCS] = {"chromium_procs", F_INT},
    [HC_CHROMIUM_PSS] = {"chromium_pss_mb", F_PY},
    [HC_THROTTLED] = {"throttled_raw", F_HEX},
    [HC_MEM_TOTAL] = {"mem_total_mb", F_PY},
    [HC_SHM_TOTAL] = {"shm_total_mb", F_PY},
    [HC_ROOTFS_AVAIL] = {"rootfs_avail_mb", F_PY},
    [HC_ROOTFS_RO] = {"rootfs_ro", F_INT},
    [HC_ROOTFS_FULL_H] = {"rootfs_full_in_h", F_PCT1},
    [HC_LOGFS_AVAIL] = {"logfs_avail_mb", F_PY},
    [HC_LOGFS_RO] = {"logfs_ro", F_INT},
    [HC_LOGFS_FULL_H] = {"logfs_full_in_h", F_PCT1},
    [HC_STORAGE_ERRORS] = {"storage_errors", F_INT},
};

const char *const watch_col_suffix[WC_COUNT] = {
    [WC_PROCS] = "_procs",
    [WC_PSS_MB] = "_pss_mb",
    [WC_CPU_PCT] = "_cpu_pct",
    [WC_THREADS] = "_threads",
};

const char *host_col_name(enum host_col c)
{
        return (unsigned)c < HC_COUNT ? cols[c].name : "";
}

static const struct watch_frame *find_watch(const struct frame *f, const char *name)
{
        for (unsigned i = 0; i < f->nwatches; i++)
                if (strcmp(f->watches[i].name, name) == 0)
                        return &f->watches[i];
        return NULL;
}

static double div_or_nan(double v, double d)
{
        return VAL_OK(v) ? v / d : VAL_MISSING;
}

static void build_storage(struct host_row *r, const struct storage_frame *s)
{
        const struct fs_frame *rt = &s->fs[FS_ROOT], *lg = &s->fs[FS_LOG];
        r->v[HC_ROOTFS_AVAIL] = div_or_nan(rt->avail_bytes, MB);
        r->v[HC_ROOTFS_RO] = rt->readonly;
        r->v[HC_ROOTFS_FULL_H] = div_or_nan(rt->full_in_s, 3600);
        r->v[HC_LOGFS_AVAIL] = div_or_nan(lg->avail_bytes, MB);
        r->v[HC_LOGFS_RO] = lg->readonly;
        r->v[HC_LOGFS_FULL_H] = div_or_nan(lg->full_in_s, 3600);
        double total = 0;
        for (unsigned k = 0; k < STORAGE_KINDS; k++)
                total = VAL_OK(s->errors[k]) ? total + s->errors[k] : VAL_MISSING;
        r->v[HC_STORAGE_ERRORS] = total;
}

/* Every watch is recorded: those the reference has no columns for get their own. */
static void build_watches(struct host_row *r, const struct frame *f)
{
        r->nwatch = 0;
        for (unsigned i = 0; i < f->nwatches && i < VIGIL_MAX_WATCHES; i++) {
                const struct watch_frame *w = &f->watches[i];
                if (!strcmp(w->name, "player") || !strcmp(w->name, "chromium"))
                        continue;
                struct host_row_watch *o = &r->w[r->nwatch++];
                snprintf(o->name, sizeof(o->name), "%s", w->name);
                o->procs = w->count;
                /* As chromium_pss_mb: 0.0 when nothing matches. */
                o->pss_mb =
                    (VAL_OK(w->count) && w->count == 0) ? 0.0 : div_or_nan(w->pss_bytes, MB);
                o->cpu_pct = w->cpu_pct;
                o->threads = w->threads;
        }
}

void host_row_build(struct host_row *r, const struct frame *f)
{
        const struct host_frame *h = &f->host;
        const struct rpi_frame *pi = &f->rpi;
        for (unsigned i = 0; i < HC_COUNT; i++)
                r->v[i] = VAL_MISSING;
        r->real_ns = h->sampled_real_ns;
        r->ncpu = h->ncpu;
        for (unsigned i = 0; i < h->ncpu && i < VIGIL_MAX_CPUS; i++)
                r->cpu[i] = h->cpu_pct[i];
        r->v[HC_CPU_TOTAL] = h->cpu_total_pct;
        r->v[HC_LOAD1] = h->load1;
        r->v[HC_LOAD5] = h->load5;
        r->v[HC_LOAD15] = h->load15;
        /* The reference reads sysfs first, then the firmware. */
        r->v[HC_TEMP] = VAL_OK(h->temp_c) ? h->temp_c : pi->temp_c;
        r->v[HC_VOLT] = pi->volt_core_v;
        r->v[HC_ARM] = div_or_nan(pi->arm_hz, 1e6);
        r->v[HC_CORE] = div_or_nan(pi->core_hz, 1e6);
        r->v[HC_V3D] = div_or_nan(pi->v3d_hz, 1e6);
        r->v[HC_PIXEL] = div_or_nan(pi->pixel_hz, 1e6);
        r->v[HC_H264] = div_or_nan(pi->h264_hz, 1e6);
        r->v[HC_ARM_CFG] = h->nfreq ? div_or_nan(h->cpu_freq_hz[0], 1e6) : VAL_MISSING;
        r->v[HC_MEM_USED] = div_or_nan(h->mem_used_bytes, MB);
        r->v[HC_MEM_AVAIL] = div_or_nan(h->mem_avail_bytes, MB);
        r->v[HC_SHM_USED] = div_or_nan(h->shm_used_bytes, MB);
        r->v[HC_MEM_TOTAL] = div_or_nan(h->mem_total_bytes, MB);
        r->v[HC_SHM_TOTAL] = div_or_nan(h->shm_total_bytes, MB);
        const struct watch_frame *pl = find_watch(f, "player");
        if (pl && VAL_OK(pl->count) && pl->count > 0) {
                r->v[HC_UPTIME] = pl->oldest_age_s;
                r->v[HC_PLAYER_PSS] = div_or_nan(pl->first_pss_bytes, MB);
                r->v[HC_PLAYER_CPU] = pl->cpu_pct;
                r->v[HC_PLAYER_THREADS] = pl->threads;
        }
        const struct watch_frame *ch = find_watch(f, "chromium");
        if (ch) {
                r->v[HC_CHROMIUM_PROCS] = ch->count;
                /* The reference writes 0.0 when there is no Chromium at all. */
                r->v[HC_CHROMIUM_PSS] =
                    (VAL_OK(ch->count) && ch->count == 0) ? 0.0 : div_or_nan(ch->pss_bytes, MB);
        }
        build_watches(r, f);
        build_storage(r, &f->storage);
        /* 32 bits: exact in the row's double cell. */
        r->v[HC_THROTTLED] = pi->throttled_valid ? (double)pi->throttled : VAL_MISSING;
        snprintf(r->governor, sizeof(r->governor), "%s", h->governor);
        rpi_frame_flags(pi, r->throttle_flags, sizeof(r->throttle_flags));
}

void host_row_header(struct strbuf *out, unsigned ncpu, const struct host_row *r)
{
        sb_printf(out, "%s,%s,%s", HOST_COL_TIMESTAMP, cols[HC_UPTIME].name,
                  cols[HC_CPU_TOTAL].name);
        for (unsigned i = 0; i < ncpu; i++)
                sb_printf(out, "," HOST_COL_CPU_FMT, i);
        for (unsigned c = HC_LOAD1; c < HC_COUNT; c++) {
                sb_printf(out, ",%s", cols[c].name);
                if (c == HC_H264)
                        sb_puts(out, "," HOST_COL_GOVERNOR);
                if (c == HC_THROTTLED)
                        sb_puts(out, "," HOST_COL_THROTTLE_FLAGS);
        }
        for (unsigned i = 0; i < r->nwatch; i++)
                for (unsigned k = 0; k < WC_COUNT; k++)
                        sb_printf(out, ",%s%s", r->w[i].name, watch_col_suffix[k]);
        sb_putc(out, '\n');
}

static void put_value(struct strbuf *out, enum col_fmt fmt, double v)
{
        char buf[48];
        if (!VAL_OK(v))
                return;
        switch (fmt) {
        case F_PY:
                fmt_pyfloat(buf, sizeof(buf), v);
                sb_puts(out, buf);
                break;
        case F_PCT1:
                sb_printf(out, "%.1f", v);
                break;
        case F_INT:
                sb_printf(out, "%.0f", v);
                break;
        case F_HEX:
                sb_printf(out, "0x%llx", (unsigned long long)v);
                break;
        }
}

void host_row_csv(struct strbuf *out, const struct host_row *r, unsigned ncpu)
{
        char ts[40];
        fmt_time_iso_ms(ts, sizeof(ts), r->real_ns);
        sb_puts(out, ts);
        sb_putc(out, ',');
        put_value(out, F_PY, r->v[HC_UPTIME]);
        sb_putc(out, ',');
        put_value(out, F_PCT1, r->v[HC_CPU_TOTAL]);
        for (unsigned i = 0; i < ncpu; i++) {
                sb_putc(out, ',');
                if (i < r->ncpu)
                        put_value(out, F_PCT1, r->cpu[i]);
        }
        for (unsigned c = HC_LOAD1; c < HC_COUNT; c++) {
                sb_putc(out, ',');
                put_value(out, cols[c].fmt, r->v[c]);
                if (c == HC_H264) {
                        sb_putc(out, ',');
                        sb_csv_cell(out, r->governor);
                }
                if (c == HC_THROTTLED) {
                        sb_putc(out, ',');
                        sb_csv_cell(out, r->throttle_flags);
                }
        }
        for (unsigned i = 0; i < r->nwatch; i++) {
                sb_putc(out, ',');
                put_value(out, F_INT, r->w[i].procs);
                sb_putc(out, ',');
                put_value(out, F_PY, r->w[i].pss_mb);
                sb_putc(out, ',');
                put_value(out, F_PCT1, r->w[i].cpu_pct);
                sb_putc(out, ',');
                put_value(out, F_INT, r->w[i].threads);
        }
        sb_putc(out, '\n');
}
