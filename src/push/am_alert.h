/* SPDX-License-Identifier: Apache-2.0 */
/* Alerts for an Alertmanager: a finding turned into one alert (labels, annotations,
 * start and end), and a set of alerts as the JSON body of Alertmanager's API v2
 * `POST /api/v2/alerts` (alertmanager api/v2/openapi.yaml, postableAlerts: an array of
 * objects with labels and annotations, maps of strings, startsAt and endsAt, RFC 3339
 * date-times, and generatorURL):
 *
 *   [{"labels":{"alertname":"VigilGpuLost","severity":"critical","instance":"gpu-07",
 *     "job":"vigil","machine_id":"4d3b...","gpu":"0"},
 *     "annotations":{"summary":"GPU lost for 3 s, still lost at the end (...)",
 *     "description":"GPU lost on gpu-07, gpu0: ..."},
 *     "startsAt":"2026-12-06T15:16:06.120Z","endsAt":"2026-12-06T15:20:06.120Z"}]
 *
 * An alert's identity in Alertmanager is its label set: the same labels sent again
 * update the one alert, so sending the whole set again is idempotent. */
#ifndef VIGIL_PUSH_AM_ALERT_H
#define VIGIL_PUSH_AM_ALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/findings.h"
#include "push/rw_identity.h"
#include "push/rw_proto.h"
#include "util/strbuf.h"

#define AM_MAX_LABELS  (RW_PUSH_LABELS + 4) /* alertname, severity, gpu or component, key */
#define AM_SUMMARY_LEN 320
#define AM_DESC_LEN    400
#define AM_MAX_ALERTS  128 /* alerts kept (firing and resolved not yet delivered) */

struct am_alert {
        size_t nlabels;
        struct rw_label labels[AM_MAX_LABELS]; /* sorted by name: one spelling per set */
        char summary[AM_SUMMARY_LEN];
        char description[AM_DESC_LEN];
        int64_t starts_ms; /* Unix ms */
        int64_t ends_ms;   /* Unix ms of the resolution; 0 while it fires */
        uint64_t id;       /* am_alert_id() of the labels */
};

/* "VigilGpuLost" from the kind's name "gpu_lost" ("Vigil" and each word capitalised),
 * into out (cap bytes): a name for every kind, new ones included. */
void am_alert_name(enum finding_kind kind, char *out, size_t cap);

/* The alert of finding x: alertname, severity ("critical" or "warning"), the base
 * labels (instance, job, machine_id, external labels), gpu="N" for a source "gpuN"
 * or component=source otherwise, key=x->key when it has one; summary the finding's
 * sentence, description with the host; starts_ms from x->first_t, else now_ms.
 * host names the machine in the description. Returns false when x is no alert (fyi). */
bool am_alert_from_finding(const struct finding *x, const struct rw_label *base, size_t nbase,
                           const char *host, int64_t now_ms, struct am_alert *out);

/* A 64-bit hash (FNV-1a) of the sorted label set: equal sets, equal ids. */
uint64_t am_alert_id(const struct am_alert *a);

/* The JSON array of a[0..n) into out: a firing alert's endsAt is now_ms + valid_ms
 * (Prometheus's ValidUntil), a resolved one's its ends_ms. Strings are escaped for
 * JSON (quote, backslash, control characters as \uXXXX) and kept valid UTF-8 (a byte
 * that does not start or continue a sequence becomes U+FFFD). out records overflow. */
void am_json_encode(const struct am_alert *a, size_t n, int64_t now_ms, int64_t valid_ms,
                    struct strbuf *out);

/* s as a JSON string, quotes included (see am_json_encode). */
void am_json_string(struct strbuf *out, const char *s);

/* Unix ms as RFC 3339 UTC with milliseconds: "2026-12-06T15:16:06.120Z". */
void am_rfc3339(struct strbuf *out, int64_t ms);

#endif
