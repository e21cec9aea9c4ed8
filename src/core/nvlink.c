/* SPDX-License-Identifier: Apache-2.0 */
/* NVLink and fabric values as words. See nvlink.h. The numbers are nvml.h 13.3's (NVIDIA's
 * header as NVIDIA/go-nvml carries it at 2f9e261, gen/nvml/nvml.h, the lines cited);
 * collect/nvml_api.h declares the same for the reader, which core/ may not include. */
#include "core/nvlink.h"

static const char *const counter_names[NVLINK_COUNTERS] = {
    [NVL_CRC_FLIT] = "crc_flit",
    [NVL_CRC_DATA] = "crc_data",
    [NVL_REPLAY] = "replay",
    [NVL_RECOVERY] = "recovery",
    [NVL_RECOVERY_EVENTS] = "recovery_events",
    [NVL_RECOVERY_SUCCESSFUL] = "recovery_successful",
    [NVL_RECOVERY_FAILED] = "recovery_failed",
    [NVL_SYMBOL] = "symbol",
    [NVL_EFFECTIVE] = "effective",
};

const char *nvlink_counter_name(enum nvlink_counter c)
{
        return (unsigned)c < NVLINK_COUNTERS ? counter_names[c] : "unknown";
}

/* NVML_GPU_FABRIC_STATE_* 0-3 (lines 3800-3803). */
static const char *const fabric_states[] = {"not_supported", "not_started", "in_progress",
                                            "completed"};

const char *fabric_state_name(unsigned s)
{
        return s < sizeof(fabric_states) / sizeof(fabric_states[0]) ? fabric_states[s] : "unknown";
}

/* The health mask's fields (lines 3822-3886): shift, width, and the value that is a fault.
 * The 2-bit fields say 1 for "true" (degraded, in recovery, unhealthy); the incorrect
 * configuration's 4 bits say 2-8 for a fault (1: correct, 0: not supported); partition
 * assigned says 2 for "not assigned". */
static const struct {
        unsigned shift, width, lo, hi;
        const char *name;
} health_fields[] = {
    {0, 0x3, 1, 1, "degraded_bw"},
    {2, 0x3, 1, 1, "route_recovery"},
    {4, 0x3, 1, 1, "route_unhealthy"},
    {6, 0x3, 1, 1, "access_timeout_recovery"},
    {8, 0xf, 2, 8, "incorrect_configuration"},
    {12, 0x3, 2, 2, "no_partition"},
};

bool fabric_health_faults(unsigned mask, struct strbuf *sb)
{
        bool any = false;
        for (unsigned i = 0; i < sizeof(health_fields) / sizeof(health_fields[0]); i++) {
                unsigned v = (mask >> health_fields[i].shift) & health_fields[i].width;
                if (v < health_fields[i].lo || v > health_fields[i].hi)
                        continue;
                if (any)
                        sb_putc(sb, ',');
                sb_puts(sb, health_fields[i].name);
                any = true;
        }
        return any;
}
