#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Query a Prometheus HTTP API (for the tests).

query.py URL MODE EXPR
  MODE count:   print the number of series of the instant query EXPR
  MODE values:  print the instant vector's values, one "labels value" a line
  MODE raw:     EXPR is a range selector; print "ts value" of every raw sample of the
                first series, oldest first (one line each)
  MODE alerts:  print the names of the firing alerts (EXPR ignored)
Exit status: 0 when the result holds at least one series (or firing alert), 1 when it
is empty, 2 when the query fails (the error on stderr)."""
import json
import sys
import urllib.parse
import urllib.request


def get(url):
    with urllib.request.urlopen(url, timeout=20) as r:
        return json.load(r)


def main():
    base, mode, expr = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        if mode == "alerts":
            data = get(base + "/api/v1/alerts")
            names = sorted({a["labels"]["alertname"] for a in data["data"]["alerts"]
                            if a["state"] == "firing"})
            print("\n".join(names))
            return 0 if names else 1
        data = get(base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    except urllib.error.HTTPError as e:
        print("query failed: %s: %s" % (e, e.read().decode(errors="replace")), file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - any failure is a failed query
        print("query failed: %s" % e, file=sys.stderr)
        return 2
    if data.get("status") != "success":
        print("query failed: %s" % data, file=sys.stderr)
        return 2
    result = data["data"]["result"]
    if mode == "count":
        print(len(result))
    elif mode == "values":
        for r in result:
            print(json.dumps(r["metric"], sort_keys=True), r["value"][1])
    elif mode == "raw":
        if result:
            for ts, v in result[0]["values"]:
                print(ts, v)
    return 0 if result else 1


sys.exit(main())
