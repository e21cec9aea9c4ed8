/* Every value of struct gpu_frame (core/frame.h), one row each, in member order, and all
 * that vigil's outputs know of it (the slots are core/fields.h's):
 *
 *   .kind: what "missing" is for it (core/fields.h), which frame clearing and its test
 *          walk; FK_VALIDATED with .valid_off, the bool that says it was read.
 *   .cadence: FC_MID or FC_SLOW for a value NVML is asked for only at a sample of that
 *          cadence (collect/nvml_read.h); the samples between carry its last value, by
 *          this slot: a value read at a cadence and not marked here is missing between.
 *   .csv (and .csv2): its columns of the GPU CSV files (encode/gpu_columns.h), at their
 *          positions in the file: the reference logger's columns in its order and
 *          formats (0-20), then vigil's additions. Never renumber or rename a reference
 *          column: its users' scripts parse these files.
 *   .metric: its /metrics series, one per present GPU labelled gpu="N",uuid="...";
 *          families are exposed in the order of this table (core/metric_defs.h): an
 *          MR_SERIES row with a name starts a family, one without adds a labelled series
 *          to the family above; an MR_CODE row is rendered by metrics/metrics.c's function
 *          for its .code. The counters kept outside the GPU's frame (Xids, NVML events,
 *          the rules' statistics) follow them.
 *   .hist: how the dashboard's history ring keeps it (enum hist_gpu, core/history.h).
 *   .rep: how `vigil report` reads its column back and summarises it (GPU_F_<ID>,
 *          core/fields.h): the summary line's decimals and unit, REP_TEXT (a line of
 *          the text summary, in this order, before the fans), REP_TEXT_LAST (one after
 *          them), REP_CHART (a chart of the HTML report).
 *
 * A new value: its read (collect/nvml_read.c, into the sample's frame), its member in
 * struct gpu_frame, a row here (with its cadence), and its field in the NVML simulator. test_fields fails for a member without a
 * row and for a value that reaches neither the CSV nor /metrics. */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/history.h"

/* The member's name, place and size. */
#define GPU_MEMBER(m) FIELD_MEMBER(struct gpu_frame, m)

