/* The plug-in registries: one line per source, detector or sink, in the order they run.
 * Adding a plug-in is its file plus one extern and one array line here. */
#include <stddef.h>

#include "core/vigil.h"

/* Sources: fill the frame. */
extern const struct vigil_source vigil_source_procs;

const struct vigil_source *const vigil_sources[] = {
        &vigil_source_procs,
        NULL,
};

/* Detectors: read the frame after all sources, raise flags and events. */

const struct vigil_detector *const vigil_detectors[] = {
        NULL,
};

/* Sinks: write the frame out. */

const struct vigil_sink *const vigil_sinks[] = {
        NULL,
};
