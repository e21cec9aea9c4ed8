#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A /metrics scrape: vigil against node_exporter (Debian prometheus-node-exporter 1.5)
# with only the collectors vigil's host part covers (cpu, meminfo, loadavg, hwmon,
# thermal_zone, cpufreq), both on loopback, in one run.
#
# 1. CPU per scrape: bench/metrics_scrape.py scrapes each with one kept-alive client
#    connection; server CPU from /proc/PID/task/*/schedstat (cross-checked against
#    /proc/PID/stat over the whole run), less each server's idle CPU (vigil keeps
#    sampling at its default 1 s) measured beforehand over the same wall time. A second
#    node_exporter runs with --web.disable-exporter-metrics (no go_*, process_* and
#    promhttp_* series: its collectors' output alone).
# 2. Under load: wrk against vigil while it samples at 100 ms (--interval 0.1):
#    throughput, p99 latency, errors, and the missed deadlines of its exit line; the
#    same wrk against node_exporter for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter || true)}
ROUNDS=${ROUNDS:-5}
VIGIL_SCRAPES=${VIGIL_SCRAPES:-4000}
NE_SCRAPES=${NE_SCRAPES:-1000}
IDLE_S=${IDLE_S:-10}
WRK_S=${WRK_S:-10}
WRK_CONN=${WRK_CONN:-8}
if [ -z "$NE" ]; then
	bench_fail "node_exporter not installed (Debian package prometheus-node-exporter)"
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
wait_port() { # PORT: until /metrics answers (10 s at most)
	"$PY" - "$1" <<'PY'
import http.client, sys, time
for _ in range(100):
    try:
        c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=1)
        c.request('GET', '/metrics')
        if c.getresponse().status == 200:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
}
start_ne() { # PORT [FLAG...]
	local port=$1
	shift
	"$NE" --web.listen-address="127.0.0.1:$port" "$@" --collector.disable-defaults \
		--collector.cpu --collector.meminfo --collector.loadavg --collector.hwmon \
		--collector.thermal_zone --collector.cpufreq >/dev/null 2>&1 &
	ne_pid=$!
	pids+=("$ne_pid")
	wait_port "$port"
}
out=$(mktemp -d)

echo "-- CPU per scrape (one kept-alive client, $ROUNDS rounds; idle CPU subtracted)"
vp=$(bench_free_port)
"$B/vigil" --listen "127.0.0.1:$vp" --no-log --quiet 2>"$out/vigil-idle.err" &
vpid=$!
pids+=("$vpid")
wait_port "$vp"
np=$(bench_free_port)
start_ne "$np"
ne1=$ne_pid
bp=$(bench_free_port)
start_ne "$bp" --web.disable-exporter-metrics
"$PY" bench/metrics_scrape.py --idle "$IDLE_S" --rounds "$ROUNDS" \
	"vigil=$vpid@$vp:$VIGIL_SCRAPES" "node_exporter=$ne1@$np:$NE_SCRAPES" \
	"ne_bare=$ne_pid@$bp:$NE_SCRAPES" >"$out/scrape"
kill "$vpid" "$ne1" "$ne_pid"
wait "$vpid" "$ne1" "$ne_pid" 2>/dev/null || true
"$PY" - "$out/scrape" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    k, _, v = line.rstrip('\n').partition(' ')
    d[k] = v
names = {'vigil': 'vigil', 'node_exporter': 'node_exporter',
         'ne_bare': 'node_exporter --web.disable-exporter-metrics'}
for s in ('vigil', 'node_exporter', 'ne_bare'):
    print(f"  {names[s]}:\n     {float(d[s + '_scrape_us']):8.1f} us CPU per scrape "
          f"(rounds: {d[s + '_rounds_us']}; {d[s + '_scrapes']} scrapes); "
          f"idle {float(d[s + '_idle_pct']):.3f}% of a core; body {d[s + '_body_bytes']} bytes, "
          f"{d[s + '_series']} series; whole run {d[s + '_total_sched_ms']} ms "
          f"(/proc/PID/stat: {d[s + '_total_stat_ms']} ms)")
v = [float(x) for x in d['vigil_rounds_us'].split()]
for s in ('node_exporter', 'ne_bare'):
    n = [float(x) for x in d[s + '_rounds_us'].split()]
    r = sorted(b / a for a, b in zip(v, n))
    m = statistics.median(r)
    print(f"  ratio {names[s]} / vigil: {m:.1f}x (rounds {r[0]:.1f}-{r[-1]:.1f}; "
          f"target >= 20x: {'met' if m >= 20 else 'MISSED'})")
PY

echo "-- wrk, $WRK_CONN connections for $WRK_S s, vigil sampling at 100 ms"
vp=$(bench_free_port)
"$B/vigil" --listen "127.0.0.1:$vp" --interval 0.1 --duration "$((WRK_S + 3))" --no-log \
	--quiet 2>"$out/vigil-wrk.err" &
vpid=$!
pids+=("$vpid")
wait_port "$vp"
wrk -t2 -c"$WRK_CONN" -d"${WRK_S}s" --latency "http://127.0.0.1:$vp/metrics" >"$out/wrk-vigil"
wait "$vpid" || echo "  vigil exited with status $?"
np=$(bench_free_port)
start_ne "$np"
wrk -t2 -c"$WRK_CONN" -d"${WRK_S}s" --latency "http://127.0.0.1:$np/metrics" >"$out/wrk-ne"
kill "$ne_pid"
"$PY" - "$out/wrk-vigil" "$out/wrk-ne" "$out/vigil-wrk.err" <<'PY'
import re, sys
def wrk(path):
    t = open(path).read()
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', t)[1])
    p99 = re.search(r'99%\s+([\d.]+\w+)', t)[1]
    p50 = re.search(r'50%\s+([\d.]+\w+)', t)[1]
    total = int(re.search(r'(\d+) requests in', t)[1])
    sock = re.search(r'Socket errors: (.*)', t)
    non2xx = re.search(r'Non-2xx or 3xx responses: (\d+)', t)
    errs = (sock[1] if sock else 'none') + (f'; {non2xx[1]} non-2xx' if non2xx else '; 0 non-2xx')
    return rps, p50, p99, total, errs
for name, path in (('vigil', sys.argv[1]), ('node_exporter', sys.argv[2])):
    rps, p50, p99, total, errs = wrk(path)
    print(f"  {name:<14} {rps:9.0f} requests/s, latency p50 {p50} p99 {p99}, "
          f"{total} requests, socket errors: {errs}")
line = next((l for l in open(sys.argv[3]) if 'stopped:' in l), '')
m = re.search(r'(\d+) host samples.*?(\d+) missed deadlines, lateness p50 ([\d.]+) ms p99 ([\d.]+) ms', line)
if m:
    print(f"  vigil while loaded: {m[1]} host samples at 100 ms, {m[2]} missed deadlines "
          f"(target 0), sampling lateness p50 {m[3]} ms p99 {m[4]} ms")
else:
    print(f"  vigil's exit line not found: {line.strip()!r}")
PY
rm -rf "$out"
