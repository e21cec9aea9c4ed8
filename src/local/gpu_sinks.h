/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU sinks (registered in core/registry.c). */
#ifndef VIGIL_LOCAL_GPU_SINKS_H
#define VIGIL_LOCAL_GPU_SINKS_H

#include "core/vigil.h"

extern const struct vigil_sink vigil_sink_gpu_csv;     /* gpuN-YYYY-MM-DD.csv */
extern const struct vigil_sink vigil_sink_gpu_summary; /* summary.log every 5 minutes */
extern const struct vigil_sink vigil_sink_system_info; /* system-info.txt */

#endif
