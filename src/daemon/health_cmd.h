/* SPDX-License-Identifier: Apache-2.0 */
/* `vigil health [--json] [--strict]` and `vigil health clear COMPONENT REASON`, for the
 * log directory of an instance (running or not).
 *
 * `vigil health` follows Kubernetes node-problem-detector's custom plugin convention
 * (kubernetes/node-problem-detector pkg/custompluginmonitor/types/types.go: OK 0,
 * NonOK 1, Unknown 2; plugin/plugin.go keeps the plugin's stdout, trimmed and cut at
 * max_output_length, as the condition's message and logs its stderr): ONE line on
 * stdout, exit 0 healthy (or only degraded, unless --strict), 1 unhealthy, 2 unknown
 * (no verdict kept, unreadable, or no vigil running to keep it). The table goes to
 * stderr; --json prints the JSON of /health on stdout instead of the line. */
#ifndef VIGIL_DAEMON_HEALTH_CMD_H
#define VIGIL_DAEMON_HEALTH_CMD_H

#include <stdbool.h>

#define HEALTH_EXIT_OK      0
#define HEALTH_EXIT_PROBLEM 1
#define HEALTH_EXIT_UNKNOWN 2

/* The verdict of log_dir (the boot id read under root). Returns the exit status. */
int health_cmd_show(const char *root, const char *log_dir, bool json, bool strict);

/* A person's clear of component with reason: through the running daemon when there is
 * one (HEALTH_CLEAR_REQUEST, taken within a host tick), else here under the instance
 * lock. Recorded in events.log as a HEALTH_CLEARED line. Returns the exit status (0
 * done, 1 failed, 2 bad arguments). */
int health_cmd_clear(const char *root, const char *log_dir, const char *component,
                     const char *reason);

#endif
