#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run every PromQL query of a Grafana dashboard against a Prometheus, as Grafana would
(a range query over the window given), with the dashboard's variables at "All".

dashboard_check.py DASHBOARD.json PROMETHEUS_URL START_UNIX END_UNIX
Prints "ok PANEL: EXPR (N series)" or "not ok PANEL: EXPR: why" per query; exit 1 when
any query errs or returns no series, or the dashboard has no queries."""
import json
import sys
import urllib.parse
import urllib.request

SUBST = [("$__rate_interval", "1m"), ("$__interval", "15s"), ("$__range", "1h"),
         ("${hardware_id}", ".*"), ("$hardware_id", ".*"),
         ("${site}", ".*"), ("$site", ".*"), ("${instance}", ".*"), ("$instance", ".*")]


def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))


def main():
    dash = json.load(open(sys.argv[1]))
    base, start, end = sys.argv[2], sys.argv[3], sys.argv[4]
    bad = n = 0
    for p in panels(dash["panels"]):
        if p.get("type") == "row":
            continue
        targets = p.get("targets") or []
        if not targets:
            print("not ok %s: a panel without a query" % p.get("title"))
            bad += 1
        for t in targets:
            expr = t["expr"]
            for k, v in SUBST:
                expr = expr.replace(k, v)
            if "$" in expr:
                print("not ok %s: unknown variable in %s" % (p["title"], expr))
                bad += 1
                continue
            q = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": "1"})
            n += 1
            try:
                with urllib.request.urlopen(base + "/api/v1/query_range?" + q, timeout=20) as r:
                    data = json.load(r)
            except Exception as e:  # noqa: BLE001 - an error is a failed panel
                body = e.read().decode(errors="replace") if hasattr(e, "read") else ""
                print("not ok %s: %s: %s %s" % (p["title"], expr, e, body))
                bad += 1
                continue
            series = len(data["data"]["result"])
            if data.get("status") != "success" or series == 0:
                print("not ok %s: %s: no series" % (p["title"], expr))
                bad += 1
            else:
                print("ok %s: %s (%d series)" % (p["title"], expr, series))
    if n == 0:
        print("not ok the dashboard has no queries")
        return 1
    return 1 if bad else 0


sys.exit(main())
