/* SPDX-License-Identifier: Apache-2.0 */
/* The signage player's rules: one events.log line per change of state of
 *   a screen       DISPLAY (connected / disconnected), DISPLAY_DPMS (its DPMS state
 *                  while connected), DISPLAY_MONITOR (a different EDID identity)
 *   the TV         DISPLAY_CEC (its HDMI-CEC power status; at start too when not on)
 *   the network    NETWORK_LINK (an interface's link), NETWORK (offline: no interface
 *                  with a link, or no default route; at start too when offline)
 *   the card       SD_WEAR (worn: eMMC PRE_EOL_INFO warning or urgent, a life time
 *                  estimate of 90% or more, or its rated endurance written within
 *                  SD_WEAR_DAYS at the current rate; at start too when worn)
 * A value that is missing keeps its state; a connector or interface is remembered by
 * its name. Nothing is said of a state first seen at start but the three above: an
 * unused second HDMI port is disconnected from the first sample on. */
#ifndef VIGIL_DETECT_SIGNAGE_RULES_H
#define VIGIL_DETECT_SIGNAGE_RULES_H

#include <stdint.h>

#include "core/frame.h"

#define SD_WEAR_DAYS 365.0

/* Where lines go: fn(arg, real_ns, line) for each line (no newline, no timestamp). */
typedef void (*signage_sink_fn)(void *arg, int64_t real_ns, const char *line);

struct signage_rules;

/* Rules with nothing seen yet. NULL on ENOMEM. Free with signage_rules_free(). */
struct signage_rules *signage_rules_new(void);
void signage_rules_free(struct signage_rules *st);

/* Evaluate frame f, seen at real_ns, and send a line per change to fn. Returns the
 * number of lines sent. */
unsigned signage_rules_step(struct signage_rules *st, const struct frame *f, int64_t real_ns,
                            signage_sink_fn fn, void *arg);

#endif
