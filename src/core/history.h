/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's memory: an in-memory ring of compact records of the charted values
 * over the last 15 minutes, and a ring of recent event markers (events.log lines).
 *
 * A record is not a frame (a frame is ~25 KB): it holds only what the dashboard draws,
 * as 4-byte floats and words: the values with a hist slot in the area tables
 * (core/host_values.c and the others: host CPU %, memory
 * available, temperature and /dev/shm used; the Pi's temperature, ARM clock and core
 * voltage and throttled word; count and PSS of each watch; per GPU temperature, power,
 * power limit, graphics and memory clocks, utilisation, VRAM used, the clock-event
 * (throttle) mask), and in code, per GPU, each fan's speed (a list as long as the GPU
 * has fans) and whether it was sampled, failed or raised an anomaly flag (the GPU's
 * state in the period, not a value).
 *
 * One record per host tick, or per every Nth host tick when the interval is shorter
 * than span / max_records (at 10 ms, every 100th: one record per second). Each value
 * of a record is the worst one seen over its period, as its hist slot
 * says: the highest temperature, power, CPU, PSS and process count, the lowest memory
 * available, clock, power limit and voltage, the union of throttle bits; in code, the
 * highest fan speed; so a 100 ms GPU spike between two host ticks is still
 * drawn. A GPU value the period did not sample keeps the last sample's.
 *
 * Memory, allocated once at the first push (again only if the number of GPUs, fans
 * or watches grows, which clears the ring): capacity x (8 + 4 x slots) bytes, with
 * slots = 9 + 2 x watches + per GPU (9 + fans) with today's hist slots;
 * capacity 900 at 1 s and faster. A Pi with two watches: 900 x 60 B = 54 KB; 8 GPUs
 * with 2 fans each: 900 x 396 B = 356 KB; 64 GPUs with 2 fans: 900 x 2860 B = 2.6 MB
 * (it grows with the GPUs present, not with VIGIL_MAX_GPUS). Markers:
 * 128 x 168 B = 21.5 KB. The enforced power limit of each GPU, which changes rarely, is
 * kept as its last HISTORY_LIMIT_STEPS changes (time and value), not in the records:
 * VIGIL_MAX_GPUS x (16 x 16 B + 8 B) = 66 KB where a slot per record would take 3.6 KB
 * per GPU. The HTTP thread keeps one copy of the same size to render
 * from, allocated at the first page request.
 *
 * Threads: history_push and history_add_marker run on the main loop; they take the
 * lock only to store a finished record or a marker (a memcpy of one record). Readers
 * in other threads take a copy with history_copy and read the copy. */
#ifndef VIGIL_CORE_HISTORY_H
#define VIGIL_CORE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "core/vigil.h"

#define HISTORY_SPAN_NS     (900LL * 1000000000LL) /* 15 minutes */
#define HISTORY_MAX_RECORDS 900
#define HISTORY_MAX_MARKERS 128
#define HISTORY_MARKER_LEN  160 /* bytes of a marker's text, NUL included */
#define HISTORY_LIMIT_STEPS 16  /* changes of the enforced power limit kept per GPU */

/* The values kept, one enum per area: the hist slots of the area's table
 * (core/host_values.c, rpi_values.c, watch_values.c, gpu_values.c), which also say how
 * each is reduced over a record's period. */
enum hist_host { HH_CPU_PCT, HH_MEM_AVAIL_BYTES, HH_SHM_USED_BYTES, HH_TEMP_C, HH_COUNT };
enum hist_rpi { HR_TEMP_C, HR_VOLT_V, HR_ARM_HZ, HR_THROTTLED, HR_COUNT };
enum hist_watch { HW_PROCS, HW_PSS_BYTES, HW_COUNT };

/* The GPU's: the hist slots of gpu_fields[] (core/gpu_values.c). */
enum hist_gpu {
        HG_TEMP_C,
        HG_POWER_W,
        HG_POWER_LIMIT_W,
        HG_GPU_CLOCK_MHZ,
        HG_MEM_CLOCK_MHZ,
        HG_UTIL_PCT,
        HG_VRAM_USED_B,
        HG_THROTTLE_MASK,
        HG_COUNT
};

