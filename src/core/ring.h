/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder: the last few minutes of one GPU's samples at full rate, in
 * memory, so a crash snapshot can show what led up to it even when the CSV on disk
 * is sampled the same way but was not yet flushed, or the disk is full.
 *
 * Memory, fixed and allocated once by ring_init():
 *   struct ring_sample is 72 bytes (timestamp, a validity bitmask and the numeric
 *   GPU fields the reference logger's CSV holds, as integers in their CSV units, so
 *   a row reads back exactly as the CSV wrote it), plus a side ring of
 *   RING_TEXT_SLOTS text entries (128 bytes each) for the rare samples with anomaly
 *   flags or an NVML error.
 *   Capacity = window / gpu-interval, at most RING_MAX_SAMPLES: 5 min at 100 ms is
 *   3000 samples = 216,000 bytes + 8,192 bytes = about 219 KiB per GPU
 *   (8 GPUs: 1.75 MiB). At 1 s the same window takes 300 samples (about 30 KiB).
 *   Faster than 100 ms, the window shrinks to RING_MAX_SAMPLES samples.
 *
 * Main-loop only (no locking): push after each GPU sample, dump in a snapshot
 * (encode/ring_csv.h writes the dump). */
#ifndef VIGIL_CORE_RING_H
#define VIGIL_CORE_RING_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

#define RING_MAX_SAMPLES 3000
#define RING_WINDOW_NS   (300LL * 1000000000LL) /* 5 minutes */
#define RING_TEXT_SLOTS  64
#define RING_TEXT_MAX    120
#define RING_FANS        VIGIL_MAX_FANS

/* One sample, compact. A field is valid when its RS_* bit is set in valid. */
struct ring_sample {
        int64_t real_ns;        /* wall time of the sample */
        uint64_t throttle_mask; /* clock-event reasons */
        uint32_t valid;         /* RS_* bits; fan k: RS_FAN_SPEED(k), RS_FAN_TARGET(k) */
        uint32_t power_mw;      /* power draw, milliwatts */
        uint32_t limit_mw;      /* power management limit, milliwatts */
        uint32_t vram_used_mib; /* MiB, as the CSV's vram_used_mb */
        int16_t temp_c, temp_max_c, s0_temp_c, s0_target;
        uint16_t gpu_clock_mhz, mem_clock_mhz;
        uint8_t util_gpu_pct, util_mem_pct, pstate, pcie_gen, pcie_width, s0_controller;
        uint8_t failed; /* the GPU failed every call (its error is in the text ring) */
        uint8_t pad;
        uint8_t fan_speed_pct[RING_FANS]; /* clamped to 0..255 */
        uint8_t fan_target_pct[RING_FANS];
};

enum ring_field {
        RS_TEMP = 1u << 0,
        RS_TEMP_MAX = 1u << 1,
        RS_POWER = 1u << 2,
        RS_LIMIT = 1u << 3,
        RS_PSTATE = 1u << 4,
        RS_GPU_CLOCK = 1u << 5,
        RS_MEM_CLOCK = 1u << 6,
        RS_UTIL_GPU = 1u << 7,
        RS_UTIL_MEM = 1u << 8,
        RS_VRAM = 1u << 9,
        RS_PCIE_GEN = 1u << 10,
        RS_PCIE_WIDTH = 1u << 11,
        RS_THROTTLE = 1u << 12,
        RS_S0_TEMP = 1u << 13,
        RS_S0_TARGET = 1u << 14,
        RS_S0_CONTROLLER = 1u << 15,
};
#define RS_FAN_SPEED(k)  (1u << (16 + 2 * (k)))
#define RS_FAN_TARGET(k) (1u << (17 + 2 * (k)))

struct ring_text {
        uint64_t seq; /* the sample it belongs to */
        char text[RING_TEXT_MAX];
};

struct gpu_ring {
        struct ring_sample *samples; /* cap entries */
        struct ring_text *texts;     /* RING_TEXT_SLOTS entries */
        size_t cap;
        uint64_t pushed;      /* samples pushed since init; sample seq = push order */
        uint64_t texts_added; /* text entries added */
        unsigned nfans;       /* fan columns in the CSV dump */
};

/* Samples kept for a window at an interval: ceil(window / interval), at least 1, at
 * most RING_MAX_SAMPLES. */
size_t ring_capacity_for(int64_t window_ns, int64_t interval_ns);

/* Allocate a ring of cap samples (1..RING_MAX_SAMPLES) dumping nfans fan columns
 * (at most RING_FANS). 0, -EINVAL or -ENOMEM; free with ring_fini(). */
int ring_init(struct gpu_ring *r, size_t cap, unsigned nfans);
void ring_fini(struct gpu_ring *r);

/* Bytes of memory the ring holds (its allocations). */
size_t ring_memory_bytes(const struct gpu_ring *r);

/* Record one GPU sample (its frame after the GPU rules set the flags). Values are
 * stored in the CSV's units: whole degrees, MHz, percent, MiB, milliwatts; a missing
 * (NAN) value stays missing. The oldest sample is dropped when the ring is full. */
void ring_push(struct gpu_ring *r, const struct gpu_frame *g);

/* Samples held, and sample i (0 = oldest) or NULL past the end. */
size_t ring_count(const struct gpu_ring *r);
const struct ring_sample *ring_get(const struct gpu_ring *r, size_t i);
/* Sample i's flags or error text ("" when none). */
const char *ring_text_of(const struct gpu_ring *r, size_t i);

#endif
