/* The plug-in registries: one line per source, detector or sink, in the order they run.
 * Adding a plug-in is its file plus one extern and one array line here. */
#include <stddef.h>

#include "core/vigil.h"

/* Sources: fill the frame. */
extern const struct vigil_source source_nvml;

const struct vigil_source *const vigil_sources[] = {
    &source_nvml,
    NULL,
};

/* Detectors: read the frame after all sources, raise flags and events. */
extern const struct vigil_detector detector_gpu_rules;

const struct vigil_detector *const vigil_detectors[] = {
    &detector_gpu_rules,
    NULL,
};

/* Sinks: write the frame out. */
extern const struct vigil_sink sink_host_csv;
extern const struct vigil_sink sink_live;
extern const struct vigil_sink sink_gpu_csv;
extern const struct vigil_sink sink_gpu_summary;
extern const struct vigil_sink sink_sysinfo;

const struct vigil_sink *const vigil_sinks[] = {
    &sink_host_csv, &sink_gpu_csv, &sink_gpu_summary, &sink_sysinfo, &sink_live, NULL,
};
