#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summaries of a fake_receiver.py requests.log, for the fault tests.

requests.py LOG count [STATUS]    requests (with that status)
requests.py LOG headers           1 when every request had the remote-write headers
requests.py LOG runs              the accepted host sample counter values as runs 1..n
                                  ("12" or "5 9"); "bad ..." when one repeats or is missing
requests.py LOG gap_after STATUS  seconds from the first request with STATUS to the next
requests.py LOG labels            the label names seen, comma-separated
requests.py LOG same_after MODE   1 when the request after the first one in MODE had the
                                  same body (sent again unchanged), else 0
requests.py LOG dups              samples accepted as identical copies, not stored again
requests.py LOG frames            "STORED TWICE MISSING RUNS": host frames stored (a run is
                                  a counter from 1 up), stored twice, missing inside a run
                                  (gaps), and the runs' last values ("12,30")
requests.py LOG caught_up MODE    1 when, after the first request in MODE, the receiver
                                  accepted a request of at most 2 host samples (the sender
                                  is back to one frame a push), else 0"""
import json
import sys

recs = [json.loads(line) for line in open(sys.argv[1])]
what = sys.argv[2]
if what == "count":
    print(sum(1 for r in recs if len(sys.argv) < 4 or r["status"] == int(sys.argv[3])))
elif what == "headers":
    print(int(all(r["headers_ok"] for r in recs)))
elif what == "runs":
    vals = [int(v) for r in recs if r["status"] == 204 for v in r["values"]]
    runs, prev = [], 0
    for x in vals:
        if x == 1 and prev != 0:
            runs.append(prev)
        elif x != prev + 1:
            print("bad at", prev, x)
            sys.exit(0)
        prev = x
    runs.append(prev)
    print(" ".join(map(str, runs)))
elif what == "gap_after":
    st = int(sys.argv[3])
    for i, r in enumerate(recs):
        if r["status"] == st and i + 1 < len(recs):
            print("%.3f" % (recs[i + 1]["t"] - r["t"]))
            break
    else:
        print("none")
elif what == "labels":
    print(",".join(sorted({k for r in recs for k in r.get("labels", [])})))
elif what == "same_after":
    for i, r in enumerate(recs):
        if r["mode"] == sys.argv[3] and i + 1 < len(recs):
            print(int(recs[i + 1]["sha"] == r["sha"]))
            break
    else:
        print("none")
elif what == "caught_up":
    first = next((i for i, r in enumerate(recs) if r["mode"] == sys.argv[3]), None)
    print(int(first is not None and any(r["status"] == 204 and len(r.get("values", [])) <= 2
                                        for r in recs[first + 1:] if r["mode"] != sys.argv[3])))
elif what == "dups":
    print(sum(r.get("dups", 0) for r in recs))
elif what == "frames":
    vals = [int(v) for r in recs if r["status"] == 204 for v in r["values"]]
    runs, seen, twice, missing = [], set(), 0, 0
    for x in vals:
        if not runs or (x == 1 and 1 in seen):
            runs.append(0)
            seen = set()
        if x in seen:
            twice += 1
            continue
        seen.add(x)
        missing += max(0, x - runs[-1] - 1)
        runs[-1] = max(runs[-1], x)
    print(len(vals) - twice, twice, missing, ",".join(map(str, runs)) or "-")
