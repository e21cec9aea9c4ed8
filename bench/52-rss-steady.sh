#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Resident memory at steady state: five daemons side by side at the default settings
# (logs on, in a temporary directory), VmRSS (with its anonymous and file parts) read
# after 1, 5 and RSS_MINUTES minutes (default 10: the goal is measured after 10
# minutes, when the first minutes' growth is over, bench/RESULTS.md section 35):
#   host                 no GPU
#   host --listen        /metrics scraped every 5 s (gzip, as Prometheus asks)
#   1 GPU                the simulated NVML's healthy-1gpu
#   1 GPU --listen       scraped every 5 s
#   1 GPU, dashboard     scraped, and the dashboard and /health read every 5 s
# The goal is under 4 MB for the first four; the last is shown for what a person who
# keeps the dashboard open costs. A daemon that exits or a page that does not answer
# fails the bench. RSS_MINUTES=20 shows the trend's series full (1,024 points each).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
MIN=${RSS_MINUTES:-10}
bench_need_gpu_source
out=$(mktemp -d)
pids=()
bench_cleanup_at_exit "$out"
labels=("host" "host --listen" "1 GPU" "1 GPU --listen" "1 GPU, dashboard")
gpu=(--nvml "$PWD/$B/nvml-sim/libnvidia-ml.so.1")
ports=()
for i in "${!labels[@]}"; do
	args=(--quiet --log-dir "$out/logs$i")
	mkdir -p "$out/logs$i"
	[ "$i" -ge 2 ] && args+=("${gpu[@]}")
	p=-
	if [ "$i" = 1 ] || [ "$i" -ge 3 ]; then
		p=$(bench_free_port)
		args+=(--listen "127.0.0.1:$p")
	fi
	ports+=("$p")
	VIGIL_NVML_SCENARIO=$PWD/tests/nvml-sim/scenarios/healthy-1gpu \
		"$B/vigil" "${args[@]}" >/dev/null 2>"$out/err$i" &
	pids+=($!)
done
# The scrapes: every 5 s, over new connections as Prometheus's do after a restart.
"$PY" - "$out/scrape_err" "${ports[1]}" "${ports[3]}" "+${ports[4]}" <<'PY' &
import http.client, sys, time
err = open(sys.argv[1], 'w')
targets = [(a.lstrip('+'), a.startswith('+')) for a in sys.argv[2:]]
def get(port, path, gz):
    c = http.client.HTTPConnection('127.0.0.1', int(port), timeout=5)
    c.request('GET', path, headers={'Accept-Encoding': 'gzip'} if gz else {})
    r = c.getresponse()
    r.read()
    c.close()
    if r.status != 200:
        raise OSError(f'{path}: HTTP {r.status}')
start = time.monotonic()
while True:
    for port, dash in targets:
        try:
            get(port, '/metrics', True)
            if dash:
                get(port, '/', False)
                get(port, '/health', False)
        except OSError as e:
            if time.monotonic() - start > 10:
                print(f'port {port}: {e}', file=err, flush=True)
    time.sleep(5)
PY
pids+=($!)
# read_rss I: "rss anon file" of daemon I in kB, or fail when it is gone.
read_rss() {
	local pid=${pids[$1]}
	[ -r "/proc/$pid/status" ] || bench_fail "${labels[$1]} exited: $(tail -1 "$out/err$1")"
	awk '/^VmRSS/ {r = $2} /^RssAnon/ {a = $2} /^RssFile/ {f = $2} END {print r, a, f}' \
		"/proc/$pid/status"
}
declare -A at
t0=$(date +%s)
for m in 1 5 "$MIN"; do
	[ "$m" -le "$MIN" ] || continue
	while [ $(($(date +%s) - t0)) -lt $((m * 60)) ]; do sleep 5; done
	[ ! -s "$out/scrape_err" ] || bench_fail "a page did not answer: $(tail -1 "$out/scrape_err")"
	for i in "${!labels[@]}"; do at[$m,$i]=$(read_rss "$i"); done
done
# The table and the targets: kB to MB by awk (no bc on a bare machine).
for i in "${!labels[@]}"; do
	echo "$i|${labels[$i]}|${at[1,$i]}|${at[5,$i]:-- - -}|${at[$MIN,$i]}"
done | awk -F'|' -v min="$MIN" '
	function mb(kb) { return kb == "-" ? "-" : sprintf("%.2f", kb / 1024) }
	BEGIN { printf "  %-18s %8s %8s   %s\n", "resident (MB)", "1 min", "5 min", min " min (anon + file)" }
	{ split($3, a, " "); split($4, b, " "); split($5, c, " ")
	  printf "  %-18s %8s %8s   %s (%s + %s)\n", $2, mb(a[1]), mb(b[1]), mb(c[1]), mb(c[2]), mb(c[3])
	  if ($1 < 4) t[$1] = sprintf("target: %s under 4 MB after %s min: %s MB = %.2fx the goal (%s)",
	                              $2, min, mb(c[1]), c[1] / 4096, c[1] < 4096 ? "met" : "MISSED") }
	END { for (i = 0; i < 4; i++) print t[i] }'
