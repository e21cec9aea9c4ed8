#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The cost per GPU as GPUs are added: the daemon at its defaults (GPUs every 100 ms, the
# host every second, CSV logs on) on the first N GPUs of the simulated 64-GPU chassis
# (tests/nvml-sim/scenarios/healthy-64gpu) for N = 1, 8, 64, and with --gpu none (the
# host alone: the floor under the GPUs), each for SCALE_SECONDS, REPEAT times in turn;
# the median CPU of each (the daemon's own exit line: every thread, the simulated
# driver's calls included). Printed: CPU-seconds per GPU-hour, all of it and what the
# GPUs add over the host-only run of the same round; the ratios: the cost per GPU at N
# against at 1 GPU (under 1: sublinear), and the whole daemon against its host-only
# floor.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
SECS=${SCALE_SECONDS:-60}
LIB=$PWD/$B/nvml-sim/libnvidia-ml.so.1
SCN=$PWD/tests/nvml-sim/scenarios/healthy-64gpu
for f in "$LIB" "$SCN" "$B/vigil" "$B/bench/nvml_floor"; do
	[ -e "$f" ] || { echo "FAIL: $f is missing (make all bench)"; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

REPEAT=${REPEAT:-1}
echo "-- the cost per GPU, host only / 1 / 8 / 64 simulated GPUs, $SECS s each, $REPEAT round(s)"
for n in 1 8 64; do
	# The first n GPUs of the chassis: its header and their gpu/set lines.
	awk -v n="$n" '$1 == "gpu" || $1 == "set" { if ($2 + 0 >= n) next } { print }' "$SCN" >"$out/scn$n"
done
cp "$out/scn1" "$out/scn0"
for ((r = 0; r < REPEAT; r++)); do
	for n in 0 1 8 64; do
		args=()
		[ "$n" = 0 ] && args=(--gpu none)
		rm -rf "$out/log"
		mkdir -p "$out/log"
		VIGIL_NVML_SCENARIO=$out/scn$n "$B/vigil" --nvml "$LIB" --root / --duration "$SECS" \
			--log-dir "$out/log" --quiet "${args[@]}" 2>"$out/err" >/dev/null || true
		cpu=$(sed -n 's/.*, cpu \([0-9.]*\) s,.*/\1/p' "$out/err" | tail -1)
		[ -n "$cpu" ] || { echo "FAIL: no exit line from vigil at $n GPUs"; tail -3 "$out/err"; exit 1; }
		echo "$n $cpu" >>"$out/res"
	done
done
python3 - "$out/res" "$SECS" <<'PY'
import statistics, sys
secs = float(sys.argv[2])
cpu = {}
for l in open(sys.argv[1]):
    n, c = l.split()
    cpu.setdefault(int(n), []).append(float(c))
med = {n: statistics.median(v) for n, v in cpu.items()}
hours = secs / 3600
print(f"  host only: {med[0]:.3f} CPU-s in {secs:.0f} s ({med[0] / hours:.2f} CPU-s per hour)")
print(f"  {'GPUs':>4}  {'CPU-s per GPU-hour':>18}  {'GPUs over host only':>19}  "
      f"{'per GPU vs 1 GPU':>16}  {'daemon / host only':>18}")
base = None
for n in (1, 8, 64):
    per = med[n] / (n * hours)
    add = (med[n] - med[0]) / (n * hours)
    base = base or add
    print(f"  {n:>4}  {per:>18.3f}  {add:>19.3f}  {add / base:>15.2f}x  {med[n] / med[0]:>17.2f}x")
PY
