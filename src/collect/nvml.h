/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML source (nvml.c); registered in core/registry.c. */
#ifndef VIGIL_COLLECT_NVML_H
#define VIGIL_COLLECT_NVML_H

#include "core/vigil.h"

extern const struct vigil_source vigil_source_nvml;

#endif
