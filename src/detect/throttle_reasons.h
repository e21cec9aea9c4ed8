/* Clock-event (throttle) reasons: NVML's bit mask and the reference logger's names. */
#ifndef VIGIL_DETECT_THROTTLE_REASONS_H
#define VIGIL_DETECT_THROTTLE_REASONS_H

#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

/* The reference's THROTTLE_REASONS names, bit i = 1 << i: GpuIdle, AppClocks, SwPowerCap,
 * HwSlowdown, SyncBoost, SwThermalSlowdown, HwThermalSlowdown, HwPowerBrakeSlowdown,
 * DisplayClocks, UserDefinedClocks. */
extern const char *const throttle_reason_names[GPU_THROTTLE_BITS];

/* Append the reference's decode_throttle(mask): "None" for 0, the names of the known
 * bits joined by '|', or "Unknown(0x..)" (lower-case hex) when no known bit is set. */
void throttle_decode(struct strbuf *sb, uint64_t mask);

#endif
