#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU benchmarks of 60-gpu.sh and 70-daemon.sh on a real NVIDIA driver instead of the
# simulator, where each NVML call is an ioctl into the driver and the GPU's firmware
# rather than a table lookup. Fails (exit 1, with the reason) on a machine without a driver. Four measurements,
# each ratio from one run on the same GPU (GPU 0):
#
#   a. vigil's NVML source per sample against the bare calls (nvml_floor.c: the same
#      calls, nothing else), and the time of one call;
#   b. vigil's whole GPU sample (source, rules, CSV row: bench_gpu.c) against the
#      reference logger's per-sample work (ref_gpu_sample.py, its calls through
#      ctypes as pynvml makes them);
#   c. the whole daemon (GPU at 100 ms, host at 1 s, logging on) against its floor
#      (daemon_floor.c: the same deadlines, calls, reads and row writes), CPU and wake-ups from
#      steady.py over the same window;
#   d. the driver: name and version (nvidia-smi), for the record.
#
# NVML_LIB names the driver's libnvidia-ml.so.1 (default: what the loader finds).
# Environment: SAMPLES (200), DAEMON_SECONDS (40), VIGIL_ARGS (options added to the
# daemon's in c, e.g. "--no-gpu-clock-events").
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-python3}
SAMPLES=${SAMPLES:-200}
SECS=${DAEMON_SECONDS:-40}
read -r -a EXTRA <<<"${VIGIL_ARGS:-}"
LIB=${NVML_LIB:-$(ldconfig -p 2>/dev/null | awk '/libnvidia-ml\.so\.1 / {print $NF; exit}')}
for d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
	[ -z "$LIB" ] && [ -e "$d/libnvidia-ml.so.1" ] && LIB=$d/libnvidia-ml.so.1
done
if [ -z "$LIB" ] || ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
	bench_fail "no NVIDIA driver here (nvidia-smi, libnvidia-ml.so.1)"
fi
for b in nvml_floor bench_gpu daemon_floor; do
	[ -x "$B/bench/$b" ] || bench_fail "$B/bench/$b is not built (make bench)"
done
out=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT
kv() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

echo "-- d. the driver"
nvidia-smi --query-gpu=index,name,driver_version,pstate,temperature.gpu,power.draw \
	--format=csv,noheader | sed 's/^/  /'
echo "  library: $LIB"

echo "-- a. vigil's NVML source per sample vs the bare calls ($SAMPLES samples, GPU 0)"
"$B/bench/nvml_floor" "$LIB" "$SAMPLES" 10 >"$out/floor"
mkdir -p "$out/logs"
"$B/bench/bench_gpu" "$LIB" "$SAMPLES" 10 "$out/logs" 2>/dev/null >"$out/vigil"
echo "  bare calls: $(kv "$out/floor" calls_per_sample) calls per sample," \
	"$(kv "$out/floor" floor_call_ns) ns per call, $(kv "$out/floor" floor_sample_ns) ns per sample"
echo "  vigil source: $(kv "$out/vigil" source_sample_ns) ns per sample;" \
	"in one process, alternating rounds: floor $(kv "$out/vigil" inproc_floor_ns) ns," \
	"source $(kv "$out/vigil" inproc_source_ns) ns, ratio $(kv "$out/vigil" inproc_ratio)x (target <= 1.5x)"

echo "-- b. vigil's whole GPU sample vs the reference logger's (re-created)"
"$PY" bench/ref_gpu_sample.py "$LIB" "$SAMPLES" >"$out/ref"
"$PY" - "$out/ref" "$out/vigil" <<'PY'
import sys
kv = lambda p: dict(l.rstrip('\n').partition(' ')[::2] for l in open(p))
ref, vg = kv(sys.argv[1]), kv(sys.argv[2])
r = float(ref['ref_gpu_sample_us']) * 1e3
w = float(vg['whole_sample_ns'])
print(f"  reference {r / 1e3:.2f} us, vigil whole sample {w / 1e3:.2f} us "
      f"(source {float(vg['source_sample_ns']) / 1e3:.2f} us): reference / vigil = {r / w:.2f}x "
      f"(target >= 50x: {'met' if r / w >= 50 else 'MISSED'})")
PY

echo "-- c. the whole daemon vs its floor, GPU at 100 ms, host at 1 s, $SECS s${EXTRA[*]:+, vigil ${EXTRA[*]}}"
mkdir -p "$out/d" "$out/f"
"$B/vigil" --nvml "$LIB" --gpu-interval 0.1 --interval 1 --duration "$SECS" --log-dir "$out/d" \
	--quiet "${EXTRA[@]}" 2>"$out/d.err" &
vpid=$!
pids+=("$vpid")
"$PY" bench/steady.py "$vpid" 5 $((SECS - 8)) >"$out/vigil.steady"
bench_held_files "$vpid"
wait "$vpid"
grow=$(bench_avg_row "$(ls "$out"/d/gpu0-*.csv | head -1)")
hrow=$(bench_avg_row "$(ls "$out"/d/host-*.csv | head -1)")
"$B/bench/daemon_floor" "$LIB" "$SECS" 100 1000 "$out/f" "$grow" "$hrow" "${held_files[@]}" \
	statfs:/dev/shm statfs:/ >/dev/null &
fpid=$!
pids+=("$fpid")
"$PY" bench/steady.py "$fpid" 5 $((SECS - 8)) >"$out/floor.steady"
wait "$fpid"
"$PY" - "$out/vigil.steady" "$out/floor.steady" $((SECS - 8)) <<'PY'
import sys
kv = lambda p: {k: int(v) for k, _, v in (l.strip().partition(' ') for l in open(p))}
v, f, secs = kv(sys.argv[1]), kv(sys.argv[2]), float(sys.argv[3])
ratio = v['cpu_ns'] / f['cpu_ns'] if f['cpu_ns'] else float('inf')
print(f"  vigil {v['cpu_ns'] / 1e9 / secs * 100:.3f}% of a core, {v['wakes'] / secs:.1f} wakes/s; "
      f"floor {f['cpu_ns'] / 1e9 / secs * 100:.3f}%, {f['wakes'] / secs:.1f} wakes/s; "
      f"ratio {ratio:.2f}x (target <= 1.25x: {'met' if ratio <= 1.25 else 'MISSED'})")
PY
grep -h 'stopped:' "$out/d.err" | sed 's/^/  /'
