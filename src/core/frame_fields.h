/* The tables of the frame's area structs (core/frame.h), one entry per member, in member
 * order, from the same lists that declare the structs (core/host_values.def,
 * core/watch_values.def, core/rpi_values.def, core/storage_values.def, core/fs_values.def,
 * core/gpu_values.c and the nested structs' lists): what clears a sample, and what its test
 * walks. */
#ifndef VIGIL_CORE_FRAME_FIELDS_H
#define VIGIL_CORE_FRAME_FIELDS_H

#include <stddef.h>

#include "core/fields.h"

/* struct host_frame */
extern const struct field_desc host_fields[];
extern const size_t host_fields_count;
/* struct watch_frame */
extern const struct field_desc watch_fields[];
extern const size_t watch_fields_count;
/* struct rpi_v3d_queue, struct rpi_frame */
extern const struct field_desc rpi_v3d_fields[];
extern const size_t rpi_v3d_fields_count;
extern const struct field_desc rpi_fields[];
extern const size_t rpi_fields_count;
/* struct fs_frame, struct storage_frame */
extern const struct field_desc fs_fields[];
extern const size_t fs_fields_count;
extern const struct field_desc storage_fields[];
extern const size_t storage_fields_count;
/* struct gpu_frame: its values and their outputs (core/gpu_values.c) */
extern const struct field_desc gpu_fields[];
extern const size_t gpu_fields_count;

#endif
