/* The Prometheus text exposition format (version 0.0.4) of a frame: what GET /metrics
 * serves. Rendering is pure: it reads a frame copy and the counters that live outside
 * the frame (struct metrics_extra) and never samples.
 *
 * Names follow Prometheus conventions: prefix vigil_, base units (celsius, watts,
 * bytes, seconds, hertz, ratio 0-1), _total on counters, _info for metadata. A missing
 * value (NAN) has no sample; a family without samples is left out entirely. */
#ifndef VIGIL_SINK_METRICS_H
#define VIGIL_SINK_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

#define METRICS_MAX_XIDS          64 /* distinct Xid codes counted per GPU */
#define METRICS_MAX_ANOMALY_TYPES 16 /* distinct anomaly types counted per GPU */
#define METRICS_MAX_RULES         16 /* host rules reported */
#define METRICS_NAME_LEN          32 /* anomaly type and rule names, NUL included */
#define METRICS_NREASONS          9  /* known clock-event reason bits (0x1 .. 0x100) */
#define METRICS_NEVENT_TYPES      7  /* NVML event types counted (metrics_event_names) */

/* Counters of one GPU (same slot as frame->gpus[]). Filled by the main loop. */
struct metrics_gpu_extra {
        uint64_t nvml_failures; /* samples in which NVML failed */
        unsigned nxids;         /* used entries of xids[] */
        struct {
                uint32_t xid;
                uint64_t count;
        } xids[METRICS_MAX_XIDS];
        uint64_t xids_other; /* Xids whose code found no free entry */
        unsigned nanomalies; /* used entries of anomalies[] */
        struct {
                char type[METRICS_NAME_LEN]; /* snake_case: "fan_spike", "tdp_reduced" */
                uint64_t count;
        } anomalies[METRICS_MAX_ANOMALY_TYPES];
        /* Seconds spent with each clock-event reason bit set (index = bit number). */
        double reason_seconds[METRICS_NREASONS];
        /* NVML events received, by type (index: enum metrics_event_type). */
        uint64_t events[METRICS_NEVENT_TYPES];
};

/* The NVML event types vigil listens for, as counted in events[]. */
enum metrics_event_type {
        METRICS_EV_SINGLE_BIT_ECC,
        METRICS_EV_DOUBLE_BIT_ECC,
        METRICS_EV_PSTATE,
        METRICS_EV_XID,
        METRICS_EV_CLOCK,
        METRICS_EV_GPU_UNAVAILABLE,
        METRICS_EV_GPU_RECOVERY_ACTION,
};

/* One host rule (the Raspberry Pi monitor's temperature warning, throttling, /dev/shm
 * full, ...): vigil_rule_active{rule} and vigil_rule_fired_total{rule}. */
struct metrics_rule {
        char name[METRICS_NAME_LEN]; /* snake_case: "temp_warn", "shm_full" */
        bool active;                 /* the condition holds now */
        uint64_t fired;              /* times it became active */
};

/* Everything /metrics shows that the frame does not hold. Plain arrays with bounds, so
 * the main loop can update it in place and the HTTP thread copy it under one lock. */
struct metrics_extra {
        struct metrics_gpu_extra gpus[VIGIL_MAX_GPUS];
        unsigned nrules;
        struct metrics_rule rules[METRICS_MAX_RULES];
        uint64_t snapshots_suppressed;    /* snapshots the cooldowns held back */
        uint64_t event_listener_restarts; /* NVML event set rebuilt after a failure */
};

/* The names of the event types, as label values ("single_bit_ecc", "double_bit_ecc",
 * "pstate", "xid", "clock", "gpu_unavailable", "gpu_recovery_action"). */
extern const char *const metrics_event_names[METRICS_NEVENT_TYPES];

/* The names of the known clock-event reason bits, as label values (bit i = 1 << i). */
extern const char *const metrics_reason_names[METRICS_NREASONS];

/* Append the exposition of frame f (and x, may be NULL) to out. Families appear in a
 * fixed order, each with one # HELP and one # TYPE line. Returns 0, or -ENOBUFS when
 * out overflowed its bound (the output is then incomplete and must not be served). */
int metrics_render(struct strbuf *out, const struct frame *f, const struct metrics_extra *x);
/* The storage health families of s (metrics_storage.c), appended to out. */
void metrics_render_storage(struct strbuf *out, const struct storage_frame *s);

/* Format a sample value as Prometheus reads it: integers without a fraction, other
 * values with the fewest digits (up to 17) that read back to the same double, "+Inf",
 * "-Inf", "NaN". Writes at most cap bytes (NUL included). Returns the length. */
size_t metrics_fmt_value(char *out, size_t cap, double v);

/* Append s to out as a label value: backslash, double quote and newline escaped, other
 * control bytes and invalid UTF-8 replaced by '?'. */
void metrics_put_label_value(struct strbuf *out, const char *s);

/* Clear all counters and rules. */
void metrics_extra_clear(struct metrics_extra *x);

/* Count one Xid on GPU slot gpu. Codes past METRICS_MAX_XIDS distinct ones go to
 * xids_other. 0, or -EINVAL for a bad slot. */
int metrics_extra_add_xid(struct metrics_extra *x, unsigned gpu, uint32_t xid);

/* Count one NVML event of type on GPU slot gpu. -EINVAL for a bad slot or type. */
int metrics_extra_add_event(struct metrics_extra *x, unsigned gpu, enum metrics_event_type type);

/* Count one anomaly of the given type on GPU slot gpu. -ENOSPC when the type is new and
 * the table is full, -EINVAL for a bad slot or an empty or too long type. */
int metrics_extra_add_anomaly(struct metrics_extra *x, unsigned gpu, const char *type);

/* Add seconds to every reason bit set in mask (the clock-event reasons of the interval
 * that just ended). -EINVAL for a bad slot. */
int metrics_extra_add_reason_seconds(struct metrics_extra *x, unsigned gpu, uint64_t mask,
                                     double seconds);

/* Set the state of a host rule, adding it on first use; a transition to active
 * counts as fired. -ENOSPC when the table is full, -EINVAL for a bad name. */
int metrics_extra_set_rule(struct metrics_extra *x, const char *name, bool active);

#endif
