/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon: set-up, the sampling loop, signals and shutdown (daemon.c). */
#ifndef VIGIL_DAEMON_DAEMON_H
#define VIGIL_DAEMON_DAEMON_H

#include "core/options.h"

/* Run the daemon with the parsed options until stopped (signal, --count, --duration).
 * Returns the process exit status. The options are the caller's and outlive the run. */
int vigil_daemon_run(struct vigil_options *opt);

#endif
