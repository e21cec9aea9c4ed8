/* The Raspberry Pi source: SoC temperature, measured clocks, core voltage, the ARM's
 * maximum clock and the firmware's throttled word, into frame->rpi on the host clock.
 *
 * Each value comes from the first of these that has it, and frame->rpi records which
 * (temp_src, volt_src, clock_src for arm_hz, throttle_src):
 *   1. the firmware mailbox (ROOT/dev/vcio): every value in one request per sample;
 *   2. sysfs: the cpu-thermal zone, the rpi_volt hwmon chip (in0_input when the kernel
 *      has it; in0_lcrit_alarm gives bit 0 of the throttled word only: under-voltage
 *      now), cpufreq (scaling_cur_freq is the kernel's request, not a measurement;
 *      cpuinfo_max_freq for the maximum);
 *   3. vcgencmd, only when the mailbox cannot be opened at start (one run per value,
 *      all within 5 s per sample; for the throttled word it comes before sysfs,
 *      whose word is partial).
 * V3D per-queue busy ratios come from the v3d driver's gpu_stats file where present.
 * A machine that is not a Raspberry Pi has no such source (init returns -ENODEV). */
#ifndef VIGIL_COLLECT_RPI_H
#define VIGIL_COLLECT_RPI_H

#include <stdbool.h>

#include "collect/rpi_transport.h"
#include "core/vigil.h"

extern const struct vigil_source vigil_source_rpi;

/* init with a chosen transport (NULL: rpi_transport_pick(ROOT/dev/vcio)). Same
 * contract as vigil_source.init; the state is freed by rpi_source_close(). */
int rpi_source_open(struct vigil_ctx *ctx, const struct rpi_transport_ops *ops, void **ret_state);
int rpi_source_sample(void *state, struct vigil_ctx *ctx, const struct tick *t);
void rpi_source_close(void *state);

/* A message the daemon should log once (why the mailbox could not be opened and what
 * fixes it, e.g. membership of the `video` group), or NULL. Returns it only the first
 * time; the string lives as long as the state. */
/* The pending diagnostic without taking it (NULL when none). */
const char *rpi_source_diagnostic(const void *state);
const char *rpi_source_take_diagnostic(void *state);

/* The RPI_V_BIT mask of values asked of the mailbox each sample (on a Pi 5 and later,
 * only the tags the firmware answered when probed at start). */
unsigned rpi_source_mailbox_mask(const void *state);

/* True when the mailbox could not be opened and vcgencmd stands in for it. */
bool rpi_source_uses_vcgencmd(const void *state);

#endif
