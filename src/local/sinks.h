/* SPDX-License-Identifier: Apache-2.0 */
/* The built-in sinks (registered in core/registry.c). */
#ifndef VIGIL_LOCAL_SINKS_H
#define VIGIL_LOCAL_SINKS_H

#include "core/vigil.h"

extern const struct vigil_sink vigil_sink_host_csv; /* host-YYYY-MM-DD.csv */
extern const struct vigil_sink vigil_sink_live;     /* the live table on a terminal */
extern const struct vigil_sink vigil_sink_http;     /* /metrics and the dashboard */

#endif
