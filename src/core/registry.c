/* The plug-in registries: one line per source, detector or sink, in the order they run.
 * Adding a plug-in is its file plus one extern and one array line here. */
#include <stddef.h>

#include "core/vigil.h"

/* Sources: fill the frame. */
extern const struct vigil_source source_kmsg;

const struct vigil_source *const vigil_sources[] = {
    &source_kmsg,
    NULL,
};

/* Detectors: read the frame after all sources, raise flags and events. */

const struct vigil_detector *const vigil_detectors[] = {
    NULL,
};

/* Sinks: write the frame out. */
extern const struct vigil_sink sink_host_csv;
extern const struct vigil_sink sink_live;

const struct vigil_sink *const vigil_sinks[] = {
    &sink_host_csv,
    &sink_live,
    NULL,
};
