#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Schedule lateness, CPU and peak RSS of the daemon sampling this machine's host sources,
# from the daemon's own exit line (its getrusage, so no parent process is counted).
B=${BUILD:-build}
dur=${SCHED_SECONDS:-20}
for iv in 0.1 0.01; do
	line=$("$B/vigil" --interval "$iv" --duration "$dur" --no-log --quiet 2>&1 | grep 'stopped:')
	python3 - "$iv" "$dur" "$line" <<'PY'
import re, sys
iv, dur, line = sys.argv[1], float(sys.argv[2]), sys.argv[3]
m = re.search(r"(\d+) host samples.*?(\d+) missed deadlines, lateness p50 ([\d.]+) ms p99 ([\d.]+) ms.*cpu ([\d.]+) s, peak rss (\d+) kB", line)
n, missed, p50, p99, cpu, rss = int(m[1]), m[2], m[3], m[4], float(m[5]), int(m[6])
print(f"interval {iv} s for {dur:.0f} s: {n} samples, {missed} missed; lateness p50 {p50} ms, "
      f"p99 {p99} ms (target p99 < 1 ms at 0.1 s on an idle machine); "
      f"{cpu / dur * 100:.3f}% of a core; peak RSS {rss / 1024:.2f} MB (target < 4 MB)")
PY
done
