#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What syncing the logs costs in wake-ups and system calls, counted (not timed): vigil
# with 1 and with 8 simulated GPUs at --gpu-interval 0.1, the host at 1 s, logging to
# ext4 at the default --sync-interval 1, against the same vigil with --no-log (its timer
# wake-ups: the floor of any logging) over the same window, side by side.
#  - wakes/s and CPU: bench/steady.py (voluntary context switches of every thread;
#    the kernel's per-thread CPU time) over WINDOW seconds, start-up left out;
#  - system calls/s: strace -c -f on a second run of the same command, WINDOW seconds:
#    write(2), fdatasync(2), fsync(2), syncfs(2);
#  - bytes written/s: /proc/PID/io wchar over the window.
# VIGIL=PATH measures another build (e.g. the one before a change) the same way;
# VIGIL_ARGS adds options to the logging run (e.g. --sync-per-file); SCENARIOS picks the
# GPU counts (default 1, 8 and 64: the wake-ups should not grow with them).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
V=${VIGIL:-$B/vigil}
WINDOW=${WINDOW:-20}
command -v strace >/dev/null || bench_fail "strace is not installed (Debian package strace)"
bench_need_gpu_source
LIB=$PWD/$B/nvml-sim/libnvidia-ml.so.1
SCN=$PWD/tests/nvml-sim/scenarios
out=$(mktemp -d "${BENCH_TMP:-/var/tmp}/vigil-sync-XXXXXX")
[ "$(stat -f -c %T "$out")" = tmpfs ] && bench_fail "$out is on tmpfs: syncs cost nothing there (set BENCH_TMP)"
pids=()
cleanup() {
	bench_stop_pids
	rm -rf "$out"
}
trap cleanup EXIT

# one NAME ARGS...: vigil with ARGS for WINDOW + 5 s; steady.py into $out/NAME.steady,
# the window's wchar into $out/NAME.wchar.
one() {
	local name=$1
	shift
	mkdir -p "$out/$name"
	"$V" --nvml "$LIB" --gpu-interval 0.1 --interval 1 --duration $((WINDOW + 5)) --quiet \
		"$@" 2>"$out/$name.err" &
	local p=$!
	pids+=("$p")
	sleep 3
	[ -r "/proc/$p/io" ] || bench_fail "vigil ($name) exited early: $(tail -1 "$out/$name.err")"
	local w0 w1
	w0=$(awk '/^wchar/ {print $2}' "/proc/$p/io")
	"$PY" bench/steady.py "$p" 0 "$WINDOW" >"$out/$name.steady"
	w1=$(awk '/^wchar/ {print $2}' "/proc/$p/io")
	echo $((w1 - w0)) >"$out/$name.wchar"
	wait "$p" || true
}
# calls NAME: vigil logging to a directory of its own, under strace -c -f for WINDOW
# seconds.
calls() {
	local name=$1
	mkdir -p "$out/$name.s"
	# shellcheck disable=SC2086
	"$V" --nvml "$LIB" --gpu-interval 0.1 --interval 1 --duration $((WINDOW + 5)) --quiet \
		--log-dir "$out/$name.s" ${VIGIL_ARGS:-} 2>/dev/null &
	local p=$!
	pids+=("$p")
	sleep 3
	timeout -s INT "$WINDOW" strace -f -c -e trace=write,fdatasync,fsync,syncfs -p "$p" \
		2>"$out/$name.strace" || true
	wait "$p" || true
}

echo "window ${WINDOW} s; logs in $out ($(stat -f -c %T "$out")); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for scn in ${SCENARIOS:-healthy-1gpu healthy-8gpu healthy-64gpu}; do
	export VIGIL_NVML_SCENARIO=$SCN/$scn
	# shellcheck disable=SC2086
	one "logs.$scn" --log-dir "$out/logs.$scn" ${VIGIL_ARGS:-} &
	one "nolog.$scn" --no-log &
	wait
	calls "logs.$scn"
	"$PY" - "$out" "$scn" "$WINDOW" <<'PY'
import sys
out, scn, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
def kv(p):
    return {k: int(v) for k, _, v in (l.strip().partition(' ') for l in open(p))}
def sc(p):
    n = {}
    for l in open(p):
        f = l.split()
        if len(f) >= 5 and f[-1] in ('write', 'fdatasync', 'fsync', 'syncfs'):
            n[f[-1]] = int(f[3])
    return n
lg, nl = kv(f'{out}/logs.{scn}.steady'), kv(f'{out}/nolog.{scn}.steady')
c = sc(f'{out}/logs.{scn}.strace')
w = int(open(f'{out}/logs.{scn}.wchar').read())
print(f"  {scn}: logs on {lg['wakes'] / secs:.1f} wakes/s, {lg['cpu_ns'] / 1e7 / secs:.3f}% of a core; "
      f"--no-log {nl['wakes'] / secs:.1f} wakes/s, {nl['cpu_ns'] / 1e7 / secs:.3f}%; "
      f"ratio CPU {lg['cpu_ns'] / max(nl['cpu_ns'], 1):.2f}x, wakes {lg['wakes'] / max(nl['wakes'], 1):.2f}x")
print(f"    per second: write {c.get('write', 0) / secs:.1f}, fdatasync {c.get('fdatasync', 0) / secs:.2f}, "
      f"fsync {c.get('fsync', 0) / secs:.2f}, syncfs {c.get('syncfs', 0) / secs:.2f}; "
      f"{w / secs / 1024:.1f} kB written")
PY
done
unset VIGIL_NVML_SCENARIO
