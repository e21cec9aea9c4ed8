/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict's rules: which events.log line gives which state to which
 * component, and when it clears (core/health.h). The first row whose condition a line
 * meets decides; more specific rows come first. A new kind of event whose row in
 * core/event_kinds.c names a component (pi.display, gpu.nvlink, ...) needs only its rows
 * here. The component and action a row leaves out are its kind's (EA_FROM_EVENT: the
 * Xid's action from the catalog's resolution bucket). */
#include "core/health.h"

/* Xids of the GPU's memory (ECC, row remapping, contained/uncontained errors) and of
 * its links, from NVIDIA's Xid catalog (detect/xid_catalog.c, the same source):
 * 48 DBE, 63/64 row remapping or page retirement, 92 high SBE rate, 94/95 contained and
 * uncontained ECC, 140 unrecovered ECC; 79 fallen off the bus; 74 NVLink, 144-150
 * NVLink5. */
#define XID_MEMORY "48 63 64 92 94 95 140"
#define XID_PCIE   "79"
#define XID_NVLINK "74 144 145 146 147 148 149 150"
/* The recovery actions that ask for a GPU reset (detect/gpu_event_text.c's names). */
#define RECOVERY_RESET "GPU_RESET DRAIN_AND_RESET"

/* clang-format off */
const struct health_rule health_rules[] = {
    /* A GPU that stops answering is unhealthy (reset it) until it has answered again
     * for the proof's time. */
    /* NVML's "GPU is lost" (NVML_ERROR_GPU_IS_LOST, nvml.h: "the GPU has fallen off the
     * bus or has otherwise become inaccessible") asks what Xid 79 asks: a reboot, as the
     * Xid catalog's RESTART_BM for 79 (a reset cannot reach a GPU off the bus). */
    {.kind = EV_NVML_FAILED, .key = "error", .values = "GPU is lost", .exact = true,
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .await_answer = true,
     .action = EA_REBOOT},
    {.kind = EV_NVML_FAILED, .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN,
     .await_answer = true},
    {.kind = EV_GPU_RECOVERED, .effect = HR_ANSWERS, .component = EC_GPU_DRIVER},
    {.kind = EV_NVML_EVENT, .key = "event", .values = "GpuUnavailable", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_RESET_GPU},
    /* Xids: the state follows the catalog's action (reset, reboot, inspect: unhealthy;
     * restart the workload: degraded; none: no state), by the part they are about. */
    {.kind = EV_NVML_EVENT, .key = "xid", .values = XID_MEMORY, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_MEMORY, .state_by_action = true},
    {.kind = EV_NVML_EVENT, .key = "xid", .values = XID_PCIE, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_PCIE, .state_by_action = true},
    {.kind = EV_NVML_EVENT, .key = "xid", .values = XID_NVLINK, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_NVLINK, .state_by_action = true},
    {.kind = EV_NVML_EVENT, .key = "xid", .effect = HR_SET, .until = HU_PROVEN,
     .state_by_action = true},
    /* The kernel log's view of the same failures (detect/kernel_gpu.c). */
    {.kind = EV_KERNEL_GPU, .key = "kind", .values = "fallen_off_bus", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .component = EC_GPU_PCIE,
     .action = EA_REBOOT},
    {.kind = EV_KERNEL_GPU, .key = "kind", .values = "aer_fatal", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .component = EC_GPU_PCIE,
     .action = EA_REBOOT},
    {.kind = EV_KERNEL_GPU, .key = "kind", .values = "aer_nonfatal", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_PROVEN, .component = EC_GPU_PCIE,
     .action = EA_INSPECT_HARDWARE},
    {.kind = EV_KERNEL_GPU, .key = "kind", .values = "init_failed gsp_timeout",
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_REBOOT},
    /* An NVSwitch error: the fabric, by the Fabric Manager guide's class of the code. */
    {.kind = EV_KERNEL_GPU, .key = "kind", .values = "sxid", .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_FABRIC, .state_by_action = true},
    {.kind = EV_KERNEL_GPU, .key = "xid", .values = XID_MEMORY, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_MEMORY, .state_by_action = true},
    {.kind = EV_KERNEL_GPU, .key = "xid", .values = XID_PCIE, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_PCIE, .state_by_action = true},
    {.kind = EV_KERNEL_GPU, .key = "xid", .values = XID_NVLINK, .effect = HR_SET,
     .until = HU_PROVEN, .component = EC_GPU_NVLINK, .state_by_action = true},
    {.kind = EV_KERNEL_GPU, .key = "xid", .effect = HR_SET, .until = HU_PROVEN,
     .state_by_action = true},
    /* The driver's recovery action (nvml.h nvmlDeviceGpuRecoveryAction_t, the kernel
     * log's "(GPU Reset Required)" forms), for a line that is not an Xid's. */
    {.kind = EV_NVML_EVENT, .key = "recovery_action", .values = RECOVERY_RESET,
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_RESET_GPU},
    {.kind = EV_NVML_EVENT, .key = "recovery_action", .values = "NODE_REBOOT",
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_REBOOT},
    {.kind = EV_NVML_EVENT, .key = "recovery_action", .values = "DRAIN_P2P",
     .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_PROVEN,
     .action = EA_RESTART_WORKLOAD},
    {.kind = EV_KERNEL_GPU, .key = "recovery_action", .values = RECOVERY_RESET,
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_RESET_GPU},
    {.kind = EV_KERNEL_GPU, .key = "recovery_action", .values = "NODE_REBOOT",
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_PROVEN, .action = EA_REBOOT},
    {.kind = EV_KERNEL_GPU, .key = "recovery_action", .values = "DRAIN_P2P",
     .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_PROVEN,
     .action = EA_RESTART_WORKLOAD},
    /* Evidence: the crash snapshot of a GPU's open states, the post-mortem. */
    {.kind = EV_CRASH_SNAPSHOT, .effect = HR_EVIDENCE, .component = EC_GPU_DRIVER},
    /* Fewer GPUs on the bus than the machine has: until the count is back. */
    {.kind = EV_GPU_COUNT, .key = "state", .values = "missing", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_GPU_COUNT, .key = "state", .values = "back", .effect = HR_CLEAR},
    {.kind = EV_TEMP_OVER_MAX, .key = "state", .values = "above", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_TEMP_OVER_MAX, .key = "state", .values = "back", .effect = HR_CLEAR},
    /* The memory (detect/gpu_condition.h): a failed row remapping is for good (replace
     * the GPU); a remapping or page retirement waiting for a reset, and an ECC mode
     * change that takes effect at the reset, last until the reset is done. */
    {.kind = EV_GPU_MEMORY, .key = "state", .values = "remap_failed", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE, .action = EA_REPLACE_PART},
    {.kind = EV_GPU_MEMORY, .key = "state", .values = "remap_pending retirement_pending",
     .effect = HR_SET, .state = HEALTH_UNHEALTHY, .until = HU_LINE, .action = EA_RESET_GPU},
    {.kind = EV_GPU_MEMORY, .key = "state", .values = "ecc_mode_pending", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE, .action = EA_RESET_GPU},
    {.kind = EV_GPU_MEMORY, .key = "state", .values = "ok", .effect = HR_CLEAR},
    /* A PCIe link below the GPU's and slot's maximum (a riser, a slot). */
    {.kind = EV_PCIE_LINK, .key = "state", .values = "degraded", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_PCIE_LINK, .key = "state", .values = "ok", .effect = HR_CLEAR},
    /* NVLink (detect/nvlink_rules.c): a link that was up and is down is unhealthy until
     * it is up again; error counters rising are degraded until the proof's time has
     * passed without a rise. The fabric: a probe not completed past the grace after
     * boot, or one that failed, is unhealthy until it completes; a health-mask fault is
     * degraded while it lasts. */
    {.kind = EV_NVLINK, .key = "state", .values = "down", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_NVLINK, .key = "state", .values = "up", .effect = HR_CLEAR},
    {.kind = EV_NVLINK, .key = "state", .values = "errors", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_PROVEN},
    {.kind = EV_FABRIC, .key = "state", .values = "incomplete failed", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_FABRIC, .key = "state", .values = "degraded", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_FABRIC, .key = "state", .values = "completed healthy", .effect = HR_CLEAR},
    {.kind = EV_ANOMALY, .key = "flag", .values = "POWER_BREACH", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_PROVEN, .component = EC_GPU_POWER},
    /* Host: storage, memory, the kernel. */
    {.kind = EV_STORAGE, .key = "state", .values = "read-only", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_STORAGE, .key = "state", .values = "read-write", .effect = HR_CLEAR},
    {.kind = EV_STORAGE_ERRORS, .key = "new", .effect = HR_SET, .state = HEALTH_DEGRADED,
     .until = HU_PROVEN},
    {.kind = EV_STORAGE_FILL, .key = "state", .values = "filling", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE, .action = EA_INSPECT_HARDWARE},
    {.kind = EV_STORAGE_FILL, .key = "state", .values = "ok", .effect = HR_CLEAR},
    {.kind = EV_DISK_LOW, .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_LINE,
     .action = EA_INSPECT_HARDWARE},
    {.kind = EV_DISK_RESUMED, .effect = HR_CLEAR},
    {.kind = EV_SHM, .key = "state", .values = "full", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_SHM, .key = "state", .values = "ok", .effect = HR_CLEAR},
    {.kind = EV_TREND, .key = "state", .values = "rising", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_TREND, .key = "state", .values = "steady", .effect = HR_CLEAR},
    /* The machine went down under vigil (a reboot or power loss, a kill): degraded
     * until it has run the proof's time, the post-mortem as the evidence. */
    {.kind = EV_POSTMORTEM, .key = "file", .effect = HR_SET, .state = HEALTH_DEGRADED,
     .until = HU_PROVEN},
    /* A Raspberry Pi: under-voltage is the supply, degraded while it lasts; the other
     * throttling conditions are thermal. */
    {.kind = EV_RPI_THROTTLE, .key = "condition", .values = "under-voltage", .key2 = "state",
     .values2 = "cleared", .effect = HR_CLEAR, .component = EC_PI_POWER},
    {.kind = EV_RPI_THROTTLE, .key = "condition", .values = "under-voltage", .key2 = "state",
     .values2 = "set", .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_LINE,
     .component = EC_PI_POWER},
    {.kind = EV_RPI_THROTTLE, .key = "condition", .values = "under-voltage", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_PROVEN, .component = EC_PI_POWER},
    {.kind = EV_RPI_THROTTLE, .key = "state", .values = "cleared", .effect = HR_CLEAR,
     .component = EC_PI_THERMAL},
    {.kind = EV_RPI_THROTTLE, .key = "state", .values = "set", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE, .component = EC_PI_THERMAL,
     .action = EA_INSPECT_HARDWARE},
    {.kind = EV_RPI_THROTTLE, .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_PROVEN,
     .component = EC_PI_THERMAL, .action = EA_INSPECT_HARDWARE},
    {.kind = EV_RPI_TEMP, .key = "level", .values = "hot", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_RPI_TEMP, .key = "level", .values = "warm", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_RPI_TEMP, .key = "level", .values = "normal", .effect = HR_CLEAR},
    /* A watched program's incident (watch=); a Pi's or a storage incident says nothing
     * of the player (its own condition's rows give the supply's, the card's state). */
    {.kind = EV_INCIDENT, .key = "watch", .effect = HR_SET, .state = HEALTH_DEGRADED,
     .until = HU_PROVEN, .action = EA_RESTART_WORKLOAD},
    /* A watched program (detect/watch_live.c, the signage player): not running, or its
     * systemd unit failed, is unhealthy until it runs again; a restart, and an OOM kill
     * or a fault of one of its processes, degraded until it has run the proof's time. An
     * OOM kill of another process is the host's memory. */
    {.kind = EV_WATCH, .key = "state", .values = "gone missing", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_WATCH, .key = "state", .values = "back", .effect = HR_CLEAR},
    {.kind = EV_WATCH, .key = "state", .values = "restarted", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_PROVEN},
    {.kind = EV_UNIT, .key = "active", .values = "failed", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_OOM_KILL, .key = "watch", .effect = HR_SET, .state = HEALTH_DEGRADED,
     .until = HU_PROVEN, .component = EC_PI_PLAYER},
    {.kind = EV_OOM_KILL, .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_PROVEN},
    {.kind = EV_PROCESS_FAULT, .key = "watch", .effect = HR_SET, .state = HEALTH_DEGRADED,
     .until = HU_PROVEN, .component = EC_PI_PLAYER},
    /* A signage player's screen (detect/signage_rules.c): unplugged is unhealthy until
     * it is back; blanked (DPMS) or the TV in standby degraded until on again. */
    {.kind = EV_DISPLAY, .key = "state", .values = "disconnected", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_DISPLAY, .key = "state", .values = "connected", .effect = HR_CLEAR},
    {.kind = EV_DISPLAY_DPMS, .key = "dpms", .values = "On", .effect = HR_CLEAR},
    {.kind = EV_DISPLAY_DPMS, .effect = HR_SET, .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_DISPLAY_CEC, .key = "power", .values = "standby to-standby", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_DISPLAY_CEC, .key = "power", .values = "on", .effect = HR_CLEAR},
    /* Its network: offline (no link, no default route) until online again. */
    {.kind = EV_NETWORK, .key = "state", .values = "offline", .effect = HR_SET,
     .state = HEALTH_UNHEALTHY, .until = HU_LINE},
    {.kind = EV_NETWORK, .key = "state", .values = "online", .effect = HR_CLEAR},
    /* Its card wearing out: replace it. */
    {.kind = EV_SD_WEAR, .key = "state", .values = "worn", .effect = HR_SET,
     .state = HEALTH_DEGRADED, .until = HU_LINE},
    {.kind = EV_SD_WEAR, .key = "state", .values = "ok", .effect = HR_CLEAR},
    /* A person's clear. */
    {.kind = EV_HEALTH_CLEARED, .effect = HR_PERSON},
};
/* clang-format on */

const size_t health_rules_count = sizeof(health_rules) / sizeof(health_rules[0]);
