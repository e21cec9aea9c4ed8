/* SPDX-License-Identifier: Apache-2.0 */
/* NVLink and fabric values as words: the label of each error counter (the type="" of
 * vigil_gpu_nvlink_errors_total, the counter= of an NVLINK line), the fabric probe's
 * state and the faults a fabric health mask reports. The values are nvml.h's
 * (collect/nvml_api.h cites them); these are only their names. */
#ifndef VIGIL_CORE_NVLINK_H
#define VIGIL_CORE_NVLINK_H

#include <stdbool.h>

#include "core/frame.h"
#include "util/strbuf.h"

/* The label of counter c ("crc_flit", "recovery_events", ...). Static. */
const char *nvlink_counter_name(enum nvlink_counter c);

/* The fabric probe's state s (NVML_GPU_FABRIC_STATE_*) as a word: "not_supported",
 * "not_started", "in_progress", "completed"; "unknown" for another value. Static. */
const char *fabric_state_name(unsigned s);

/* The faults of a fabric health mask (nvmlGpuFabricInfo_v3_t.healthMask), comma-
 * separated, into sb: "degraded_bw", "route_recovery", "route_unhealthy",
 * "access_timeout_recovery", "incorrect_configuration", "no_partition". Returns
 * whether any is set (nothing is appended then). */
bool fabric_health_faults(unsigned mask, struct strbuf *sb);

#endif