const struct field_desc gpu_fields[] = {
    /* Bookkeeping and identity. */
    {GPU_MEMBER(present), .kind = FK_KEEP}, /* the slot is in use */
    /* ok: the last sample succeeded (false: every call failed) */
    {GPU_MEMBER(ok), .kind = FK_ZERO,
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_up",
                .type = "gauge",
                .help = "1 when the last sample of the GPU succeeded.",
                .code = MC_GPU_UP}},
    {GPU_MEMBER(error), .kind = FK_STRING}, /* why the last sample failed */
    /* sampled: sampled on this GPU tick (false while a failing GPU is backed off);
    * meaningful on ticks where VCLOCK_GPU is due */
    {GPU_MEMBER(sampled), .kind = FK_ZERO},
    /* failed samples in a row, the last one included */
    {GPU_MEMBER(consecutive_failures), .kind = FK_ZERO},
    /* +1 at the first failed sample of each streak (snapshot hook) */
    {GPU_MEMBER(crash_seq), .kind = FK_ZERO},
    {GPU_MEMBER(index), .kind = FK_KEEP}, /* NVML index */
    {GPU_MEMBER(name), .kind = FK_KEEP,
     .metric = {.row = MR_CODE,
                .member = "name pci_bus_id",
                .name = "vigil_gpu_info",
                .type = "gauge",
                .help = "GPU identity: name and PCI bus id.",
                .code = MC_GPU_INFO}},
    {GPU_MEMBER(uuid), .kind = FK_KEEP},
    {GPU_MEMBER(pci_bus_id), .kind = FK_KEEP},
    {GPU_MEMBER(sampled_real_ns), .kind = FK_ZERO,
     .csv = {.pos = 0, .name = "timestamp", .cell = GC_TIME, .files = GPU_CSV_ALL}},
    /* The sample. */
    /* 0..15 */
    {GPU_MEMBER(pstate), .kind = FK_DOUBLE,
     .csv = {.pos = 5, .name = "pstate", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_pstate",
                .type = "gauge",
                .help = "Performance state, 0 (highest) to 15 (lowest).",
                .code = MC_GPU_PSTATE},
     .rep = {.id = GPU_F_PSTATE, .decimals = 0, .unit = "", .flags = 0}},
    {.name = "(gpu_procs)",
     .kind = FK_NONE,
     .metric = {.row = MR_CODE,
                .member = "(gpu_procs of struct frame)",
                .name = "vigil_gpu_processes",
                .type = "gauge",
                .help = "Processes on the GPU at its last process list, by type (compute, "
                        "graphics).",
                .code = MC_GPU_PROCESSES}},
    {GPU_MEMBER(temp_c), .kind = FK_DOUBLE,
     .csv = {.pos = 1, .name = "gpu_temp", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_temperature_celsius",
                .type = "gauge",
                .help = "GPU core temperature.",
                .scale = 1},
     .hist = {.id = HG_TEMP_C, .reduce = HIST_max},
     .rep = {.id = GPU_F_TEMP, .decimals = 1, .unit = "C", .flags = REP_TEXT | REP_CHART}},
    {GPU_MEMBER(temp_max_c), .kind = FK_DOUBLE,
     .csv = {.pos = 2, .name = "gpu_tlimit", .cell = GC_TLIMIT, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_temperature_max_celsius",
                .type = "gauge",
                .help = "Highest GPU temperature for normal operation (GPU_MAX threshold).",
                .scale = 1},
     .rep = {.id = GPU_F_TLIMIT, .decimals = 0, .unit = "", .flags = 0}}, /* GPU_MAX threshold */
    /* static thresholds, read at (re)init */
    {GPU_MEMBER(shutdown_temp_c), .kind = FK_DOUBLE},
    {GPU_MEMBER(slowdown_temp_c), .kind = FK_DOUBLE},
    {GPU_MEMBER(power_w), .kind = FK_DOUBLE,
     .csv =
         {.pos = 3, .name = "power_instant", .cell = GC_FIXED, .decimals = 2, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_power_watts",
                .type = "gauge",
                .help = "Power draw of the GPU.",
                .scale = 1},
     .hist = {.id = HG_POWER_W, .reduce = HIST_max},
     .rep = {.id = GPU_F_POWER, .decimals = 1, .unit = "W", .flags = REP_TEXT | REP_CHART}},
    /* management limit */
    {GPU_MEMBER(power_limit_w), .kind = FK_DOUBLE,
     .csv = {.pos = 4, .name = "power_limit", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_power_limit_watts",
                .type = "gauge",
                .help = "Power management limit.",
                .scale = 1},
     .hist = {.id = HG_POWER_LIMIT_W, .reduce = HIST_min},
     .rep = {.id = GPU_F_POWER_LIMIT, .decimals = 0, .unit = "W", .flags = REP_TEXT | REP_CHART}},
    {GPU_MEMBER(enforced_limit_w), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 23, .name = "power_enforced_limit", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_enforced_power_limit_watts",
                .type = "gauge",
                .help = "Power limit the driver enforces.",
                .scale = 1}},
    /* total since driver load */
    {GPU_MEMBER(energy_j), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv =
         {.pos = 24, .name = "energy_j", .cell = GC_FIXED, .decimals = 3, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_energy_joules_total",
                .type = "counter",
                .help = "Energy used since the driver was loaded.",
                .scale = 1}},
    {GPU_MEMBER(gpu_clock_mhz), .kind = FK_DOUBLE,
     .csv = {.pos = 6, .name = "gpu_clock", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_clock_hertz",
                .type = "gauge",
                .help = "Current clock rate.",
                .key = "clock",
                .val = "graphics",
                .scale = 1e6},
     .hist = {.id = HG_GPU_CLOCK_MHZ, .reduce = HIST_min},
     .rep = {.id = GPU_F_GPU_CLOCK, .decimals = 0, .unit = "MHz", .flags = REP_TEXT | REP_CHART}},
    {GPU_MEMBER(mem_clock_mhz), .kind = FK_DOUBLE,
     .csv = {.pos = 7, .name = "mem_clock", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "memory", .scale = 1e6},
     .hist = {.id = HG_MEM_CLOCK_MHZ, .reduce = HIST_min},
     .rep = {.id = GPU_F_MEM_CLOCK, .decimals = 0, .unit = "MHz", .flags = REP_TEXT | REP_CHART}},
    {GPU_MEMBER(sm_clock_mhz), .kind = FK_DOUBLE, .cadence = FC_MID,
     .csv = {.pos = 21, .name = "sm_clock", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "sm", .scale = 1e6}},
    {GPU_MEMBER(video_clock_mhz), .kind = FK_DOUBLE, .cadence = FC_MID,
     .csv = {.pos = 22, .name = "video_clock", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "video", .scale = 1e6}},
    {GPU_MEMBER(util_gpu_pct), .kind = FK_DOUBLE,
     .csv = {.pos = 8, .name = "gpu_util", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_utilization_ratio",
                .type = "gauge",
                .help = "Share of the last sample period the engine was busy, 0-1.",
                .key = "engine",
                .val = "gpu",
                .scale = 0.01},
     .hist = {.id = HG_UTIL_PCT, .reduce = HIST_max},
     .rep = {.id = GPU_F_GPU_UTIL, .decimals = 1, .unit = "%", .flags = REP_TEXT | REP_CHART}},
    {GPU_MEMBER(util_mem_pct), .kind = FK_DOUBLE,
     .csv = {.pos = 9, .name = "mem_util", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES, .key = "engine", .val = "memory", .scale = 0.01},
     .rep = {.id = GPU_F_MEM_UTIL, .decimals = 1, .unit = "%", .flags = REP_TEXT}},
    /* NVML v1 `used`: reserved memory included (the reference) */
    {GPU_MEMBER(vram_used_bytes), .kind = FK_DOUBLE,
     .csv = {.pos = 10, .name = "vram_used_mb", .cell = GC_MIB, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_memory_used_bytes",
                .type = "gauge",
                .help = "Frame buffer memory in use, reserved memory included (NVML v1 used).",
                .scale = 1},
     .hist = {.id = HG_VRAM_USED_B, .reduce = HIST_max},
     .rep = {.id = GPU_F_VRAM_USED, .decimals = 0, .unit = "MB", .flags = REP_TEXT}},
    /* reserved by the driver (v2 only; missing with v1) */
    {GPU_MEMBER(vram_reserved_bytes), .kind = FK_DOUBLE,
     .csv = {.pos = 33, .name = "vram_reserved_mb", .cell = GC_MIB, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_memory_reserved_bytes",
                .type = "gauge",
                .help = "Frame buffer memory the driver reserves.",
                .scale = 1}},
    {GPU_MEMBER(vram_total_bytes), .kind = FK_DOUBLE,
     .csv = {.pos = 25, .name = "vram_total_mb", .cell = GC_MIB, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_memory_total_bytes",
                .type = "gauge",
                .help = "Frame buffer memory installed.",
                .scale = 1}},
    {GPU_MEMBER(pcie_gen), .kind = FK_DOUBLE,
     .csv = {.pos = 11, .name = "pcie_gen", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_pcie_link_generation",
                .type = "gauge",
                .help = "Current PCIe link generation.",
                .scale = 1},
     .rep = {.id = GPU_F_PCIE_GEN, .decimals = 0, .unit = "", .flags = 0}},
    {GPU_MEMBER(pcie_width), .kind = FK_DOUBLE,
     .csv = {.pos = 12, .name = "pcie_width", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_pcie_link_width",
                .type = "gauge",
                .help = "Current PCIe link width (lanes).",
                .scale = 1},
     .rep = {.id = GPU_F_PCIE_WIDTH, .decimals = 0, .unit = "", .flags = 0}},
    {GPU_MEMBER(pcie_replay), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 26, .name = "pcie_replay", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_pcie_replay_errors_total",
                .type = "counter",
                .help = "PCIe replay counter.",
                .scale = 1}},
    /* volatile totals */
    {GPU_MEMBER(ecc_corrected), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 27, .name = "ecc_corrected", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_ecc_errors_total",
                .type = "counter",
                .help = "ECC errors since the driver was loaded.",
                .key = "type",
                .val = "corrected",
                .scale = 1}},
    {GPU_MEMBER(ecc_uncorrected), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 28, .name = "ecc_uncorrected", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES, .key = "type", .val = "uncorrected", .scale = 1}},
    {GPU_MEMBER(remapped_correctable), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 29, .name = "remapped_correctable", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_remapped_rows",
                .type = "gauge",
                .help = "Memory rows remapped, by the error that caused it.",
                .key = "type",
                .val = "correctable",
                .scale = 1}},
    {GPU_MEMBER(remapped_uncorrectable), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 30, .name = "remapped_uncorrectable", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES, .key = "type", .val = "uncorrectable", .scale = 1}},
    {GPU_MEMBER(remap_pending), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 31, .name = "remap_pending", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_remapped_rows_pending",
                .type = "gauge",
                .help = "1 when a row remapping waits for a GPU reset.",
                .scale = 1}},
    {GPU_MEMBER(remap_failure), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 32, .name = "remap_failure", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_remapped_rows_failure",
                .type = "gauge",
                .help = "1 when a row remapping has failed.",
                .scale = 1}},
    /* clock-event reasons bitmask; a 64-bit mask never travels in a double */
    {GPU_MEMBER(throttle_mask), .kind = FK_VALIDATED,
     .valid_off = offsetof(struct gpu_frame, throttle_valid),
     .csv = {.pos = 13, .name = "throttle_bitmask", .cell = GC_MASK, .files = GPU_CSV_ALL},
     .csv2 = {.pos = 14, .name = "throttle_reasons", .cell = GC_MASK_NAMES, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_clocks_event_reason",
                .type = "gauge",
                .help = "1 when the clock-event (throttle) reason is active.",
                .code = MC_GPU_CLOCKS_EVENT_REASON},
     .hist = {.id = HG_THROTTLE_MASK, .reduce = HIST_or}},
    {GPU_MEMBER(throttle_valid), .kind = FK_VALID},
    /* recovery_action read (at start, then every 60 s) */
    {GPU_MEMBER(recovery_valid), .kind = FK_VALID},
    /* NVML_GPU_RECOVERY_ACTION_*: 0 none, 1 reset, ... */
    {GPU_MEMBER(recovery_action), .kind = FK_VALIDATED,
     .valid_off = offsetof(struct gpu_frame, recovery_valid),
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_recovery_action",
                .type = "gauge",
                .help = "NVML's recovery action (field 230): 0 none, 1 GPU reset, 2 node reboot, "
                        "3 drain P2P, 4 drain and reset, 5 recover IMEX domain.",
                .code = MC_GPU_RECOVERY_ACTION}},
    {GPU_MEMBER(nfans), .kind = FK_KEEP},
    /* fan columns: fanK_speed_pct, fanK_target_pct, interleaved per fan */
    {GPU_MEMBER(fan_speed_pct), .kind = FK_DOUBLE,
     .csv = {.pos = 15, .name = "_speed_pct", .cell = GC_PER_FAN, .files = GPU_CSV_ALL},
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_fan_speed_ratio",
                .type = "gauge",
                .help = "Intended fan speed, 0-1 (may exceed 1).",
                .code = MC_GPU_FAN_SPEED}},
    {GPU_MEMBER(fan_target_pct), .kind = FK_DOUBLE,
     .csv = {.pos = 16, .name = "_target_pct", .cell = GC_PER_FAN, .files = GPU_CSV_ALL},
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_fan_target_ratio",
                .type = "gauge",
                .help = "Target fan speed, 0-1.",
                .code = MC_GPU_FAN_TARGET}},
    /* thermal sensor 0 */
    {GPU_MEMBER(s0_temp), .kind = FK_DOUBLE,
     .csv = {.pos = 17, .name = "sensor0_temp", .cell = GC_FIXED, .files = GPU_CSV_ALL},
     .rep = {.id = GPU_F_S0_TEMP, .decimals = 1, .unit = "C", .flags = REP_TEXT_LAST}},
    {GPU_MEMBER(s0_target), .kind = FK_DOUBLE,
     .csv = {.pos = 18, .name = "sensor0_target", .cell = GC_FIXED, .files = GPU_CSV_ALL}},
    {GPU_MEMBER(s0_controller), .kind = FK_DOUBLE,
     .csv = {.pos = 19, .name = "sensor0_controller", .cell = GC_FIXED, .files = GPU_CSV_ALL}},
    /* anomaly flags of this sample, '|'-joined */
    {GPU_MEMBER(flags), .kind = FK_STRING,
     .csv = {.pos = 20, .name = "flags", .cell = GC_FLAGS, .files = GPU_CSV_ALL}},
    /* NVLink and the fabric, on the slow cadence: links found at the identity */
    {GPU_MEMBER(nvlinks), .kind = FK_KEEP},
    /* 1 active, 0 inactive, missing: no link */
    {GPU_MEMBER(nvlink_up), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_nvlink_up",
                .type = "gauge",
                .help = "1 when the NVLink link is active, 0 when it is not (NVML link state).",
                .code = MC_GPU_NVLINK_UP}},
    /* enum nvlink_counter */
    {GPU_MEMBER(nvlink_errors), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .metric = {.row = MR_CODE,
                .name = "vigil_gpu_nvlink_errors_total",
                .type = "counter",
                .help = "NVLink error counters of the link, by type (NVML; crc_flit, crc_data, "
                        "replay, recovery up to Hopper; recovery_events, recovery_successful, "
                        "recovery_failed, symbol, effective on NVLink5).",
                .code = MC_GPU_NVLINK_ERRORS}},
    /* links active, of those that answered */
    {GPU_MEMBER(nvlink_links_up), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 34, .name = "nvlink_links_up", .cell = GC_FIXED, .files = GPU_CSV_DAILY}},
    /* every counter of every link, summed */
    {GPU_MEMBER(nvlink_error_sum), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 35, .name = "nvlink_errors", .cell = GC_FIXED, .files = GPU_CSV_DAILY}},
    /* NVML_GPU_FABRIC_STATE_*: 1 not started, 2 in progress, 3 completed */
    {GPU_MEMBER(fabric_state), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 36, .name = "fabric_state", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_fabric_state",
                .type = "gauge",
                .help = "NVLink fabric probe state (NVML): 1 not started, 2 in progress, "
                        "3 completed.",
                .scale = 1}},
    /* the probe's nvmlReturn_t once completed */
    {GPU_MEMBER(fabric_status), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_fabric_status",
                .type = "gauge",
                .help = "NVML return code of the completed fabric probe (0 success).",
                .scale = 1}},
    /* cliqueId */
    {GPU_MEMBER(fabric_clique), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_fabric_clique_id",
                .type = "gauge",
                .help = "NVLink fabric clique the GPU belongs to.",
                .scale = 1}},
    /* healthMask (v3 only) */
    {GPU_MEMBER(fabric_health_mask), .kind = FK_DOUBLE, .cadence = FC_SLOW,
     .csv = {.pos = 37, .name = "fabric_health_mask", .cell = GC_FIXED, .files = GPU_CSV_DAILY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_gpu_fabric_health_mask",
                .type = "gauge",
                .help = "NVLink fabric health mask (NVML NVML_GPU_FABRIC_HEALTH_MASK_* fields).",
                .scale = 1}},
};

const size_t gpu_fields_count = sizeof(gpu_fields) / sizeof(gpu_fields[0]);
