/* SPDX-License-Identifier: Apache-2.0 */
/* Every value of struct rpi_frame (core/frame.h), one row each, in member order; the
 * slots are core/host_values.c's. /metrics carries them only while the frame is present;
 * history slots are enum hist_rpi (core/history.h). */
#include <stddef.h>

#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/history.h"
#include "core/rpi_throttle.h"
#include "util/hot.h"

#define RPI_MEMBER(m) FIELD_MEMBER(struct rpi_frame, m)
#define V3D_MEMBER(m) FIELD_MEMBER(struct rpi_v3d_queue, m)

/* The members of struct rpi_v3d_queue: one V3D queue of a Pi 5. */
const struct field_desc rpi_v3d_fields[] = {
    {V3D_MEMBER(queue), .kind = FK_STRING},
    {V3D_MEMBER(busy_ratio), .kind = FK_DOUBLE}, /* share of the last interval the queue ran */
    {V3D_MEMBER(jobs), .kind = FK_DOUBLE},
};

const size_t rpi_v3d_fields_count = sizeof(rpi_v3d_fields) / sizeof(rpi_v3d_fields[0]);

/* The throttled word's set conditions, for its host-log column. */
VIGIL_HOT static size_t throttle_names(const void *area, char *out, size_t cap)
{
        return rpi_frame_flags(area, out, cap);
}

const struct field_desc rpi_fields[] = {
    /* this is a Raspberry Pi and the source runs */
    {RPI_MEMBER(present), .kind = FK_ZERO},
    {RPI_MEMBER(temp_c), .kind = FK_DOUBLE, .host_csv = {.cell = HCELL_ELSE, .col = HC_TEMP},
     .metric = {.row = MR_SERIES,
                .name = "vigil_rpi_temperature_celsius",
                .type = "gauge",
                .help = "SoC temperature reported by the firmware.",
                .scale = 1},
     .hist = {.id = HR_TEMP_C, .reduce = HIST_max}},
    {RPI_MEMBER(volt_core_v), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE, .col = HC_VOLT, .name = "volt_core_v", .fmt = HF_PY},
     .metric = {.row = MR_SERIES,
                .name = "vigil_rpi_core_voltage_volts",
                .type = "gauge",
                .help = "Core voltage reported by the firmware.",
                .scale = 1},
     .hist = {.id = HR_VOLT_V, .reduce = HIST_min}},
    /* measured clocks */
    {RPI_MEMBER(arm_hz), .kind = FK_DOUBLE,
     .host_csv =
         {.cell = HCELL_VALUE, .col = HC_ARM, .name = "arm_mhz", .fmt = HF_PY, .div = HOST_DIV_MHZ},
     .metric = {.row = MR_SERIES,
                .name = "vigil_rpi_clock_hertz",
                .type = "gauge",
                .help = "Clock rate measured by the firmware.",
                .key = "clock",
                .val = "arm",
                .scale = 1},
     .hist = {.id = HR_ARM_HZ, .reduce = HIST_min}},
    {RPI_MEMBER(core_hz), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_CORE,
                  .name = "core_mhz",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MHZ},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "core", .scale = 1}},
    {RPI_MEMBER(v3d_hz), .kind = FK_DOUBLE,
     .host_csv =
         {.cell = HCELL_VALUE, .col = HC_V3D, .name = "v3d_mhz", .fmt = HF_PY, .div = HOST_DIV_MHZ},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "v3d", .scale = 1}},
    {RPI_MEMBER(h264_hz), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_H264,
                  .name = "h264_mhz",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MHZ},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "h264", .scale = 1}},
    {RPI_MEMBER(pixel_hz), .kind = FK_DOUBLE,
     .host_csv = {.cell = HCELL_VALUE,
                  .col = HC_PIXEL,
                  .name = "pixel_mhz",
                  .fmt = HF_PY,
                  .div = HOST_DIV_MHZ},
     .metric = {.row = MR_SERIES, .key = "clock", .val = "pixel", .scale = 1}},
    /* configured ARM maximum (firmware) */
    {RPI_MEMBER(arm_max_hz), .kind = FK_DOUBLE,
     .metric = {.row = MR_SERIES,
                .name = "vigil_rpi_clock_max_hertz",
                .type = "gauge",
                .help = "Configured maximum clock rate.",
                .key = "clock",
                .val = "arm",
                .scale = 1}},
    /* the get_throttled word (32 bits); a whole word was read (an integer, never a double) */
    {RPI_MEMBER(throttled), .kind = FK_VALIDATED,
     .valid_off = offsetof(struct rpi_frame, throttled_valid),
     .host_csv = {.cell = HCELL_WORD,
                  .col = HC_THROTTLED,
                  .name = "throttled_raw",
                  .col2 = HC_THROTTLE_FLAGS,
                  .name2 = "throttle_flags",
                  .text = offsetof(struct host_row, throttle_flags),
                  .text_size = sizeof(((struct host_row *)0)->throttle_flags),
                  .names = throttle_names},
     .metric = {.row = MR_CODE,
                .member = "throttled undervolt_alarm",
                .name = "vigil_rpi_throttled",
                .type = "gauge",
                .help = "Firmware throttling condition (get_throttled): 1 when set, now or since "
                        "boot.",
                .code = MC_RPI_THROTTLED},
     .hist = {.id = HR_THROTTLED, .reduce = HIST_or}},
    {RPI_MEMBER(throttled_valid), .kind = FK_VALID},
    /* rpi_volt in0_lcrit_alarm (0/1), NAN if missing */
    {RPI_MEMBER(undervolt_alarm), .kind = FK_DOUBLE},
    /* where each value came from; RPI_SRC_NONE */
    {RPI_MEMBER(temp_src), .kind = FK_ZERO},
    {RPI_MEMBER(volt_src), .kind = FK_ZERO},
    {RPI_MEMBER(clock_src), .kind = FK_ZERO},
    {RPI_MEMBER(throttle_src), .kind = FK_ZERO},
    /* property tag or cpufreq's cpuinfo_max_freq */
    {RPI_MEMBER(arm_max_src), .kind = FK_ZERO},
    /* V3D gpu_stats queues (Pi 5) */
    {RPI_MEMBER(nv3d), .kind = FK_ZERO},
    /* one V3D queue each (rpi_v3d_fields above) */
    {RPI_MEMBER(v3d), .kind = FK_STRUCT, .sub = rpi_v3d_fields, .nsub = &rpi_v3d_fields_count,
     .elem = sizeof(struct rpi_v3d_queue),
     .metric = {.row = MR_CODE,
                .name = "vigil_rpi_v3d_busy_ratio",
                .type = "gauge",
                .help = "Share of the last interval the V3D queue was busy, 0-1.",
                .code = MC_RPI_V3D_BUSY}},
    /* /proc/device-tree/model */
    {RPI_MEMBER(model), .kind = FK_STRING,
     .metric = {.row = MR_CODE,
                .name = "vigil_rpi_info",
                .type = "gauge",
                .help = "The board model (device tree).",
                .code = MC_RPI_INFO}},
};

const size_t rpi_fields_count = sizeof(rpi_fields) / sizeof(rpi_fields[0]);
