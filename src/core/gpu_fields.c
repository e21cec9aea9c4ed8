/* The GPU field table. See gpu_fields.h. */
#include "core/gpu_fields.h"

#include <stddef.h>

#include "core/frame.h"

#define GPU_M(member) offsetof(struct gpu_frame, member), sizeof(((struct gpu_frame *)0)->member)

const struct field_desc gpu_fields[] = {
#define GPU_FIELD(type, member, dims, kind) {#member, kind, GPU_M(member), 0},
#define GPU_FIELD_V(type, member, dims, valid)                                                     \
        {#member, FK_VALIDATED, GPU_M(member), offsetof(struct gpu_frame, valid)},
#include "core/gpu_fields.def"
#undef GPU_FIELD
#undef GPU_FIELD_V
};

const size_t gpu_fields_count = sizeof(gpu_fields) / sizeof(gpu_fields[0]);
