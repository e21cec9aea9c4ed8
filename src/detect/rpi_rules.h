/* SPDX-License-Identifier: Apache-2.0 */
/* Raspberry Pi rules: a table of conditions evaluated on every host sample, each with
 * a state, hysteresis where a value wobbles around its threshold, and one events.log
 * line per change of state:
 *   temperature     warm at temp_warn_c, hot at temp_crit_c (clears 2 °C below each)
 *   under_voltage, arm_frequency_capped, throttled, soft_temperature_limit
 *                   throttled bits 0-3, named as /metrics names them (core/rpi_throttle.h)
 *   arm_below_max   the measured ARM clock more than 5 % under the clock it should run
 *                   at (the firmware's maximum, or the kernel's request when lower)
 *                   for 3 samples in a row (the governor moves the clock); back at
 *                   3 % under, also for 3 samples
 *   shm_full        /dev/shm at shm_full_pct or more (clears 2 points below); watched
 *                   on every machine, Pi or not (its lines say type=SHM)
 *   fs_readonly, storage_errors, fs_filling: storage health, every machine
 *                   (detect/storage_rules.h)
 * A rule whose input is missing keeps its state. The throttled word also gives a line
 * at start naming the conditions that occurred since boot, and one for a condition
 * that came and went between two samples (its sticky bit appeared alone). */
#ifndef VIGIL_DETECT_RPI_RULES_H
#define VIGIL_DETECT_RPI_RULES_H

#include <stdint.h>

#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "util/strbuf.h"

enum rpi_level { RPI_LEVEL_OK, RPI_LEVEL_WARN, RPI_LEVEL_CRIT };

struct rpi_thresholds {
        double temp_warn_c, temp_crit_c, temp_clear_c; /* clear: hysteresis in °C */
        double shm_full_pct, shm_clear_pct;            /* clear: hysteresis in points */
        double arm_below_ratio, arm_clear_ratio;       /* below when arm < target*ratio */
};

struct rpi_rule {
        const char *name;
        unsigned bit;     /* throttle bit rules: the bit */
        unsigned confirm; /* consecutive samples at a new level before it counts (>= 1) */
        /* The level for frame f given the previous one; -1 when an input is missing. */
        int (*evaluate)(const struct rpi_rule *r, const struct frame *f,
                        const struct rpi_thresholds *th, enum rpi_level prev);
        /* The events.log line for a change to lvl. */
        void (*describe)(const struct rpi_rule *r, const struct frame *f,
                         const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb);
};

extern const struct rpi_rule rpi_rules[];
extern const unsigned rpi_nrules;

/* Thresholds from the options (temp_warn_c, temp_crit_c, shm_full_pct) and the fixed
 * hysteresis margins above. */
void rpi_thresholds_from_options(struct rpi_thresholds *th, const struct vigil_options *o);

/* Where lines go: fn(arg, real_ns, line) for each line (no newline, no timestamp). */
typedef void (*rpi_rules_sink_fn)(void *arg, int64_t real_ns, const char *line);

struct rpi_rules_state;

/* A rule set with every rule at RPI_LEVEL_OK and no sink. NULL on ENOMEM. Free with
 * rpi_rules_free (accepts NULL). */
struct rpi_rules_state *rpi_rules_new(const struct rpi_thresholds *th);
void rpi_rules_free(struct rpi_rules_state *st);

/* Send lines to fn(arg, ...) from now on; fn NULL drops them. st is the detector's
 * state (what vigil_detector_rpi_rules.init returned) or one from rpi_rules_new. */
void rpi_rules_set_sink(void *st, rpi_rules_sink_fn fn, void *arg);

/* Evaluate every rule on f and emit a line for each change. Returns lines emitted. */
unsigned rpi_rules_eval(struct rpi_rules_state *st, const struct frame *f, int64_t real_ns);

/* The current level of rule i (index into rpi_rules). */
enum rpi_level rpi_rules_level(const struct rpi_rules_state *st, unsigned i);

/* The detector: rpi_rules_eval on every host tick. */
extern const struct vigil_detector vigil_detector_rpi_rules;

#endif
