/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's health verdict (core/health.h): kept in ctx->health, fed by the events
 * tap, advanced and announced by the health detector, persisted in
 * LOG-DIR/health.state. Also what `vigil health clear` uses when no daemon runs.
 *
 * Each host tick the detector: names the GPUs and the Pi watched, lets the answering
 * GPUs start their proofs, takes a person's clear asked for in LOG-DIR/health-clear.request
 * (`vigil health clear` writes it while a daemon runs), advances the proofs, writes one
 * HEALTH line per change of a component's state or action, saves the state file when
 * anything changed, and copies the states to the counters (vigil_health_state). */
#ifndef VIGIL_DETECT_HEALTH_WATCH_H
#define VIGIL_DETECT_HEALTH_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/health.h"
#include "core/vigil.h"

/* The request file a running daemon takes a person's clear from: one line,
 * "COMPONENT<TAB>REASON". */
#define HEALTH_CLEAR_REQUEST "health-clear.request"

struct eventlog;

/* Allocate ctx->health and its published copy for this boot (its id read under root)
 * with the Xid catalog's actions, and load LOG-DIR/health.state when there is one. Main
 * thread, after the events tap is set and before any plug-in writes a line. Without
 * memory the daemon runs without a verdict. */
void health_watch_start(struct vigil_ctx *ctx);

/* Free ctx->health and its copy. */
void health_watch_free(struct vigil_ctx *ctx);

/* Load dir's verdict for this boot (the boot id read under root) into *h, with the Xid
 * catalog's actions. 0, or health_load()'s error (h then empty). */
int health_watch_load(struct health *h, const char *root, const char *dir);

/* A person clears component with reason at Unix time now: a HEALTH_CLEARED line on el
 * (whose tap must feed h; el NULL: h is cleared directly), then the HEALTH lines of what
 * changed. Returns the entries cleared. */
int health_watch_clear(struct health *h, struct eventlog *el, const char *component,
                       const char *reason, double now);

/* An events.log tap (core/eventlog.h) that feeds the struct health at arg. */
void health_watch_tap(void *arg, int64_t real_ns, const char *text, size_t len);

/* Write one HEALTH line on el per component whose state or action changed. */
void health_watch_announce(struct health *h, struct eventlog *el, double now);

extern const struct vigil_detector vigil_detector_health;

#endif
