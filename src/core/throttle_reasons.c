/* SPDX-License-Identifier: Apache-2.0 */
/* Throttle reason names. See throttle_reasons.h. */
#include "core/throttle_reasons.h"
#include "util/hot.h"

/* Bits 0x1 .. 0x100 are nvml.h's nvmlClocksEventReason* (FACTS.md, collect/nvml_api.h);
 * 0x200 is named only by the reference logger (seeds: THROTTLE_REASONS). */
const struct throttle_reason throttle_reasons[GPU_THROTTLE_BITS] = {
    {"GpuIdle", "gpu_idle"},
    {"AppClocks", "applications_clocks_setting"},
    {"SwPowerCap", "sw_power_cap"},
    {"HwSlowdown", "hw_slowdown"},
    {"SyncBoost", "sync_boost"},
    {"SwThermalSlowdown", "sw_thermal_slowdown"},
    {"HwThermalSlowdown", "hw_thermal_slowdown"},
    {"HwPowerBrakeSlowdown", "hw_power_brake_slowdown"},
    {"DisplayClocks", "display_clock_setting"},
    {"UserDefinedClocks", NULL},
};

VIGIL_HOT void throttle_decode(struct strbuf *sb, uint64_t mask)
{
        if (mask == 0) {
                sb_puts(sb, "None");
                return;
        }
        bool any = false;
        for (unsigned i = 0; i < GPU_THROTTLE_BITS; i++) {
                if (!(mask & (1ULL << i)))
                        continue;
                if (any)
                        sb_putc(sb, '|');
                sb_puts(sb, throttle_reasons[i].name);
                any = true;
        }
        if (!any)
                sb_printf(sb, "Unknown(0x%llx)", (unsigned long long)mask);
}
