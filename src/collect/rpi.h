/* SPDX-License-Identifier: Apache-2.0 */
/* The Raspberry Pi source: SoC temperature, measured clocks, core voltage, the ARM's
 * maximum clock and the firmware's throttled word, into frame->rpi on the host clock.
 *
 * Each value comes from the first of these that has it, and frame->rpi records which
 * (temp_src, volt_src, clock_src for arm_hz, throttle_src):
 *   1. gencmd: the reference monitor's own vcgencmd commands sent as the firmware's
 *      text commands (tag 0x00030080) through ROOT/dev/vcio_gencmd, else ROOT/dev/vcio,
 *      opened read-only as vcgencmd opens them; one ioctl per command. The answers are
 *      parsed as vcgencmd's, so each value is what the reference's calls print;
 *   2. property tags through ROOT/dev/vcio (one request per sample) for what gencmd
 *      cannot give: the ARM's maximum clock always, the rest only when gencmd did not
 *      answer; get_throttled never while gencmd answers (its since-boot bits are
 *      cleared through the tag every 2 s by the kernel's rpi_volt driver);
 *   3. sysfs: the cpu-thermal zone, the rpi_volt chip's in0_input (mainline; only
 *      within 0.2-2.5 V), cpuinfo_max_freq for the maximum. Never scaling_cur_freq for
 *      the ARM clock: arm_hz is a measured clock or missing. The rpi_volt
 *      in0_lcrit_alarm goes to undervolt_alarm, never into a made-up throttled word;
 *   4. a spawned vcgencmd, only when no vcio node can be opened at start (one run per
 *      value, all within 5 s per sample).
 * V3D per-queue busy ratios come from the v3d driver's gpu_stats file where present.
 * A machine that is not a Raspberry Pi has no such source (init returns -ENODEV). */
#ifndef VIGIL_COLLECT_RPI_H
#define VIGIL_COLLECT_RPI_H

#include <stdbool.h>

#include "collect/rpi_transport.h"
#include "core/vigil.h"

extern const struct vigil_source vigil_source_rpi;

/* init with a chosen transport for every node (NULL: rpi_transport_pick() per node).
 * Same contract as vigil_source.init; the state is freed by rpi_source_close(). */
int rpi_source_open(struct vigil_ctx *ctx, const struct rpi_transport_ops *ops, void **ret_state);
int rpi_source_sample(void *state, struct vigil_ctx *ctx, const struct tick *t);
void rpi_source_close(void *state);

/* A message the daemon should log once (why no firmware node could be opened, naming
 * the device and what grants it), or NULL. take returns it only the first time; the
 * string lives as long as the state. rpi_source_diagnostic() peeks without taking. */
const char *rpi_source_diagnostic(const void *state);
const char *rpi_source_take_diagnostic(void *state);

/* The RPI_V_BIT mask of values the property tags may be asked for (on a Pi 5 and
 * later, only the tags the firmware answered when probed at start). */
unsigned rpi_source_mailbox_mask(const void *state);

/* True when no vcio node could be opened and vcgencmd stands in for them. */
bool rpi_source_uses_vcgencmd(const void *state);

/* The node gencmd goes through (ROOT/dev/vcio_gencmd or ROOT/dev/vcio), or NULL when
 * gencmd is not used (no node, or the firmware or node refused it). */
const char *rpi_source_gencmd_node(const void *state);

#endif
