#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Scrapes while a day's report is made: GET /metrics latency while GET /report?day= reads
# a day of 8 GPUs at 0.1 s (864,000 rows each: one 120 MB log and seven hard links, about
# 1 GB read), against the same scrapes with nothing else asked, in one run of one vigil.
# Prints the worst and the median scrape of each phase and their ratio: a report made on
# the server's own thread holds every scrape for its seconds; made on its own thread
# (web/http_later.c) the scrapes do not wait for it. REPORT_OLD=PATH runs another
# vigil binary the same way (a build from before the change) for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
ROUNDS=${ROUNDS:-3}
OUT=${BENCH_OUT:-bench/out}/report-scrape
rm -rf "$OUT"
mkdir -p "$OUT/logs"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
DAY=$(date -d '2 days ago' +%F)

# The day, as tests/integration/report_day.sh makes it (one file, seven links).
"$PY" tests/fixtures/gpu_day.py "$OUT/logs" "$DAY" 8 864000

# phase PORT SECONDS|report: scrape every 50 ms for SECONDS (or while one report is
# made), print "N MEDIAN_MS MAX_MS" of the scrapes' wall times.
phase() {
	"$PY" - "$1" "$2" "$DAY" <<'PY'
import http.client, statistics, sys, threading, time
port, what, day = int(sys.argv[1]), sys.argv[2], sys.argv[3]
done = threading.Event()
def report():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    c.request("GET", "/report?day=" + day)
    r = c.getresponse(); r.read()
    if r.status != 200:
        print("report:", r.status, file=sys.stderr)
    done.set()
if what == "report":
    threading.Thread(target=report, daemon=True).start()
    time.sleep(0.05)
    end = None
else:
    end = time.monotonic() + float(what)
times = []
while (end is None and not done.is_set()) or (end is not None and time.monotonic() < end):
    t = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    c.request("GET", "/metrics")
    c.getresponse().read()
    c.close()
    times.append((time.monotonic() - t) * 1000)
    time.sleep(0.05)
print(len(times), "%.2f" % statistics.median(times), "%.2f" % max(times))
PY
}

run() { # run LABEL BINARY
	local label=$1 bin=$2 port pid n1 m1 x1 n2 m2 x2
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$bin" --quiet --interval 1 --root "$PWD/tests/fixtures/x86-server" --nvml /nonexistent \
		--log-dir "$OUT/logs" --listen "127.0.0.1:$port" 2>"$OUT/$label.err" &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && break
		sleep 0.1
	done
	for ((r = 1; r <= ROUNDS; r++)); do
		read -r n1 m1 x1 <<<"$(phase "$port" report)"
		read -r n2 m2 x2 <<<"$(phase "$port" 3)"
		awk -v l="$label" -v r="$r" -v n1="$n1" -v m1="$m1" -v x1="$x1" -v n2="$n2" -v m2="$m2" \
			-v x2="$x2" 'BEGIN { printf "%s, round %d: while a report is made %d scrapes, median %.2f ms, worst %.2f ms; alone %d scrapes, median %.2f ms, worst %.2f ms; worst/worst %.1fx\n", l, r, n1, m1, x1, n2, m2, x2, x1 / x2 }'
	done
	kill -TERM "$pid"
	wait "$pid" || true
}

run vigil "$B/vigil"
[ -n "${REPORT_OLD:-}" ] && run old "$REPORT_OLD"
rm -rf "$OUT/logs"
