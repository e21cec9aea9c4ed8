/* The frame's field tables. See frame_fields.h. */
#include "core/frame_fields.h"

#include <stddef.h>

#include "core/frame.h"

/* The entries of the struct named by FIELD_OF, from its .def list. */
#define FIELD_M(member)                                                                            \
        .name = #member, .off = offsetof(FIELD_OF, member), .size = sizeof(((FIELD_OF *)0)->member)
#define FIELD(type, member, dims, kind_) {FIELD_M(member), .kind = kind_},
#define FIELD_V(type, member, dims, valid)                                                         \
        {FIELD_M(member), .kind = FK_VALIDATED, .valid_off = offsetof(FIELD_OF, valid)},
#define FIELD_S(type, member, dims, table)                                                         \
        {FIELD_M(member), .kind = FK_STRUCT, .sub = table, .nsub = &table##_count,                 \
         .elem = sizeof(type)},

#define VALUE(type, member, dims, kind, csv, metric, hist)    FIELD(type, member, dims, kind)
#define VALUE_V(type, member, dims, valid, csv, metric, hist) FIELD_V(type, member, dims, valid)
#define VALUE_S(type, member, dims, table, csv, metric, hist) FIELD_S(type, member, dims, table)
#define EXTRA(metric)

#define FIELD_OF struct host_frame
const struct field_desc host_fields[] = {
#include "core/host_values.def"
};
#undef FIELD_OF

#define FIELD_OF struct watch_frame
const struct field_desc watch_fields[] = {
#include "core/watch_values.def"
};
#undef FIELD_OF

#define FIELD_OF struct rpi_v3d_queue
const struct field_desc rpi_v3d_fields[] = {
#include "core/rpi_v3d_fields.def"
};
#undef FIELD_OF

#define FIELD_OF struct rpi_frame
const struct field_desc rpi_fields[] = {
#include "core/rpi_values.def"
};
#undef FIELD_OF

#define FIELD_OF struct fs_frame
const struct field_desc fs_fields[] = {
#include "core/fs_values.def"
};
#undef FIELD_OF

#define FIELD_OF struct storage_frame
const struct field_desc storage_fields[] = {
#include "core/storage_values.def"
};
#undef FIELD_OF
#undef VALUE
#undef VALUE_V
#undef VALUE_S
#undef EXTRA

const size_t host_fields_count = sizeof(host_fields) / sizeof(host_fields[0]);
const size_t watch_fields_count = sizeof(watch_fields) / sizeof(watch_fields[0]);
const size_t rpi_v3d_fields_count = sizeof(rpi_v3d_fields) / sizeof(rpi_v3d_fields[0]);
const size_t rpi_fields_count = sizeof(rpi_fields) / sizeof(rpi_fields[0]);
const size_t fs_fields_count = sizeof(fs_fields) / sizeof(fs_fields[0]);
const size_t storage_fields_count = sizeof(storage_fields) / sizeof(storage_fields[0]);
