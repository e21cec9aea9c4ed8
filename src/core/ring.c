/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder. See ring.h. */
#include "core/ring.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"
#include "util/parse.h"
#include "util/hot.h"

_Static_assert(sizeof(struct ring_sample) == 72, "ring_sample grew: update ring.h's figures");
_Static_assert(2 * RING_FANS + 16 <= 32, "fan validity bits must fit in 32 bits");

size_t ring_capacity_for(int64_t window_ns, int64_t interval_ns)
{
        if (interval_ns <= 0 || window_ns <= 0)
                return RING_MAX_SAMPLES;
        int64_t n = (window_ns + interval_ns - 1) / interval_ns;
        if (n < 1)
                n = 1;
        return n > RING_MAX_SAMPLES ? RING_MAX_SAMPLES : (size_t)n;
}

int ring_init(struct gpu_ring *r, size_t cap, unsigned nfans)
{
        memset(r, 0, sizeof(*r));
        if (cap < 1 || cap > RING_MAX_SAMPLES)
                return -EINVAL;
        r->samples = calloc(cap, sizeof(*r->samples));
        r->texts = calloc(RING_TEXT_SLOTS, sizeof(*r->texts));
        if (!r->samples || !r->texts) {
                ring_fini(r);
                return -ENOMEM;
        }
        r->cap = cap;
        r->nfans = nfans > RING_FANS ? RING_FANS : nfans;
        return 0;
}

void ring_fini(struct gpu_ring *r)
{
        free(r->samples);
        free(r->texts);
        memset(r, 0, sizeof(*r));
}

size_t ring_memory_bytes(const struct gpu_ring *r)
{
        if (!r->samples)
                return 0;
        return r->cap * sizeof(*r->samples) + RING_TEXT_SLOTS * sizeof(*r->texts);
}

/* A value in [lo, hi], rounded: true and *ret set when valid. */
static bool as_int(double v, double lo, double hi, long *ret)
{
        if (!VAL_OK(v) || v < lo || v > hi)
                return false;
        *ret = lrint(v);
        return true;
}

#define STORE(sample, field, bit, value, lo, hi)                                                   \
        do {                                                                                       \
                long v_;                                                                           \
                if (as_int((value), (lo), (hi), &v_)) {                                            \
                        (sample)->field = (__typeof__((sample)->field))v_;                         \
                        (sample)->valid |= (bit);                                                  \
                }                                                                                  \
        } while (0)

static void fill(struct ring_sample *s, const struct gpu_frame *g)
{
        STORE(s, temp_c, RS_TEMP, g->temp_c, -32768, 32767);
        STORE(s, temp_max_c, RS_TEMP_MAX, g->temp_max_c, -32768, 32767);
        STORE(s, power_mw, RS_POWER, g->power_w * 1000.0, 0, 4e9);
        STORE(s, limit_mw, RS_LIMIT, g->power_limit_w * 1000.0, 0, 4e9);
        STORE(s, pstate, RS_PSTATE, g->pstate, 0, 255);
        STORE(s, gpu_clock_mhz, RS_GPU_CLOCK, g->gpu_clock_mhz, 0, 65535);
        STORE(s, mem_clock_mhz, RS_MEM_CLOCK, g->mem_clock_mhz, 0, 65535);
        STORE(s, util_gpu_pct, RS_UTIL_GPU, g->util_gpu_pct, 0, 255);
        STORE(s, util_mem_pct, RS_UTIL_MEM, g->util_mem_pct, 0, 255);
        STORE(s, vram_used_mib, RS_VRAM, floor(g->vram_used_bytes / 1048576.0), 0, 4e9);
        STORE(s, pcie_gen, RS_PCIE_GEN, g->pcie_gen, 0, 255);
        STORE(s, pcie_width, RS_PCIE_WIDTH, g->pcie_width, 0, 255);
        STORE(s, s0_temp_c, RS_S0_TEMP, g->s0_temp, -32768, 32767);
        STORE(s, s0_target, RS_S0_TARGET, g->s0_target, -32768, 32767);
        STORE(s, s0_controller, RS_S0_CONTROLLER, g->s0_controller, 0, 255);
        if (g->throttle_valid) {
                s->throttle_mask = g->throttle_mask;
                s->valid |= RS_THROTTLE;
        }
        unsigned nf = g->nfans < RING_FANS ? g->nfans : RING_FANS;
        for (unsigned k = 0; k < nf; k++) {
                double sp = g->fan_speed_pct[k] > 255 ? 255 : g->fan_speed_pct[k];
                double tg = g->fan_target_pct[k] > 255 ? 255 : g->fan_target_pct[k];
                STORE(s, fan_speed_pct[k], RS_FAN_SPEED(k), sp, 0, 255);
                STORE(s, fan_target_pct[k], RS_FAN_TARGET(k), tg, 0, 255);
        }
}

static void add_text(struct gpu_ring *r, uint64_t seq, const char *a, const char *b)
{
        struct ring_text *t = &r->texts[r->texts_added % RING_TEXT_SLOTS];
        t->seq = seq;
        size_t n = copy_bounded(t->text, sizeof(t->text), a, strlen(a));
        copy_bounded(t->text + n, sizeof(t->text) - n, b, strlen(b));
        r->texts_added++;
}

VIGIL_HOT void ring_push(struct gpu_ring *r, const struct gpu_frame *g)
{
        if (!r->samples)
                return;
        uint64_t seq = r->pushed;
        struct ring_sample *s = &r->samples[seq % r->cap];
        memset(s, 0, sizeof(*s));
        s->real_ns = g->sampled_real_ns;
        if (!g->ok) {
                s->failed = 1;
                add_text(r, seq, "NVML_FAILED:", g->error);
        } else {
                fill(s, g);
                if (g->flags[0])
                        add_text(r, seq, g->flags, "");
        }
        r->pushed++;
}

size_t ring_count(const struct gpu_ring *r)
{
        return r->pushed < r->cap ? (size_t)r->pushed : r->cap;
}

static uint64_t seq_of(const struct gpu_ring *r, size_t i)
{
        return r->pushed - ring_count(r) + i;
}

const struct ring_sample *ring_get(const struct gpu_ring *r, size_t i)
{
        if (i >= ring_count(r))
                return NULL;
        return &r->samples[seq_of(r, i) % r->cap];
}

const char *ring_text_of(const struct gpu_ring *r, size_t i)
{
        if (i >= ring_count(r))
                return "";
        uint64_t seq = seq_of(r, i);
        size_t held = r->texts_added < RING_TEXT_SLOTS ? (size_t)r->texts_added : RING_TEXT_SLOTS;
        for (size_t k = 0; k < held; k++) {
                const struct ring_text *t = &r->texts[(r->texts_added - 1 - k) % RING_TEXT_SLOTS];
                if (t->seq == seq)
                        return t->text;
                if (t->seq < seq)
                        break; /* texts are in sample order: older from here on */
        }
        return "";
}
