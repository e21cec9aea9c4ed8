#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# promtool's linter on what vigil serves: the renderer's output for a hand-built frame
# (host, watches, Pi, two GPUs, counters; written by the metrics unit test), and the
# /metrics of the daemon running on each fixture tree.
. "$(dirname "$0")/../lib.sh"

if ! command -v promtool >/dev/null; then
	not_ok "metrics_lint: promtool is installed (Debian package prometheus)"
	exit 0
fi

# lint NAME FILE: promtool exits 0 only when it has nothing to say.
lint() {
	local out rc
	out=$(promtool check metrics <"$2" 2>&1)
	rc=$?
	check_eq "promtool check metrics: $1" "0 " "$rc $out"
}

unit="$BUILD_DIR/tests/test_metrics"
if [ -x "$unit" ]; then
	VIGIL_METRICS_OUT="$TMP" "$unit" >"$TMP/unit.log" 2>&1
	if [ -s "$TMP/metrics_render.prom" ]; then
		lint "rendered frame" "$TMP/metrics_render.prom"
		check "rendered frame covers GPUs, Pi and counters" \
			grep -q '^vigil_gpu_xid_errors_total{.*} 2$' "$TMP/metrics_render.prom"
	else
		not_ok "metrics unit test wrote its output"
	fi
else
	not_ok "metrics unit test is built ($unit)"
fi

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi

for tree in "$FIXTURES"/*/; do
	[ -d "$tree/proc" ] || continue
	name=$(basename "$tree")
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$VIGIL" --no-log --quiet --interval 0.1 --duration 30 --root "$tree" \
		--watch "init=init" --listen "127.0.0.1:$port" 2>"$TMP/$name.err" &
	pid=$!
	got=""
	for _ in $(seq 50); do
		sleep 0.1
		curl -sf -o "$TMP/$name.prom" "http://127.0.0.1:$port/metrics" || continue
		grep -q '^vigil_samples_total{source="host"} [1-9]' "$TMP/$name.prom" && got=1 && break
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	if [ -n "$got" ]; then
		lint "vigil --root fixtures/$name" "$TMP/$name.prom"
	else
		not_ok "vigil --root fixtures/$name serves /metrics"
		cat "$TMP/$name.err"
	fi
done
