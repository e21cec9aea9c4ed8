#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU sampling on the simulated NVML (build/nvml-sim), in one run:
#  a. CPU per GPU sample of vigil's NVML source against the floor: bench/nvml_floor.c
#     makes the same NVML calls (checked here with the simulator's call log) and
#     nothing else. Target: within 1.5x, judged on the floor measured inside
#     bench_gpu's process in rounds alternating with the source (bench/nvml_calls.h);
#     the two-process figures are printed beside it.
#  b. 8 simulated GPUs at 100 ms: the daemon's CPU over DAEMON_SECONDS (its own exit
#     line), less the time inside the driver, estimated as the calls it made times the
#     floor's cost per call. Target: under 1% of one core.
#  c. vigil's whole per-sample path (source, GPU rules, CSV row) against
#     bench/ref_gpu_sample.py, a re-creation of the reference logger's per-sample work
#     on the same simulated GPU (the reference itself cannot run here: see that file).
#     Target: at least 50x less CPU per sample.
#  d. NVML calls per GPU sample, from the simulator's call log: the daemon on 1 GPU with
#     2 fans at 100 ms for CALLS_SECONDS (the slow fields every --gpu-slow-interval,
#     10 s), steady state (from the 2nd sample to the last), against the reference
#     logger's per-sample calls (bench/ref_gpu_sample.py on the same GPU): 17.
#     Target: no more than the reference.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
REPEAT=${REPEAT:-3}
DAEMON_SECONDS=${DAEMON_SECONDS:-60}
CALLS_SECONDS=${CALLS_SECONDS:-60}
LIB=$PWD/$B/nvml-sim/libnvidia-ml.so.1
SCN=$PWD/tests/nvml-sim/scenarios
bench_need_gpu_source
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The calls of one sample of GPU 0, from the simulator's log: GPU 0's lines from one
# "nvmlDeviceGetTemperature 0" to the next, taken from the middle of the log (the
# event listener's calls, on their own thread, can fall between them: they name no
# GPU).
calls_of_sample() {
	awk '$NF != "0" {next} $0 == "nvmlDeviceGetTemperature 0" {n++} n == 5' "$1"
}

echo "-- a. NVML source vs the bare call loop ($REPEAT runs each, alternating)"
for scn in healthy-1gpu healthy-8gpu; do
	export VIGIL_NVML_SCENARIO=$SCN/$scn
	VIGIL_NVML_SIM_LOG=$out/log-floor "$B/bench/nvml_floor" "$LIB" 10 1 >/dev/null
	mkdir -p "$out/logs-check"
	VIGIL_NVML_SIM_LOG=$out/log-vigil "$B/bench/bench_gpu" "$LIB" 3 1 "$out/logs-check" \
		>/dev/null 2>&1
	calls_of_sample "$out/log-floor" >"$out/calls-floor"
	calls_of_sample "$out/log-vigil" >"$out/calls-vigil"
	if cmp -s "$out/calls-floor" "$out/calls-vigil"; then
		same="the same $(wc -l <"$out/calls-vigil") calls per GPU sample"
	else
		same="DIFFERENT calls: vigil $(wc -l <"$out/calls-vigil"), floor $(wc -l <"$out/calls-floor")"
	fi
	rm -f "$out/log-floor" "$out/log-vigil"
	for ((r = 1; r <= REPEAT; r++)); do
		"$B/bench/nvml_floor" "$LIB" 5000 10 >"$out/floor.$scn.$r"
		mkdir -p "$out/logs.$r"
		"$B/bench/bench_gpu" "$LIB" 2000 10 "$out/logs.$r" 2>/dev/null >"$out/vigil.$scn.$r"
		rm -rf "$out/logs.$r"
	done
	"$PY" - "$out" "$scn" "$REPEAT" "$same" <<'PY'
import statistics, sys
out, scn, n, same = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def kv(p):
    return dict(l.rstrip('\n').partition(' ')[::2] for l in open(p))
fl = [kv(f'{out}/floor.{scn}.{r}') for r in range(1, n + 1)]
vg = [kv(f'{out}/vigil.{scn}.{r}') for r in range(1, n + 1)]
f = [float(x['floor_sample_ns']) for x in fl]
v = [float(x['source_sample_ns']) for x in vg]
r = sorted(b / a for a, b in zip(f, v))
m = statistics.median(r)
# The verdict: the floor in vigil's own process, rounds alternating (bench_gpu.c).
ip = sorted(float(x['inproc_ratio']) for x in vg if 'inproc_ratio' in x)
ipf = [float(x['inproc_floor_ns']) for x in vg if 'inproc_floor_ns' in x]
ipv = [float(x['inproc_source_ns']) for x in vg if 'inproc_source_ns' in x]
print(f"  {scn}: {same}")
if ip:
    mi = statistics.median(ip)
    print(f"    one process, alternating rounds: floor {statistics.median(ipf):.0f} ns, vigil source "
          f"{statistics.median(ipv):.0f} ns per sample; ratio {mi:.2f}x ({ip[0]:.2f}-{ip[-1]:.2f}; "
          f"target <= 1.5x: {'met' if mi <= 1.5 else 'MISSED'})")
