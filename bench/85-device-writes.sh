#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Block-device writes per hour: what reaches the device, not what vigil asks of the
# kernel (80-sync-writes.sh counts those). Each configuration logs to its own small ext4
# file system on its own loop device, so the device's own counters
# (/sys/block/loopN/stat: writes completed, sectors written) hold vigil's writes and the
# file system's journal and nothing else. The GPU-server default (1 s rows, 1 s sync)
# and --profile signage (5 s rows, 60 s sync) run side by side on the Pi 4 fixture for
# WINDOW seconds after SETTLE seconds (45: the start-up's files, state and system-info,
# reach the disk within the kernel's 30 s write-back expiry and 5 s journal commit, and
# are left out of a per-hour rate), beside a plain appender of the same row every 5 s
# that never syncs (what the reference monitor does: one line-buffered write a row) as
# the peer. A loop device merges requests unlike an SD card's controller, so the counts
# are the file system's writes, a floor for the card's. Needs root (losetup, mount);
# fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
WINDOW=${WINDOW:-180}
SETTLE=${SETTLE:-45}
. bench/lib.sh
if ! bench_can_loop; then
	bench_fail "needs root, losetup and mkfs.ext4"
fi
tmp=$(mktemp -d)
pids=()
loops=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	sleep 0.5
	for m in "$tmp"/mnt-*; do [ -d "$m" ] && umount "$m" 2>/dev/null || true; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
export PATH="$PWD/tests/fixtures/bin:$PATH"


declare -A dev before
start() { # start NAME ARGS...
	local name=$1
	shift
	bench_loop_fs "$tmp" "$name"
	dev[$name]=$bench_loop
	"$B/vigil" --root "$PWD/tests/fixtures/pi4-healthy" --gpu none --quiet --min-disk-mb 0 \
		--log-dir "$tmp/mnt-$name/log" "$@" 2>"$tmp/$name.err" &
	pids+=("$!")
}
start default --interval 1
start signage --profile signage
# The peer: the signage row's size, appended every 5 s with one write(2), never synced.
bench_loop_fs "$tmp" appender
dev[appender]=$bench_loop
mkdir -p "$tmp/mnt-appender/log"
python3 -c '
import os, sys, time
row = b"x" * (int(sys.argv[2]) - 1) + b"\n"
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)
while True:
    os.write(fd, row)
    time.sleep(5)
' "$tmp/mnt-appender/log/rows.csv" 240 &
pids+=("$!")
sleep "$SETTLE"
for n in default signage appender; do before[$n]=$(bench_writes_of "${dev[$n]}"); done
sleep "$WINDOW"
for n in default signage appender; do
	read -r w0 s0 <<<"${before[$n]}"
	read -r w1 s1 <<<"$(bench_writes_of "${dev[$n]}")"
	awk -v n="$n" -v w="$((w1 - w0))" -v s="$((s1 - s0))" -v t="$WINDOW" 'BEGIN {
		printf "  %-8s %7.0f device writes/h, %8.1f KB/h written (%d writes, %d sectors in %d s)\n",
		       n, w * 3600 / t, s * 512 / 1024 * 3600 / t, w, s, t }'
	eval "w_$n=\$((w1 - w0))"
done
# shellcheck disable=SC2154
awk -v v="$w_signage" -v p="$w_appender" 'BEGIN {
	if (p > 0) printf "signage / plain appender = %.2fx device writes (target <= 1: %s)\n",
	                  v / p, v <= p ? "met" : "MISSED"
	else { print "FAIL: the appender wrote nothing in the window"; exit 1 } }'
row=$(awk 'NR > 1 {n++; b += length($0) + 1} END {printf "%d", n ? b / n : 0}' \
	"$(ls "$tmp"/mnt-signage/log/host-*.csv | head -1)")
echo "signage row ${row} bytes (the appender's 240)"
