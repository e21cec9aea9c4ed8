/* The table of struct gpu_frame's members (core/gpu_fields.def): what clears a GPU's
 * sample, and what its test walks. */
#ifndef VIGIL_CORE_GPU_FIELDS_H
#define VIGIL_CORE_GPU_FIELDS_H

#include <stddef.h>

#include "core/fields.h"

/* One entry per member of struct gpu_frame, in member order. */
extern const struct field_desc gpu_fields[];
extern const size_t gpu_fields_count;

#endif
