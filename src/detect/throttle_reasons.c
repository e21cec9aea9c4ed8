/* Throttle reason names. See throttle_reasons.h. */
#include "detect/throttle_reasons.h"

const char *const throttle_reason_names[GPU_THROTTLE_BITS] = {
    "GpuIdle",       "AppClocks",         "SwPowerCap",        "HwSlowdown",
    "SyncBoost",     "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown",
    "DisplayClocks", "UserDefinedClocks",
};

void throttle_decode(struct strbuf *sb, uint64_t mask)
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
                sb_puts(sb, throttle_reason_names[i]);
                any = true;
        }
        if (!any)
                sb_printf(sb, "Unknown(0x%llx)", (unsigned long long)mask);
}
