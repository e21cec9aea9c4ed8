#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole daemon at --profile signage against the reference monitor (seeds/004_*,
# monitor_player.py) running the same job on the same machine at the same time: its own
# loop at its default 5 s, --quiet, writing its CSV, with tests/fixtures/bin/vcgencmd
# first on PATH. Both run side by side for WINDOW seconds after WARMUP (45 s: start-up
# left out: Python's imports alone are a few seconds of samples' worth, and what either
# wrote at its start reaches the disk within the kernel's 30 s write-back expiry and
# 5 s journal commit), and the figures are per hour of that window:
#
# - CPU: each program runs in a cgroup of its own, so the reading includes every thread
#   and every child (the reference's vcgencmd runs) at nanosecond resolution: cgroup v1
#   cpuacct.usage (ns) or cgroup v2 cpu.stat usage_usec
#   (https://docs.kernel.org/admin-guide/cgroup-v2.html, "cpu.stat";
#   https://docs.kernel.org/admin-guide/cgroup-v1/cpuacct.html).
# - device writes: each logs to its own ext4 file system on its own loop device, read from
#   the device's counters as in 85-device-writes.sh (/sys/block/loopN/stat).
# - a floor, in a third cgroup over the same window: bench/daemon_floor.c waking at the
#   same 5 s deadlines, re-reading with one pread each the files vigil holds open (its
#   /proc, /sys and firmware files, the watched processes' stat), writing a row of the
#   same size and syncing every 60 s, and nothing else: no listing of /proc, no PSS, no
#   parsing. What any program doing this job costs on this machine at the least; the
#   reference's CPU over it is the most any implementation could show here.
#
# The same job: both watch the player (run_linux.py) and CHROMIUM chromium processes
# started here, on this machine's /proc. vigil's --root is a tree made here: /proc is
# this machine's (every entry linked) but for the Pi 4 fixture's device-tree, and /sys
# and /dev are tests/fixtures/pi4-healthy's (hwmon, cpufreq, the fake firmware behind
# dev/vcio); the reference reads the real /proc and /sys and runs the fake vcgencmd.
# This VM has no hwmon, so the reference runs vcgencmd once more per sample (8) than on
# a Pi (7, its temperature from hwmon). Needs root (cgroups, losetup, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
WINDOW=${WINDOW:-120}
WARMUP=${WARMUP:-45}
CHROMIUM=${CHROMIUM:-6}
# Extra vigil options after the profile's, for a what-if (e.g. "--sync-interval 3600").
read -r -a EXTRA <<<"${VIGIL_ARGS:-}"
FIX=$PWD/tests/fixtures/pi4-healthy
. bench/lib.sh
bench_find_seed
if [ -z "$seed" ]; then
	bench_fail "the reference monitor (seeds/004_*.txt) is not found; set SEEDS=DIR"
fi
if [ ! -x "$B/bench/daemon_floor" ]; then
	bench_fail "needs $B/bench/daemon_floor (make bench builds it)"
fi
if ! "$PY" -c 'import psutil' 2>/dev/null; then
	bench_fail "$PY has no psutil (Debian package python3-psutil)"
fi
if ! bench_can_loop; then
	bench_fail "needs root, losetup and mkfs.ext4"
