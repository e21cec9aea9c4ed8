/* GPU CSV rows. See gpu_row.h. */
#include "core/gpu_row.h"

#include <string.h>

#include "core/throttle_reasons.h"
#include "util/fmt.h"
#include "util/numfmt.h"

static const char *const head_cols[] = {
    "timestamp",    "gpu_temp",  "gpu_tlimit", "power_instant",    "power_limit",
    "pstate",       "gpu_clock", "mem_clock",  "gpu_util",         "mem_util",
    "vram_used_mb", "pcie_gen",  "pcie_width", "throttle_bitmask", "throttle_reasons",
};
static const char *const sensor_cols[] = {"sensor0_temp", "sensor0_target", "sensor0_controller",
                                          "flags"};
static const char *const extra_cols[] = {
    "sm_clock",
    "video_clock",
    "power_enforced_limit",
    "energy_j",
    "vram_total_mb",
    "pcie_replay",
    "ecc_corrected",
    "ecc_uncorrected",
    "remapped_correctable",
    "remapped_uncorrectable",
    "remap_pending",
    "remap_failure",
    "vram_reserved_mb",
};

#define NHEAD   (sizeof(head_cols) / sizeof(head_cols[0]))
#define NSENSOR (sizeof(sensor_cols) / sizeof(sensor_cols[0]))
#define NEXTRA  (sizeof(extra_cols) / sizeof(extra_cols[0]))

unsigned gpu_row_columns(unsigned nfans)
{
        return (unsigned)(NHEAD + 2 * nfans + NSENSOR + NEXTRA);
}

void gpu_row_header(struct strbuf *sb, unsigned nfans)
{
        for (size_t i = 0; i < NHEAD; i++)
                sb_printf(sb, "%s%s", i ? "," : "", head_cols[i]);
        for (unsigned i = 0; i < nfans; i++)
                sb_printf(sb, ",fan%u_speed_pct,fan%u_target_pct", i, i);
        for (size_t i = 0; i < NSENSOR; i++)
                sb_printf(sb, ",%s", sensor_cols[i]);
        for (size_t i = 0; i < NEXTRA; i++)
                sb_printf(sb, ",%s", extra_cols[i]);
        sb_putc(sb, '\n');
}

/* ",v" to the given decimals, as ",%.*f" (numfmt writes the same bytes, faster). */
static void put_fixed(struct strbuf *sb, double v, int decimals)
{
        char t[1 + NUMFMT_MAX];
        t[0] = ',';
        size_t n = numfmt_fixed(t + 1, v, decimals);
        if (n)
                sb_put(sb, t, 1 + n);
        else
                sb_printf(sb, ",%.*f", decimals, v); /* infinities, |v| >= 2^64 */
}

/* ",N" for a whole number, "," when missing. */
static void cell_int(struct strbuf *sb, double v)
{
        if (VAL_OK(v))
                put_fixed(sb, v, 0);
        else
                sb_putc(sb, ',');
}

static void cell_fixed(struct strbuf *sb, double v, int decimals)
{
        if (VAL_OK(v))
                put_fixed(sb, v, decimals);
        else
                sb_putc(sb, ',');
}

/* Whole MiB, as Python's used // (1024 * 1024). */
static void cell_mib(struct strbuf *sb, double bytes)
{
        char t[1 + NUMFMT_MAX];
        if (VAL_OK(bytes) && bytes >= 0) {
                t[0] = ',';
                sb_put(sb, t, 1 + numfmt_u64(t + 1, (unsigned long long)bytes >> 20));
        } else {
                sb_putc(sb, ',');
        }
}

/* ",0x%04llx," of the mask, then its names. */
static void cell_throttle(struct strbuf *sb, uint64_t mask)
{
        char t[2 + NUMFMT_MAX];
        t[0] = ',';
        size_t n = 1 + numfmt_hex04(t + 1, mask);
        t[n++] = ',';
        sb_put(sb, t, n);
        throttle_decode(sb, mask);
}

static void empty_cells(struct strbuf *sb, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                sb_putc(sb, ',');
}

static void reference_cells(struct strbuf *sb, const struct gpu_frame *g, unsigned nfans)
{
        cell_int(sb, g->temp_c);
        /* The reference leaves gpu_tlimit empty when the threshold reads 0. */
        if (VAL_OK(g->temp_max_c) && g->temp_max_c != 0 && VAL_OK(g->temp_c))
                put_fixed(sb, g->temp_max_c - g->temp_c, 0);
        else
                sb_putc(sb, ',');
        cell_fixed(sb, g->power_w, 2);
        cell_fixed(sb, g->power_limit_w, 0);
        cell_int(sb, g->pstate);
        cell_int(sb, g->gpu_clock_mhz);
        cell_int(sb, g->mem_clock_mhz);
        cell_int(sb, g->util_gpu_pct);
        cell_int(sb, g->util_mem_pct);
        cell_mib(sb, g->vram_used_bytes);
        cell_int(sb, g->pcie_gen);
        cell_int(sb, g->pcie_width);
        if (g->throttle_valid) {
                cell_throttle(sb, g->throttle_mask);
        } else {
                empty_cells(sb, 2);
        }
        for (unsigned i = 0; i < nfans; i++) {
                bool have = i < g->nfans && i < VIGIL_MAX_FANS;
                cell_int(sb, have ? g->fan_speed_pct[i] : VAL_MISSING);
                cell_int(sb, have ? g->fan_target_pct[i] : VAL_MISSING);
        }
        cell_int(sb, g->s0_temp);
        cell_int(sb, g->s0_target);
        cell_int(sb, g->s0_controller);
        sb_putc(sb, ',');
        sb_csv_cell(sb, g->flags);
}

static void extra_cells(struct strbuf *sb, const struct gpu_frame *g)
{
        cell_int(sb, g->sm_clock_mhz);
        cell_int(sb, g->video_clock_mhz);
        cell_fixed(sb, g->enforced_limit_w, 0);
        cell_fixed(sb, g->energy_j, 3);
        cell_mib(sb, g->vram_total_bytes);
        cell_int(sb, g->pcie_replay);
        cell_int(sb, g->ecc_corrected);
        cell_int(sb, g->ecc_uncorrected);
        cell_int(sb, g->remapped_correctable);
        cell_int(sb, g->remapped_uncorrectable);
        cell_int(sb, g->remap_pending);
        cell_int(sb, g->remap_failure);
        cell_mib(sb, g->vram_reserved_bytes);
}

void gpu_row_csv(struct strbuf *sb, const struct gpu_frame *g, unsigned nfans,
                 struct fmt_sec_cache *ts_cache)
{
        char ts[40], err[96];
        size_t tn = ts_cache ? fmt_time_gpu_cached(ts_cache, ts, sizeof(ts), g->sampled_real_ns)
                             : fmt_time_gpu(ts, sizeof(ts), g->sampled_real_ns);
        sb_put(sb, ts, tn);
        if (!g->ok) {
                /* Everything up to flags empty, then the error, then vigil's columns. */
                empty_cells(sb, (unsigned)(NHEAD - 1 + 2 * nfans + NSENSOR - 1));
                memcpy(err, "NVML_FAILED:", 12);
                size_t n = strnlen(g->error, 80);
                memcpy(err + 12, g->error, n);
                err[12 + n] = '\0';
                sb_putc(sb, ',');
                sb_csv_cell(sb, err);
                empty_cells(sb, (unsigned)NEXTRA);
        } else {
                reference_cells(sb, g, nfans);
                extra_cells(sb, g);
        }
        sb_putc(sb, '\n');
}