print(f"    two processes (nvml_floor, bench_gpu's source rounds between its other scopes): "
      f"floor {statistics.median(f):.0f} ns ({min(f):.0f}-{max(f):.0f}), "
      f"vigil source {statistics.median(v):.0f} ns ({min(v):.0f}-{max(v):.0f}); "
      f"ratio {m:.2f}x ({r[0]:.2f}-{r[-1]:.2f})")
PY
done
unset VIGIL_NVML_SCENARIO

echo "-- b. the daemon with 8 simulated GPUs at 100 ms for $DAEMON_SECONDS s (logging on)"
export VIGIL_NVML_SCENARIO=$SCN/healthy-8gpu
"$B/bench/nvml_floor" "$LIB" 5000 10 >"$out/floor8"
mkdir -p "$out/daemon"
"$B/vigil" --nvml "$LIB" --gpu-interval 0.1 --duration "$DAEMON_SECONDS" \
	--log-dir "$out/daemon" --quiet 2>"$out/daemon.err" || true
unset VIGIL_NVML_SCENARIO
"$PY" - "$out/floor8" "$out/daemon.err" "$DAEMON_SECONDS" <<'PY'
import re, sys
fl = dict(l.rstrip('\n').partition(' ')[::2] for l in open(sys.argv[1]))
secs = float(sys.argv[3])
line = next((l for l in open(sys.argv[2]) if 'stopped:' in l), '')
m = re.search(r'(\d+) host samples, (\d+) GPU samples, (\d+) missed deadlines, lateness p50 '
              r'([\d.]+) ms p99 ([\d.]+) ms.*cpu ([\d.]+) s, peak rss (\d+) kB', line)
if not m:
    sys.exit(f"  the daemon's exit line was not found: {line.strip()!r}")
host, gpu, missed, p50, p99, cpu, rss = (int(m[1]), int(m[2]), m[3], m[4], m[5],
                                         float(m[6]), int(m[7]))
calls = gpu * int(fl['calls_per_sample'])  # every GPU sample asks all 8 GPUs
driver = calls * float(fl['floor_call_ns']) / 1e9
pct = (cpu - driver) / secs * 100
print(f"  {gpu} GPU samples (x8 GPUs), {host} host samples, {missed} missed deadlines, "
      f"lateness p50 {p50} ms p99 {p99} ms, peak RSS {rss / 1024:.2f} MB")
print(f"  CPU {cpu:.3f} s = {cpu / secs * 100:.3f}% of a core; inside the driver ~{driver:.3f} s "
      f"({calls} calls x {fl['floor_call_ns']} ns); vigil itself {pct:.3f}% of a core "
      f"(target < 1%: {'met' if pct < 1 else 'MISSED'})")
PY

echo "-- c. vigil's whole GPU sample vs the reference logger's (re-created), 1 GPU ($REPEAT runs)"
export VIGIL_NVML_SCENARIO=$SCN/healthy-1gpu
for ((r = 1; r <= REPEAT; r++)); do
	"$PY" bench/ref_gpu_sample.py "$LIB" 5000 >"$out/ref.$r"
	mkdir -p "$out/logs.$r"
	"$B/bench/bench_gpu" "$LIB" 2000 10 "$out/logs.$r" 2>/dev/null >"$out/whole.$r"
	rm -rf "$out/logs.$r"
done
unset VIGIL_NVML_SCENARIO
"$PY" - "$out" "$REPEAT" <<'PY'
import statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
def kv(p):
    return dict(l.rstrip('\n').partition(' ')[::2] for l in open(p))
ref = [kv(f'{out}/ref.{r}') for r in range(1, n + 1)]
vg = [kv(f'{out}/whole.{r}') for r in range(1, n + 1)]
def col(rows, k, s=1.0):
    xs = [float(x[k]) * s for x in rows]
    return statistics.median(xs), min(xs), max(xs), xs
for label, rows, k, s in (
        ('reference (re-created) per sample', ref, 'ref_gpu_sample_us', 1e3),
        ('vigil: NVML source', vg, 'source_sample_ns', 1),
        ('vigil: + GPU rules', vg, 'detect_sample_ns', 1),
        ('vigil: + GPU CSV row and summary (whole)', vg, 'whole_sample_ns', 1),
        ('floor of the CSV write alone (one write(2))', vg, 'write_floor_ns', 1)):
    m, lo, hi, _ = col(rows, k, s)
    print(f"  {label:<46} {m / 1e3:8.2f} us  ({lo / 1e3:.2f}-{hi / 1e3:.2f})")
