/* SPDX-License-Identifier: Apache-2.0 */
/* The firmware's throttled word, in the reference monitor's words. Bits 0-3 are
 * conditions now, bits 16-19 the same conditions "has occurred since boot" (sticky). */
#ifndef VIGIL_CORE_RPI_THROTTLE_H
#define VIGIL_CORE_RPI_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

#define RPI_THROTTLE_NOW_MASK     0x0000000fu
#define RPI_THROTTLE_STICKY_MASK  0x000f0000u
#define RPI_THROTTLE_STICKY_SHIFT 16

/* The one /metrics name of each condition bit (0-3; bit + 16 is the same condition since
 * boot): the condition label of vigil_rpi_throttled and the rule label of
 * vigil_rule_active. In the words of the Raspberry Pi documentation of vcgencmd
 * get_throttled (FACTS.md: "0 under-voltage now, 1 ARM frequency capped, 2 throttled
 * now, 3 soft temperature limit"), as the shipped alert rules and dashboard query them. */
#define RPI_COND_UNDER_VOLTAGE   "under_voltage"
#define RPI_COND_ARM_FREQ_CAPPED "arm_frequency_capped"
#define RPI_COND_THROTTLED       "throttled"
#define RPI_COND_SOFT_TEMP_LIMIT "soft_temperature_limit"

/* The label of one known bit without its NOW:/HAS: prefix ("under-voltage",
 * "arm frequency capping occurred"), or NULL for a bit with no meaning. */
const char *rpi_throttle_label(unsigned bit);

/* The reference's throttle_flags cell: "NOW:<label>" / "HAS:<label>" for each set
 * bit, in the order 0,1,2,3,16,17,18,19, joined with ','; "" for none. Unknown bits
 * are not named. Returns the length; a label that does not fit in cap is left out
 * whole, with the ones after it. */
size_t rpi_throttle_flags(uint32_t word, char *out, size_t cap);

/* Whether the frame's word has sticky bits that mean "since boot": a whole word read
 * by gencmd or vcgencmd get_throttled. Through the property tag the kernel's rpi_volt
 * driver clears them every 2 s (raspberrypi/linux drivers/hwmon/raspberrypi-hwmon.c). */
bool rpi_frame_sticky_reliable(const struct rpi_frame *p);

/* The throttle_flags cell of a frame: rpi_throttle_flags() of its word, without the
 * HAS: flags when they are not reliable; with no word, "NOW:under-voltage" when the
 * rpi_volt alarm is set, else "". Returns the length. */
size_t rpi_frame_flags(const struct rpi_frame *p, char *out, size_t cap);

/* A throttle_flags cell (rpi_throttle_flags()'s words) in brief, for a narrow screen:
 * "UV,THR had:UV,THR" for the four flags of 0x50005 (under-voltage UV, ARM frequency
 * capped CAP, throttled THR, soft temperature limit SOFT; now, then "had:" since boot);
 * a flag it does not know is copied as it is, last. Returns the length (cut at cap - 1
 * bytes). */
size_t rpi_throttle_flags_brief(const char *flags, char *out, size_t cap);

/* The reference's throttled_raw cell, as Python's hex(): "0x50000", "0x0". */
size_t rpi_throttle_hex(uint32_t word, char *out, size_t cap);

/* The sticky conditions, for a start-up line: "under-voltage occurred since boot,
 * throttling occurred since boot"; "" when none. Returns the length (cut like
 * rpi_throttle_flags). */
size_t rpi_throttle_since_boot(uint32_t word, char *out, size_t cap);

/* One change of a NOW bit between two words. */
struct rpi_throttle_change {
        unsigned bit;      /* 0..3 */
        bool set;          /* true: became set; false: cleared */
        const char *label; /* rpi_throttle_label(bit) */
};

/* The NOW bits (0-3) that differ between prev and cur, in bit order, into out[0..cap).
 * Returns the number of changes (at most 4). */
unsigned rpi_throttle_transitions(uint32_t prev, uint32_t cur, struct rpi_throttle_change *out,
                                  unsigned cap);

/* Sticky bits set in cur but not in prev whose NOW bit was set in neither word: the
 * condition came and went between two samples. Returned as the NOW bit mask (0-3). */
uint32_t rpi_throttle_missed(uint32_t prev, uint32_t cur);

#endif