fi
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	cgbase=/sys/fs/cgroup
elif [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
	cgbase=/sys/fs/cgroup/cpuacct
else
	bench_fail "no cgroup v2 and no cgroup v1 cpuacct hierarchy"
fi

tmp=$(mktemp -d)
pids=()
loops=()
cgs=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for _ in $(seq 50); do # up to 5 s for the file systems to be let go
		local alive=0
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for m in "$tmp"/mnt-*; do [ -d "$m" ] && umount "$m" 2>/dev/null || true; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	for c in "${cgs[@]}"; do rmdir "$c" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The watched processes: sleepers with the command lines both programs look for.
bench_start_watched "$CHROMIUM"

# vigil's root: this machine's /proc (entries linked now: the watched processes exist)
# with the Pi's device-tree; the Pi fixture's /sys and /dev.
root=$tmp/root
mkdir -p "$root/proc"
for e in /proc/*; do
	[ "$(basename "$e")" = device-tree ] || ln -s "$e" "$root/proc/"
done
ln -s "$FIX/proc/device-tree" "$root/proc/device-tree"
ln -s "$FIX/sys" "$root/sys"
ln -s "$FIX/dev" "$root/dev"

bench_monitor_script "$seed" "$tmp/monitor_player.py"
export PATH="$PWD/tests/fixtures/bin:$PATH"

declare -A dev cg pid
# start NAME COMMAND...: a loop device with ext4 mounted at $tmp/mnt-NAME and a cgroup,
# then COMMAND in that cgroup (the word MNT in it names the mount point).
start() {
	local name=$1
	shift
	bench_loop_fs "$tmp" "$name"
	dev[$name]=$bench_loop
	cg[$name]=$cgbase/vigil-bench-$name.$$
	mkdir "${cg[$name]}"
	cgs+=("${cg[$name]}")
	local args=("${@//MNT/$tmp/mnt-$name}")
	bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "${cg[$name]}" "${args[@]}" \
		>/dev/null 2>"$tmp/$name.err" &
	pid[$name]=$!
	pids+=("$!")
}
# cpu_ns CGROUP: CPU time used by every task that ever ran in it, in ns.
cpu_ns() {
	if [ -f "$1/cpuacct.usage" ]; then
		cat "$1/cpuacct.usage"
	else
		awk '$1 == "usage_usec" {printf "%.0f\n", $2 * 1000}' "$1/cpu.stat"
	fi
}

load0=$(cat /proc/loadavg)
start vigil "$B/vigil" --profile signage --root "$root" --gpu none --quiet --min-disk-mb 0 \
	--log-dir MNT/log "${EXTRA[@]}"
start reference "$PY" "$tmp/monitor_player.py" --quiet --csv MNT/monitor.csv
sleep $((WARMUP / 2))
# The floor: the files vigil holds open now (not its logs, nor the mounts table, which it
# reads once a minute: bench_held_files), the size of its rows so far.
held=()
for fd in /proc/"${pid[vigil]}"/fd/*; do
	t=$(readlink "$fd" || true)
	case "$t" in "$tmp"/* | /dev/null | */mounts) ;; /*) [ -f "$t" ] && held+=("$t") ;; esac
done
hrow=$(bench_avg_row "$(ls "$tmp"/mnt-vigil/log/host-*.csv | head -1)")
start floor env FLOOR_SYNC_MS=60000 "$B/bench/daemon_floor" - $((WINDOW + WARMUP + 5)) 5000 5000 \
	MNT 24 "$hrow" "${held[@]}"
sleep $((WARMUP - WARMUP / 2))
declare -A c0 w0
for n in vigil reference floor; do
	c0[$n]=$(cpu_ns "${cg[$n]}")
	w0[$n]=$(bench_writes_of "${dev[$n]}")
done
sleep "$WINDOW"
for n in vigil reference floor; do
	if ! kill -0 "${pid[$n]}" 2>/dev/null; then
		echo "  $n exited early: $(tail -1 "$tmp/$n.err")"
		exit 1
	fi
done
res=$tmp/res
for n in vigil reference floor; do
	echo "$n $(cpu_ns "${cg[$n]}") ${c0[$n]} $(bench_writes_of "${dev[$n]}") ${w0[$n]}" >>"$res"
done
load1=$(cat /proc/loadavg)
rows_v=$(cat "$tmp"/mnt-vigil/log/*.csv 2>/dev/null | grep -c '^[0-9]' || true)
rows_r=$(($(wc -l <"$tmp/mnt-reference/monitor.csv") - 1))

echo "load average at start: $load0; at end: $load1"
[ ${#EXTRA[@]} -eq 0 ] || echo "vigil options added to the profile's: ${EXTRA[*]}"
echo "window ${WINDOW} s after ${WARMUP} s; CSV rows at the end: vigil $rows_v, reference $rows_r"
"$PY" - "$res" "$WINDOW" <<'PY'
import sys
res, t = sys.argv[1], float(sys.argv[2])
r = {}
for line in open(res):
    n, c1, c0, w1, s1, w0, s0 = line.split()
    r[n] = dict(cpu=(int(c1) - int(c0)) / 1e9 * 3600 / t, writes=(int(w1) - int(w0)) * 3600 / t,
                kb=(int(s1) - int(s0)) * 512 / 1024 * 3600 / t)
for n in ('vigil', 'reference', 'floor'):
    x = r[n]
    print(f"  {n:<10} {x['cpu']:9.3f} CPU s/h ({x['cpu'] / 36:.4f} % of a core), "
          f"{x['writes']:7.0f} device writes/h, {x['kb']:8.1f} KB/h written")
v, f = r['vigil'], r['reference']
ratio = f['cpu'] / v['cpu'] if v['cpu'] > 0 else float('inf')
print(f"CPU: reference / vigil = {ratio:.0f}x (target >= 100x: {'met' if ratio >= 100 else 'MISSED'})")
fl = r['floor']['cpu']
if fl > 0:
    print(f"  vigil / floor = {v['cpu'] / fl:.2f}x; reference / floor = {f['cpu'] / fl:.0f}x "
          f"(the most any program doing this job could show on this machine)")
if f['writes'] > 0:
    w = v['writes'] / f['writes']
    print(f"device writes: vigil / reference = {w:.2f}x (target <= 1: {'met' if w <= 1 else 'MISSED'})")
else:
    print(f"device writes: the reference none in the window, vigil {v['writes']:.0f}/h")
PY