r = sorted(float(a['ref_gpu_sample_us']) * 1e3 / float(b['whole_sample_ns']) for a, b in zip(ref, vg))
m = statistics.median(r)
print(f"  ratio reference / vigil: {m:.1f}x ({r[0]:.1f}-{r[-1]:.1f}; "
      f"target >= 50x: {'met' if m >= 50 else 'MISSED'})")
print(f"  reference's last row: {ref[0]['ref_gpu_last_row']}")
PY

echo "-- d. NVML calls per GPU sample, 1 GPU with 2 fans at 100 ms for $CALLS_SECONDS s"
export VIGIL_NVML_SCENARIO=$SCN/healthy-1gpu
mkdir -p "$out/calls-daemon"
VIGIL_NVML_SIM_LOG=$out/calls-vigil.log "$B/vigil" --nvml "$LIB" --gpu-interval 0.1 \
	--duration "$CALLS_SECONDS" --log-dir "$out/calls-daemon" --quiet 2>/dev/null || true
VIGIL_NVML_SIM_LOG=$out/calls-ref.log "$PY" bench/ref_gpu_sample.py "$LIB" 600 >/dev/null
# The same GPU with 18 NVLink links and a fabric (an HGX board's): the links' counters
# ride in the slow field-values call; their states and the fabric are the slow reads'.
cp "$SCN/healthy-1gpu" "$out/nvlink-1gpu"
for l in $(seq 0 17); do
	echo "set 0 nvl${l}_state=1 nvl${l}_crc_flit=0 nvl${l}_crc_data=0 nvl${l}_replay=0 nvl${l}_recovery=0"
done >>"$out/nvlink-1gpu"
echo "set 0 fabric_state=3 fabric_status=0 fabric_clique=1 fabric_health=0xaa" >>"$out/nvlink-1gpu"
mkdir -p "$out/calls-nvlink"
VIGIL_NVML_SCENARIO=$out/nvlink-1gpu VIGIL_NVML_SIM_LOG=$out/calls-nvlink.log "$B/vigil" \
	--nvml "$LIB" --gpu-interval 0.1 --duration "$CALLS_SECONDS" --log-dir "$out/calls-nvlink" \
	--quiet 2>/dev/null || true
unset VIGIL_NVML_SCENARIO
"$PY" - "$out/calls-vigil.log" "$out/calls-ref.log" "$out/calls-nvlink.log" <<'PY'
import collections, sys
def per_sample(path):
    # GPU 0's calls from its 2nd sample (nvmlDeviceGetTemperature 0) to its last one:
    # the start-up calls (identity, the first slow read) and the stop are left out.
    lines = [l.split() for l in open(path)]
    gpu = [l[0] for l in lines if len(l) == 2 and l[1] == "0"]
    temps = [i for i, f in enumerate(gpu) if f == "nvmlDeviceGetTemperature"]
    if len(temps) < 3:
        sys.exit(f"  too few samples in {path}")
    span = gpu[temps[1]:temps[-1]]
    return len(temps) - 2, collections.Counter(span)
n, c = per_sample(sys.argv[1])
rn, rc = per_sample(sys.argv[2])
tot, rtot = sum(c.values()) / n, sum(rc.values()) / rn
# A call made at fewer than 9 samples in 10 is on a cadence of its own (the slow fields,
# the power limit once a second); the rest are made at every sample.
slow = [k for k, v in c.items() if v < 0.9 * n]
fast = sum(v for k, v in c.items() if k not in slow) / n
print(f"  vigil: {tot:.2f} calls per GPU sample over {n} samples: {fast:.2f} every sample, "
      f"{tot - fast:.2f} on their own cadence ({sum(c[k] for k in slow)} calls: "
      f"{', '.join(sorted(k[len('nvmlDevice'):] for k in slow))})")
print(f"  reference: {rtot:.2f} calls per GPU sample over {rn} samples "
      f"(target: vigil <= reference: {'met' if tot <= rtot + 1e-9 else 'MISSED'})")
for k in sorted(set(c) | set(rc)):
    print(f"    {k:<44} vigil {c[k] / n:5.2f}  reference {rc[k] / rn:5.2f}")
vn, vc = per_sample(sys.argv[3])
vtot = sum(vc.values()) / vn
print(f"  vigil, the same GPU with 18 NVLink links and a fabric: {vtot:.2f} calls per GPU "
      f"sample over {vn} samples (NvLinkState {vc['nvmlDeviceGetNvLinkState'] / vn:.2f}, "
      f"GpuFabricInfoV {vc['nvmlDeviceGetGpuFabricInfoV'] / vn:.2f}, FieldValues "
      f"{vc['nvmlDeviceGetFieldValues'] / vn:.2f}; target <= reference: "
      f"{'met' if vtot <= rtot + 1e-9 else 'MISSED'})")
PY
