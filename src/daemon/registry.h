/* SPDX-License-Identifier: Apache-2.0 */
/* The plug-in registries: every source, detector and sink, NULL-terminated, in the
 * order the loop runs them (registry.c). The top layer's alone: the plug-ins never
 * see the lists they are on. */
#ifndef VIGIL_DAEMON_REGISTRY_H
#define VIGIL_DAEMON_REGISTRY_H

#include "core/vigil.h"

extern const struct vigil_source *const vigil_sources[];
extern const struct vigil_detector *const vigil_detectors[];
extern const struct vigil_sink *const vigil_sinks[];
/* The detectors (of vigil_detectors) that read the kernel log's new lines: the loop
 * also feeds them between ticks, as soon as the log has new lines (daemon.c). */
extern const struct vigil_detector *const vigil_kmsg_detectors[];

#endif
