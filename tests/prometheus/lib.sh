# SPDX-License-Identifier: Apache-2.0
# Helpers for the tests that run Debian's prometheus (sourced after tests/lib.sh): a
# server on a free loopback port with its data in $TMP, queries of its HTTP API, and
# vigil's host sample count. Every server is killed by the EXIT trap.
PROM_PIDS=()
PROM_Q="$TOP/tests/prometheus/query.py"
trap 'for p in "${PROM_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

have_prometheus() { command -v prometheus >/dev/null 2>&1; }

# prom_start NAME PORT CONFIG DATA_DIR [ARGS...]: start prometheus, wait until ready; sets
# PROM_PID. Fails when it does not become ready in 60 s.
prom_start() {
	local name=$1 port=$2 cfg=$3 data=$4
	shift 4
	prometheus --config.file="$cfg" --storage.tsdb.path="$data" \
		--web.listen-address="127.0.0.1:$port" --web.enable-lifecycle "$@" \
		>>"$TMP/$name.prom.log" 2>&1 &
	PROM_PID=$!
	PROM_PIDS+=("$PROM_PID")
	for _ in $(seq 600); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/-/ready" && return 0
		kill -0 "$PROM_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# prom_stop PID: SIGTERM and wait (Prometheus flushes its WAL).
prom_stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# pq PORT MODE EXPR: query.py (see there) against the server on PORT.
pq() { python3 "$PROM_Q" "http://127.0.0.1:$1" "$2" "$3"; }

# pq_wait SECONDS PORT MODE EXPR: until pq succeeds (query.py exits 0 when the result
# has at least one series).
pq_wait() {
	local t=$1
	shift
	for _ in $(seq $((t * 5))); do
		pq "$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

# dashboard_ok NAME PORT START END: one check that every panel query of the Grafana
# dashboard (dist/grafana/vigil.json) returns series from the server on PORT over
# [START, END] (tests/prometheus/dashboard_check.py); the failing queries when not.
dashboard_ok() {
	if python3 "$TOP/tests/prometheus/dashboard_check.py" "$TOP/dist/grafana/vigil.json" \
		"http://127.0.0.1:$2" "$3" "$4" >"$TMP/dash.out" 2>&1; then
		ok "$1: every panel query returns series ($(grep -c '^ok' "$TMP/dash.out") queries)"
	else
		not_ok "$1: every panel query returns series"
		grep -v '^ok' "$TMP/dash.out" | sed 's/^/    /'
	fi
}
