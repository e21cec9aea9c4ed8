/* SPDX-License-Identifier: Apache-2.0 */
/* Clock-event (throttle) reasons: NVML's bit mask, the reference logger's names and the
 * /metrics label values, in one table. */
#ifndef VIGIL_CORE_THROTTLE_REASONS_H
#define VIGIL_CORE_THROTTLE_REASONS_H

#include <stdint.h>

#include "core/frame.h"
#include "util/strbuf.h"

/* One reason bit (entry i is bit 1 << i). */
struct throttle_reason {
        /* The reference's THROTTLE_REASONS name: CSV cells, events.log, findings. */
        const char *name;
        /* The /metrics "reason" label value, or NULL for a bit nvml.h does not define
         * (the reference's UserDefinedClocks, 0x200), which /metrics leaves out. */
        const char *label;
};

/* GpuIdle, AppClocks, SwPowerCap, HwSlowdown, SyncBoost, SwThermalSlowdown,
 * HwThermalSlowdown, HwPowerBrakeSlowdown, DisplayClocks, UserDefinedClocks. */
extern const struct throttle_reason throttle_reasons[GPU_THROTTLE_BITS];

/* Append the reference's decode_throttle(mask): "None" for 0, the names of the known
 * bits joined by '|', or "Unknown(0x..)" (lower-case hex) when no known bit is set. */
void throttle_decode(struct strbuf *sb, uint64_t mask);

#endif
