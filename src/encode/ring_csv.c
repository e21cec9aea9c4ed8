/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder's dump as CSV. See ring_csv.h. */
#include "encode/ring_csv.h"

#include <string.h>

#include "encode/gpu_columns.h"

void ring_csv_header(const struct gpu_ring *r, struct strbuf *out)
{
        gpu_csv_header(out, GPU_CSV_RECORDER, r->nfans);
}

/* A stored integer back as the frame's double, NAN when its bit is not set. */
static double back(const struct ring_sample *s, uint32_t bit, double v)
{
        return (s->valid & bit) ? v : VAL_MISSING;
}

/* The frame a sample was stored from, as far as the dump writes it: the values in the
 * CSV's units, so they format to the same cells. */
static void unfill(struct gpu_frame *g, const struct ring_sample *s, unsigned nfans)
{
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->ok = !s->failed;
        g->sampled_real_ns = s->real_ns;
        g->nfans = nfans;
        g->temp_c = back(s, RS_TEMP, s->temp_c);
        g->temp_max_c = back(s, RS_TEMP_MAX, s->temp_max_c);
        g->power_w = back(s, RS_POWER, s->power_mw / 1000.0);
        g->power_limit_w = back(s, RS_LIMIT, s->limit_mw / 1000.0);
        g->pstate = back(s, RS_PSTATE, s->pstate);
        g->gpu_clock_mhz = back(s, RS_GPU_CLOCK, s->gpu_clock_mhz);
        g->mem_clock_mhz = back(s, RS_MEM_CLOCK, s->mem_clock_mhz);
        g->util_gpu_pct = back(s, RS_UTIL_GPU, s->util_gpu_pct);
        g->util_mem_pct = back(s, RS_UTIL_MEM, s->util_mem_pct);
        g->vram_used_bytes = back(s, RS_VRAM, s->vram_used_mib * 1048576.0);
        g->pcie_gen = back(s, RS_PCIE_GEN, s->pcie_gen);
        g->pcie_width = back(s, RS_PCIE_WIDTH, s->pcie_width);
        g->s0_temp = back(s, RS_S0_TEMP, s->s0_temp_c);
        g->s0_target = back(s, RS_S0_TARGET, s->s0_target);
        g->s0_controller = back(s, RS_S0_CONTROLLER, s->s0_controller);
        g->throttle_valid = (s->valid & RS_THROTTLE) != 0;
        g->throttle_mask = g->throttle_valid ? s->throttle_mask : 0;
        for (unsigned k = 0; k < nfans && k < RING_FANS; k++) {
                g->fan_speed_pct[k] = back(s, RS_FAN_SPEED(k), s->fan_speed_pct[k]);
                g->fan_target_pct[k] = back(s, RS_FAN_TARGET(k), s->fan_target_pct[k]);
        }
}

void ring_csv_row(const struct gpu_ring *r, size_t i, struct strbuf *out)
{
        const struct ring_sample *s = ring_get(r, i);
        const struct gpu_csv_style st = {.file = GPU_CSV_RECORDER, .nfans = r->nfans};
        struct gpu_frame g;
        if (!s)
                return;
        /* The flags text is the sample's own: its flags, or "NVML_FAILED:<error>". */
        unfill(&g, s, r->nfans);
        gpu_csv_row(out, &g, ring_text_of(r, i), &st);
}

size_t ring_write_csv(const struct gpu_ring *r, size_t first, struct strbuf *out)
{
        char storage[1024];
        struct strbuf row;
        size_t n = ring_count(r);
        if (first == 0)
                ring_csv_header(r, out);
        for (size_t i = first; i < n; i++) {
                sb_init_fixed(&row, storage, sizeof(storage));
                ring_csv_row(r, i, &row);
                /* Always one row per call, so a caller's loop makes progress. */
                if (i > first && out->len + row.len + 1 > out->max)
                        return i;
                sb_put(out, row.buf, row.len);
        }
        return n;
}
