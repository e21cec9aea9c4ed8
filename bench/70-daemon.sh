#!/usr/bin/env bash
# The whole daemon against its floor (bench/daemon_floor.c), in one run: vigil with 1 and
# with 8 simulated GPUs at --gpu-interval 0.1, the host at 1 s, logging on, against a bare
# program that wakes at the same deadlines, makes the same NVML calls, re-reads the files
# vigil held open, writes rows of the same sizes and syncs them once a second. Both are
# measured the same way in their steady state (bench/steady.py: the kernel's per-thread
# CPU time and context switches over a window that leaves start-up and exit out;
# voluntary switches are wake-ups, each a sleep a thread came back from).
# Runs alternate, REPEAT times each; medians are printed. Target: vigil within 1.25x of
# the floor's CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
REPEAT=${REPEAT:-3}
SECS=${DAEMON_SECONDS:-30}
LIB=$PWD/$B/nvml-sim/libnvidia-ml.so.1
SCN=$PWD/tests/nvml-sim/scenarios
if [ ! -x "$B/bench/daemon_floor" ] || [ ! -f "$LIB" ]; then
	echo "skip: needs $B/bench/daemon_floor and the simulated NVML"
	exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
SKIP=3
WINDOW=$((SECS - SKIP - 2))


for scn in healthy-1gpu healthy-8gpu; do
	export VIGIL_NVML_SCENARIO=$SCN/$scn
	for ((r = 1; r <= REPEAT; r++)); do
		d=$out/v.$scn.$r
		mkdir -p "$d"
		"$B/vigil" --nvml "$LIB" --gpu-interval 0.1 --interval 1 --duration "$SECS" \
			--log-dir "$d" --quiet 2>/dev/null &
		vpid=$!
		"$PY" bench/steady.py "$vpid" "$SKIP" "$WINDOW" >"$out/vigil.$scn.$r"
		bench_held_files "$vpid"
		wait "$vpid" || true
		grow=$(bench_avg_row "$(ls "$d"/gpu0-*.csv | head -1)")
		hrow=$(bench_avg_row "$(ls "$d"/host-*.csv | head -1)")
		mkdir -p "$out/f.$scn.$r"
		"$B/bench/daemon_floor" "$LIB" "$SECS" 100 1000 "$out/f.$scn.$r" "$grow" "$hrow" \
			"${held_files[@]}" >/dev/null &
		fpid=$!
		"$PY" bench/steady.py "$fpid" "$SKIP" "$WINDOW" >"$out/floor.$scn.$r"
		wait "$fpid" || true
		rm -rf "$d" "$out/f.$scn.$r"
	done
	"$PY" - "$out" "$scn" "$REPEAT" "$WINDOW" <<'PY'
import statistics, sys
out, scn, n, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])  # window
def read(p):
    kv = {k: int(v) for k, _, v in (l.strip().partition(' ') for l in open(p))}
    kv['cpu'] = kv['cpu_ns'] / 1e9
    return kv
v = [read(f'{out}/vigil.{scn}.{r}') for r in range(1, n + 1)]
f = [read(f'{out}/floor.{scn}.{r}') for r in range(1, n + 1)]
med = lambda xs: statistics.median(xs)
vc, fc = med([x['cpu'] for x in v]), med([x['cpu'] for x in f])
vw, fw = med([x['wakes'] for x in v]) / secs, med([x['wakes'] for x in f]) / secs
ratio = vc / fc if fc > 0 else float('inf')
print(f"  {scn}: vigil {vc / secs * 100:.3f}% of a core, {vw:.1f} wakes/s; floor "
      f"{fc / secs * 100:.3f}%, {fw:.1f} wakes/s; ratio {ratio:.2f}x (target <= 1.25x: "
      f"{'met' if ratio <= 1.25 else 'MISSED'}); CPU ms per run vigil "
      f"{sorted(round(x['cpu'] * 1e3, 1) for x in v)}, floor "
      f"{sorted(round(x['cpu'] * 1e3, 1) for x in f)}")
PY
done
