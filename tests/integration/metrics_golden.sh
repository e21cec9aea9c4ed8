#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Golden /metrics: the whole exposition vigil serves on each fixture tree and on
# simulated GPU scenarios, diffed against tests/golden/NAME.prom (node_exporter's
# end-to-end test is the model), so a renamed, relabelled or dropped series, or changed
# help text, fails here. Values that depend on timing (sample counts, durations, the
# process's own CPU and memory, GPU timelines) are written as "<v>" on both sides; every
# other value is compared exactly. After a deliberate change, regenerate with
#   VIGIL_GOLDEN_UPDATE=1 bash tests/integration/metrics_golden.sh
# and review the diff like code.
. "$(dirname "$0")/../lib.sh"
GOLDEN="$TOP/tests/golden"
SCEN="$TOP/tests/nvml-sim/scenarios"
if [ ! -x "$VIGIL" ] || ! command -v curl >/dev/null; then
	not_ok "metrics_golden: $VIGIL and curl are needed"
	exit 0
fi

# normalise FILE [EXTRA]: the exposition with timing-dependent values masked, one line
# each; EXTRA, a regular expression, masks more families (those a tree does not fix).
normalise() {
	python3 - "$1" "${2:-}" <<'PY'
import re, sys
# Families whose values move with time or the machine, whatever the input.
VOLATILE = re.compile(r'^vigil_(samples_total|sample_duration_seconds|missed_deadlines_total|'
                      r'process_|scrape|http_|uptime|start_time|build_info|'
                      r'last_sample|lateness|schedule|self_|resident|cpu_seconds|open_fds|'
                      r'threads|gpu_|filesystem_(size|avail)_bytes|filesystem_full)')
EXTRA = re.compile(sys.argv[2]) if sys.argv[2] else None
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if line.startswith('#') or not line:
        print(line)
        continue
    m = re.match(r'^(\S+?(?:\{.*\})?) (\S+)$', line)
    if not m:
        print(line)
        continue
    name, value = m.groups()
    masked = VOLATILE.match(name) or (EXTRA and EXTRA.match(name))
    print(f'{name} <v>' if masked else line)
PY
}

# scrape NAME ARGS...: run vigil with ARGS and --listen, take /metrics once the host
# has been sampled twice, compare (or write) the golden file.
scrape() {
	local name=$1 port pid got="" prom="$TMP/$1.prom"
	shift
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$VIGIL" --no-log --quiet --interval 0.1 --duration 30 --listen "127.0.0.1:$port" "$@" \
		2>"$TMP/$name.err" &
	pid=$!
	for _ in $(seq 100); do
		sleep 0.1
		curl -sf -o "$prom" "http://127.0.0.1:$port/metrics" || continue
		grep -q '^vigil_samples_total{source="host"} [2-9]' "$prom" && got=1 && break
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	if [ -z "$got" ]; then
		not_ok "golden $name: vigil served /metrics"
		sed 's/^/    /' "$TMP/$name.err"
		return
	fi
	# One sample per name and label set: a duplicate is an invalid exposition (two NVMe
	# drives whose hwmon chips are both "nvme" once made one).
	local dups
	dups=$(grep -v '^#' "$prom" | sed 's/ [^ ]*$//' | sort | uniq -d | head -3)
	check_eq "golden $name: no series twice" "" "$dups"
	normalise "$prom" "${MASK:-}" >"$TMP/$name.norm"
	if [ -n "${VIGIL_GOLDEN_UPDATE:-}" ]; then
		cp "$TMP/$name.norm" "$GOLDEN/$name.prom"
		ok "golden $name: written"
	elif [ ! -f "$GOLDEN/$name.prom" ]; then
		not_ok "golden $name: tests/golden/$name.prom exists"
	elif diff -u "$GOLDEN/$name.prom" "$TMP/$name.norm" >"$TMP/$name.diff"; then
		ok "golden $name: /metrics as recorded"
	else
		not_ok "golden $name: /metrics differs from tests/golden/$name.prom"
		head -40 "$TMP/$name.diff" | sed 's/^/    /'
	fi
}

# /dev/shm is the real one where a tree has no statvfs stand-in (collect/shm.h).
SHM='^vigil_shm_(used|available)_bytes'
for tree in "$FIXTURES"/*/; do
	[ -d "$tree/proc" ] || continue
	mask=""
	[ -f "$tree/dev/shm.statvfs" ] || mask=$SHM
	MASK=$mask scrape "fixture-$(basename "$tree")" --root "$tree" --gpu none --watch "init=init"
done
if [ -f "$NVML_SIM" ]; then
	for scn in healthy-8gpu unsupported-fields; do
		MASK=$SHM VIGIL_NVML_SCENARIO="$SCEN/$scn" scrape "nvml-$scn" --root "$FIXTURES/x86-server" \
			--nvml "$NVML_SIM" --gpu-interval 0.1
	done
else
	not_ok "metrics_golden: the simulated NVML is built ($NVML_SIM)"
fi
