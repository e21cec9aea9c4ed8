/* SPDX-License-Identifier: Apache-2.0 */
/* The findings of recorded days (core/findings.h) from what `vigil report` read: the
 * events of the period, each GPU's failures, anomaly flags and throttle reasons, and
 * the Pi's throttle flags. */
#ifndef VIGIL_REPORT_REPORT_FINDINGS_H
#define VIGIL_REPORT_REPORT_FINDINGS_H

#include "core/findings.h"
#include "report/report_data.h"

/* Fill f (initialised here) from d, sorted. Sources: "host" when a host log was read,
 * "pi" on a Raspberry Pi, each GPU log's group ("gpu0"). */
void report_findings_build(const struct report_data *d, struct findings *f);

#endif
