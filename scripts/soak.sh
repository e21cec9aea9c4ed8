#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Soak: the daemon for SECONDS under load, then a shorter run under valgrind.
#
#   vigil with 8 simulated GPUs (tests/nvml-sim, scenario healthy-8gpu) at the fastest
#   GPU cadence it accepts (--gpu-interval 0.001), host at 0.1 s, PSS at 1 s, process
#   watches over a churn of short-lived processes, and /metrics and / on loopback
#   scraped in a loop by two clients. Prints RSS, open fds and threads at the start
#   (after a warm-up), the middle and the end, with the missed deadlines, samples and
#   scrapes. Fails when RSS grows from the middle to the end by more than what fills
#   by design (below) plus SOAK_RSS_TOLERANCE_KB (default 256 kB), when fds or
#   threads end above both earlier readings, when a scrape fails, or when the daemon
#   does not stop cleanly.
#
#   What fills by design is allowed on top: the chart ring (README "Memory") is
#   allocated at start but its pages are touched as it fills, one point a second for
#   its first 900 s, in the daemon and in the HTTP server's copy (a point is 8 + 4 x
#   (9 + 2 x 2 watches + 8 GPUs x (8 + 0 fans)) = 316 bytes here), and the dashboard
#   page, rendered into one growing buffer, grows with it to about 740 kB at 900
#   points (README), about 842 bytes a point. So the allowance is 1474 bytes per
#   point added between the middle and the end; past 900 s (a soak of 1800 s or more
#   has its middle there) it is the tolerance alone. A leak of live memory is what
#   the valgrind run (and massif, by hand) tell apart from pages touched late.
#
# Usage: scripts/soak.sh [SECONDS]   (default 600; `make soak SOAK_SECONDS=N`)
# Timings are the machine's: on a shared machine, missed deadlines count its noise too.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
secs=${1:-600}
case $secs in '' | *[!0-9]*) echo "soak: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
[ "$secs" -ge 20 ] || { echo "soak: SECONDS must be at least 20" >&2; exit 2; }
vg_secs=${SOAK_VALGRIND_SECONDS:-60}
rss_tol=${SOAK_RSS_TOLERANCE_KB:-256}
pause=${SOAK_SCRAPE_PAUSE:-0.01} # seconds each client waits between scrapes
build=${BUILD:-build}
vigil=$build/vigil
sim=$build/nvml-sim/libnvidia-ml.so.1
scenario=tests/nvml-sim/scenarios/healthy-8gpu
for f in "$vigil" "$sim"; do
	[ -f "$f" ] || { echo "soak: $f is not built (run make)" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-soak.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
failed=0
fail() { echo "soak: FAIL: $*"; failed=1; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Watched processes: two steady ones, and a churn of short-lived ones (each lives 2 s,
# a new one every 0.5 s), so the watch table keeps adding and dropping processes.
tag=soak$$
start_load() {
	bash -c "exec -a '$tag-steady-a' sleep 100000" &
	pids+=($!)
	bash -c "exec -a '$tag-steady-b' sleep 100000" &
	pids+=($!)
	(while :; do
		bash -c "exec -a '$tag-churn' sleep 2" &
		sleep 0.5
	done) &
	pids+=($!)
}

# The scrapers: two clients on kept-alive connections, alternating /metrics and /,
# counting good and failed scrapes into $1 once a second (and at the end).
start_scrapers() { # start_scrapers COUNTS_FILE PORT
	python3 - "$1" "$2" "$pause" <<'PY' &
import http.client, json, os, signal, sys, threading, time
out, port, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
counts = {"ok": 0, "failed": 0, "last_error": ""}
lock = threading.Lock()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *a: stop.set())

def client():
    conn = None
    paths = ["/metrics", "/"]
    i = 0
    while not stop.is_set():
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", paths[i % 2])
            r = conn.getresponse()
            body = r.read()
            good = r.status == 200 and len(body) > 0
            err = "" if good else "HTTP %d" % r.status
        except Exception as e:
            good, err = False, repr(e)
            if conn is not None:
                conn.close()
            conn = None
        with lock:
            counts["ok" if good else "failed"] += 1
            if err:
                counts["last_error"] = err
        i += 1
        stop.wait(pause)

def dump():
    with lock:
        data = json.dumps(counts)
    with open(out + ".tmp", "w") as f:
        f.write(data)
    os.replace(out + ".tmp", out)

threads = [threading.Thread(target=client) for _ in range(2)]
for t in threads:
    t.start()
while not stop.wait(1):
    dump()
for t in threads:
    t.join()
dump()
PY
	scraper=$!
	pids+=("$scraper")
}

scrapes() { # scrapes COUNTS_FILE FIELD
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2" \
		2>/dev/null || echo 0
}
metric() { # metric PORT NAME: the value of the first sample of NAME
	curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n || index($1, n "{") == 1 {print $2; exit}'
}
gpu_samples() {
	curl -s --max-time 5 "http://127.0.0.1:$1/metrics" |
		awk '$1 == "vigil_samples_total{source=\"gpu\"}" {printf "%d", $2; exit}'
}
# The least of five readings 0.2 s apart: a scrape's connection in flight is not a leak.
least() { # least COMMAND...
	local _ v m=
	for _ in 1 2 3 4 5; do
		v=$("$@")
		{ [ -z "$m" ] || [ "$v" -lt "$m" ]; } && m=$v
		sleep 0.2
	done
	echo "$m"
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
nfds() { ls "/proc/$1/fd" | wc -l; }
nthreads() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }

declare -A row
measure() { # measure POINT PID PORT COUNTS T0
	local p=$1
	row[$p.t]=$(($(date +%s) - $5))
	row[$p.rss]=$(rss_kb "$2")
	row[$p.fds]=$(least nfds "$2")
	row[$p.thr]=$(least nthreads "$2")
	row[$p.missed]=$(metric "$3" vigil_missed_deadlines_total)
	row[$p.gpu]=$(gpu_samples "$3")
	row[$p.ok]=$(scrapes "$4" ok)
	row[$p.fail]=$(scrapes "$4" failed)
}

run_vigil() { # run_vigil LOGDIR PORT [WRAPPER...]: start vigil in the background
	local log=$1 port=$2
	shift 2
	VIGIL_NVML_SCENARIO=$scenario "$@" "$vigil" --nvml "$sim" --root / --gpu-interval 0.001 \
		--interval 0.1 --pss-interval 1 --watch "steady=$tag-steady" --watch "churn=$tag-churn" \
		--listen "127.0.0.1:$port" --log-dir "$log" --quiet ${SOAK_EXTRA_ARGS:-} \
		2>"$log.err" &
	vpid=$!
}
wait_up() { # wait_up PORT: until /metrics answers (30 s at most)
	local _
	for _ in $(seq 300); do
		curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/metrics" && return 0
		sleep 0.1
	done
	return 1
}

# ---- 1. the long run ----
start_load
port=$(free_port)
run_vigil "$tmp/log" "$port"
if ! wait_up "$port"; then
	echo "soak: vigil did not come up"; cat "$tmp/log.err"; exit 1
fi
t0=$(date +%s)
start_scrapers "$tmp/counts" "$port"
warm=$((secs / 10 < 30 ? secs / 10 : 30))
echo "soak: $secs s, 8 simulated GPUs at 0.001 s, host at 0.1 s, 2 scrapers; pid $vpid"
sleep_until() { local d=$(($1 + t0 - $(date +%s))); [ $d -le 0 ] || sleep $d; }
sleep_until "$warm"
measure start "$vpid" "$port" "$tmp/counts" "$t0"
sleep_until $((secs / 2))
measure middle "$vpid" "$port" "$tmp/counts" "$t0"
sleep_until "$secs"
measure end "$vpid" "$port" "$tmp/counts" "$t0"
kill "$scraper"
wait "$scraper" 2>/dev/null
kill -TERM "$vpid"
wait "$vpid"
vrc=$?

printf '\n%-7s %6s %8s %5s %8s %8s %11s %9s %8s\n' point t_s rss_kb fds threads missed gpu_samples scrapes failed
for p in start middle end; do
	printf '%-7s %6s %8s %5s %8s %8s %11s %9s %8s\n' "$p" "${row[$p.t]}" "${row[$p.rss]}" \
		"${row[$p.fds]}" "${row[$p.thr]}" "${row[$p.missed]}" "${row[$p.gpu]}" "${row[$p.ok]}" \
		"${row[$p.fail]}"
done
echo "(missed: scheduler deadlines missed since start; scrapes: good scrapes since start)"
final_fail=$(scrapes "$tmp/counts" failed)
final_ok=$(scrapes "$tmp/counts" ok)
echo "scrapes in all: $final_ok good, $final_fail failed"

growth=$((${row[end.rss]} - ${row[middle.rss]}))
ring_points() { local t=$1; [ "$t" -le 900 ] && echo "$t" || echo 900; }
ring_kb=$(((2 * 316 + 842) * ($(ring_points "${row[end.t]}") - $(ring_points "${row[middle.t]}")) / 1024))
allow=$((ring_kb + rss_tol))
echo "RSS middle -> end: ${growth} kB (allowed: chart ring and page fill $ring_kb kB + tolerance $rss_tol kB)"
[ "$growth" -le "$allow" ] || fail "RSS grew $growth kB from the middle to the end (allowed $allow kB)"
# A leak grows without end: the end above both earlier readings. A kept-alive scrape
# connection caught mid-open moves the count by one either way (seen at 1 ms GPUs).
most() { [ "$1" -ge "$2" ] && echo "$1" || echo "$2"; }
fds_before=$(most "${row[start.fds]}" "${row[middle.fds]}")
thr_before=$(most "${row[start.thr]}" "${row[middle.thr]}")
[ "${row[end.fds]}" -le "$fds_before" ] || fail "open fds grew: ${row[start.fds]}, ${row[middle.fds]} -> ${row[end.fds]}"
[ "${row[end.thr]}" -le "$thr_before" ] || fail "threads grew: ${row[start.thr]}, ${row[middle.thr]} -> ${row[end.thr]}"
[ "${final_fail:-1}" -eq 0 ] || fail "$final_fail scrapes failed (last: $(scrapes "$tmp/counts" last_error))"
[ "${final_ok:-0}" -gt 0 ] || fail "no scrape succeeded"
[ "${row[end.gpu]:-0}" -gt "${row[middle.gpu]:-0}" ] || fail "GPU sampling stopped"
[ $vrc -eq 0 ] || { fail "vigil exited $vrc on SIGTERM"; tail -5 "$tmp/log.err"; }

# ---- 2. under valgrind ----
if [ "$vg_secs" -gt 0 ]; then
	if ! command -v valgrind >/dev/null; then
		fail "valgrind is not installed (make soak installs it: scripts/deps.sh soak)"
	else
		echo
		echo "soak: $vg_secs s under valgrind --leak-check=full"
		port=$(free_port)
		echo '{}' >"$tmp/vgcounts"
		run_vigil "$tmp/vglog" "$port" \
			valgrind --leak-check=full --error-exitcode=1 --log-file="$tmp/valgrind.log"
		if wait_up "$port"; then
			start_scrapers "$tmp/vgcounts" "$port"
			sleep "$vg_secs"
			kill "$scraper"
			wait "$scraper" 2>/dev/null
		fi
		# SIGTERM, as systemd stops it: a clean exit, then valgrind's leak check.
		kill -TERM "$vpid"
		wait "$vpid"
		vrc=$?
		grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable' \
			"$tmp/valgrind.log" | sed 's/^==[0-9]*== */  /'
		vg_ok=$(scrapes "$tmp/vgcounts" ok)
		vg_fail=$(scrapes "$tmp/vgcounts" failed)
		echo "  scrapes under valgrind: ${vg_ok:-0} good, ${vg_fail:-0} failed"
		[ "${vg_ok:-0}" -gt 0 ] && [ "${vg_fail:-1}" -eq 0 ] ||
			fail "scrapes under valgrind: ${vg_ok:-0} good, ${vg_fail:-?} failed"
		if [ "$vrc" != 0 ]; then
			fail "vigil under valgrind: exit $vrc (errors or leaks)"
			grep -A12 -E 'Invalid|uninitialised|definitely lost in|possibly lost in' "$tmp/valgrind.log" |
				head -60
			tail -5 "$tmp/vglog.err"
		fi
	fi
fi

[ $failed -eq 0 ] && echo "soak: ok"
exit $failed
