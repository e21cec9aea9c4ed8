/* SPDX-License-Identifier: Apache-2.0 */
/* When a finding is a firing alert. A finding is what happened in the run so far, not
 * a state, so this remembers each one between evaluations:
 *
 *   - one with an open state (open_t set: a GPU lost, GPUs missing) fires while it is
 *     open, and is resolved at the evaluation that finds it closed;
 *   - any other fires from each time it is seen anew (counted again, a later last
 *     time, a larger value such as a share of time throttled) until keep_ms has
 *     passed without that, as a Prometheus rule with keep_firing_for over an
 *     increase() would (rules/alerting.go, KeepFiringSince).
 *
 * Main loop only. A zeroed struct with keep_ms set is ready. */
#ifndef VIGIL_PUSH_AM_EVAL_H
#define VIGIL_PUSH_AM_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/findings.h"

#define AM_EVAL_MAX (2 * FINDINGS_MAX)

struct am_track {
        enum finding_kind kind;
        char source[FINDING_SRC_LEN];
        char key[FINDING_KEY_LEN];
        uint64_t count;
        double last_t;
        double value;
        bool open;         /* its state was open at the last look */
        int64_t change_ms; /* when it was last seen anew; 0: cleared */
};

struct am_eval {
        int64_t keep_ms; /* keep_firing_for */
        size_t n;
        struct am_track t[AM_EVAL_MAX];
};

/* Whether x fires at mono_ms (CLOCK_MONOTONIC ms, > 0), remembering what it saw. A
 * finding beyond AM_EVAL_MAX remembered ones never fires. */
bool am_eval_fires(struct am_eval *e, const struct finding *x, int64_t mono_ms);

#endif
