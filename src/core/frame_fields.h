/* SPDX-License-Identifier: Apache-2.0 */
/* The tables of the frame's area structs (core/frame.h), one row per member, in member
 * order, with what "missing" is for it and its outputs: core/host_values.c,
 * watch_values.c, rpi_values.c, storage_values.c, gpu_values.c. What clears a sample,
 * and what its test walks. */
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
/* struct sd_frame (in struct storage_frame) */
extern const struct field_desc sd_fields[];
extern const size_t sd_fields_count;
/* struct display_conn, struct display_frame */
extern const struct field_desc display_conn_fields[];
extern const size_t display_conn_fields_count;
extern const struct field_desc display_fields[];
extern const size_t display_fields_count;
/* struct net_iface, struct net_frame */
extern const struct field_desc net_if_fields[];
extern const size_t net_if_fields_count;
extern const struct field_desc net_fields[];
extern const size_t net_fields_count;
/* struct gpu_frame: its values and their outputs (core/gpu_values.c) */
extern const struct field_desc gpu_fields[];
extern const size_t gpu_fields_count;

#endif