/* history_gpu_flags() bits. */
#define HIST_GPU_SEEN    1u /* the GPU was present in the period */
#define HIST_GPU_FAILED  2u /* a sample of the period failed (NVML answered nothing) */
#define HIST_GPU_FLAGGED 4u /* a sample of the period raised anomaly flags */

struct history;

/* A history for a host interval of interval_ns, keeping span_ns (HISTORY_SPAN_NS) in
 * at most max_records (HISTORY_MAX_RECORDS) records. The ring itself is allocated at
 * the first push. NULL on ENOMEM or a bad argument. Free with history_free. */
struct history *history_new(int64_t interval_ns, int64_t span_ns, unsigned max_records);
/* Free h; accepts NULL. No other thread may use it any more. */
void history_free(struct history *h);

/* Main loop, once per tick after the detectors: fold the frame's values into the
 * record being built (GPU values when t->due has the GPU clock, the rest on the host
 * clock) and store the record every Nth host tick. Allocates the ring at the first
 * call; on ENOMEM nothing is recorded. h may be NULL. */
void history_push(struct history *h, const struct frame *f, const struct tick *t);

/* Main loop: add a marker at mono_ns with text[0..len) (cut to HISTORY_MARKER_LEN - 1
 * bytes, a newline ends it). The oldest marker goes when the ring is full. */
void history_add_marker(struct history *h, int64_t mono_ns, const char *text, size_t len);

/* Any thread: copy src into dst (a history of its own, from history_new) under src's
 * lock, (re)allocating dst's ring outside the lock when too small. 0 or -ENOMEM. */
int history_copy(struct history *dst, struct history *src);

/* ---- reading (the owner of a copy, or the main loop) ---- */

/* Records stored (0 until the first one is complete), oldest first: index 0. */
size_t history_count(const struct history *h);
/* The most records kept, the period of one record, and its host ticks. */
size_t history_capacity(const struct history *h);
int64_t history_period_ns(const struct history *h);
unsigned history_ticks_per_record(const struct history *h);
/* Bytes of the ring (records, the record being built and the markers). */
size_t history_bytes(const struct history *h);

/* CLOCK_MONOTONIC time of record i (the host tick that completed it). */
int64_t history_mono_ns(const struct history *h, size_t i);
/* The monotonic and wall-clock times of the last record, to place records and
 * markers on a wall-clock axis. false when there is no record. */
bool history_anchor(const struct history *h, int64_t *ret_mono_ns, int64_t *ret_real_ns);

/* Values of record i; NAN when missing (or out of range). */
double history_host(const struct history *h, size_t i, enum hist_host field);
double history_rpi(const struct history *h, size_t i, enum hist_rpi field);
/* The union of the throttled words of record i into *ret; false when none was read. */
bool history_rpi_throttled(const struct history *h, size_t i, uint32_t *ret);
double history_watch(const struct history *h, size_t i, unsigned watch, enum hist_watch field);
double history_gpu(const struct history *h, size_t i, unsigned gpu, enum hist_gpu field);
double history_gpu_fan(const struct history *h, size_t i, unsigned gpu, unsigned fan);
/* The union of clock-event reason bits of record i (0 when unknown). */
uint32_t history_gpu_mask(const struct history *h, size_t i, unsigned gpu);
/* The lowest enforced power limit (W) in effect at some time in record i's period,
 * from the GPU's kept changes (a step function); NAN before the first change kept
 * (never read, or older changes dropped: more than HISTORY_LIMIT_STEPS of them). */
double history_gpu_enforced(const struct history *h, size_t i, unsigned gpu);
/* HIST_GPU_* bits of record i. */
unsigned history_gpu_flags(const struct history *h, size_t i, unsigned gpu);

/* The layout of the records: watches, GPU slots and fans of each GPU. */
unsigned history_nwatches(const struct history *h);
unsigned history_ngpus(const struct history *h);
unsigned history_nfans(const struct history *h, unsigned gpu);

/* Markers stored, oldest first. history_marker returns the text of marker i (owned
 * by h, valid until h changes) and its time into *ret_mono_ns; NULL out of range. */
size_t history_nmarkers(const struct history *h);
const char *history_marker(const struct history *h, size_t i, int64_t *ret_mono_ns);

#endif
