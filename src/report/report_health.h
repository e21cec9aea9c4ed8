/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict in `vigil report`: what vigil keeps in the log directory
 * (core/health.h's health.state), in the lines every screen shows (health_say_text()).
 * Its own file: core/health.h and report/events.h each name a struct event_line. */
#ifndef VIGIL_REPORT_REPORT_HEALTH_H
#define VIGIL_REPORT_REPORT_HEALTH_H

#include <stdio.h>

#include "util/strbuf.h"

/* Append the verdict of DIR/health.state to out; nothing when there is none; a clear
 * message on err when it cannot be read or is no state file. */
void report_health_text(const char *dir, FILE *err, struct strbuf *out);

#endif
