/* The /metrics tables of the frame's areas. See metric_defs.h. */
#include "core/metric_defs.h"

#include <stddef.h>

#include "core/frame.h"
#include "core/value_def.h"

/* The rows of the struct named by METRIC_OF, from its .def list. */
#define METRIC(member_, name_, type_, help_, scale_)                                               \
        {.row = MR_SERIES,                                                                         \
         .member = #member_,                                                                       \
         .name = name_,                                                                            \
         .type = #type_,                                                                           \
         .help = help_,                                                                            \
         .off = offsetof(METRIC_OF, member_),                                                      \
         .scale = scale_},
#define METRIC_L(member_, name_, type_, help_, key_, val_, scale_)                                 \
        {.row = MR_SERIES,                                                                         \
         .member = #member_,                                                                       \
         .name = name_,                                                                            \
         .type = #type_,                                                                           \
         .help = help_,                                                                            \
         .key = key_,                                                                              \
         .val = val_,                                                                              \
         .off = offsetof(METRIC_OF, member_),                                                      \
         .scale = scale_},
#define METRIC_MORE(member_, key_, val_, scale_)                                                   \
        {.row = MR_SERIES,                                                                         \
         .member = #member_,                                                                       \
         .key = key_,                                                                              \
         .val = val_,                                                                              \
         .off = offsetof(METRIC_OF, member_),                                                      \
         .scale = scale_},
#define METRIC_CODE(members_, name_, type_, help_)                                                 \
        {.row = MR_CODE, .member = members_, .name = name_, .type = #type_, .help = help_},

/* Each area's rows: the metric slots of its list (core/host_values.def and the others),
 * in its order; the struct its members belong to named by METRIC_OF (VD_APPLY expands
 * the member's name before METRIC makes a string of it). */
#define VD_MET(ctx, ...)      VD_APPLY(METRIC, VD_MEMBER(ctx), __VA_ARGS__)
#define VD_MET_L(ctx, ...)    VD_APPLY(METRIC_L, VD_MEMBER(ctx), __VA_ARGS__)
#define VD_MET_MORE(ctx, ...) VD_APPLY(METRIC_MORE, VD_MEMBER(ctx), __VA_ARGS__)
#define VD_MET_CODE(ctx, ...) VD_APPLY(METRIC_CODE, VD_STR(VD_MEMBER(ctx)), __VA_ARGS__)
#define VD_MET_CODE_OF(ctx, members_, name_, type_, help_)                                         \
        METRIC_CODE(members_, name_, type_, help_)
#define VD_STR(x)  VD_STR_(x)
#define VD_STR_(x) #x
#define VALUE      VD_AREA_METRIC
#define VALUE_V    VD_AREA_METRIC
#define VALUE_S    VD_AREA_METRIC
#define EXTRA      VD_EXTRA_METRIC
static const struct metric_def host_rows[] = {
#define METRIC_OF struct host_frame
#include "core/host_values.def"
#undef METRIC_OF
};
static const struct metric_def watch_rows[] = {
#define METRIC_OF struct watch_frame
#include "core/watch_values.def"
#undef METRIC_OF
};
static const struct metric_def rpi_rows[] = {
#define METRIC_OF struct rpi_frame
#include "core/rpi_values.def"
#undef METRIC_OF
};
static const struct metric_def fs_rows[] = {
#define METRIC_OF struct fs_frame
#include "core/fs_values.def"
#undef METRIC_OF
};
static const struct metric_def storage_rows[] = {
#define METRIC_OF struct storage_frame
#include "core/storage_values.def"
#undef METRIC_OF
};
#undef VALUE
#undef VALUE_V
#undef VALUE_S
#undef EXTRA

#define TABLE(rows)                                                                                \
        {                                                                                          \
                rows, sizeof(rows) / sizeof(rows[0])                                               \
        }
const struct metric_table host_metrics = TABLE(host_rows);
const struct metric_table watch_metrics = TABLE(watch_rows);
const struct metric_table rpi_metrics = TABLE(rpi_rows);
const struct metric_table fs_metrics = TABLE(fs_rows);
const struct metric_table storage_metrics = TABLE(storage_rows);
