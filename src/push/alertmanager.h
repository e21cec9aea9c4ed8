/* SPDX-License-Identifier: Apache-2.0 */
/* The Alertmanager sink (--alertmanager URL, --alertmanager-config FILE): vigil's own
 * critical and warning findings pushed as alerts to an Alertmanager's API v2
 * (POST /api/v2/alerts), which does the routing, grouping, silences and notifications.
 *
 * As Prometheus's rule evaluation does (prometheus v3.14.0, rules/alerting.go:102-113
 * needsSending, :618-626 sendAlerts; rules/manager.go:500-515 SendAlerts): every
 * evaluation_interval the main loop looks at the findings; an alert that starts, and
 * a resolved one, is sent at once; a firing alert is sent again every resend_delay
 * with endsAt = now + 4 x max(evaluation_interval, resend_delay), so the Alertmanager
 * resolves it by itself if vigil stops sending; a resolved one is sent with endsAt =
 * the time it cleared. Which findings fire: push/am_eval.h.
 *
 * What the Alertmanager has not taken yet is kept on disk (push/am_store.h) and
 * delivered when it answers again, after a restart too. Sending runs on the sink's
 * own thread: the main loop only hands over the alerts of an evaluation. */
#ifndef VIGIL_PUSH_ALERTMANAGER_H
#define VIGIL_PUSH_ALERTMANAGER_H

#include <stddef.h>

#include "core/vigil.h"

extern const struct vigil_sink vigil_sink_alertmanager;

/* The API endpoint of a base URL into out (cap bytes): "http://am:9093" and
 * "http://am:9093/" give "http://am:9093/api/v2/alerts", a URL ending in
 * /api/v2/alerts stays as it is, a path prefix is kept ("http://h/am" gives
 * "http://h/am/api/v2/alerts"), as Prometheus's alertmanager_config does. */
void am_endpoint(const char *base, char *out, size_t cap);

#endif
