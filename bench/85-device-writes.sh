#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Block-device writes per hour: what reaches the device, not what vigil asks of the
# kernel (80-sync-writes.sh counts those). Each configuration logs to its own small ext4
# file system on its own loop device, so the device's own counters
# (/sys/block/loopN/stat: writes completed, sectors written) hold vigil's writes and the
# file system's journal and nothing else. The GPU-server default (1 s rows, 1 s sync)
# and --profile signage (5 s rows, 60 s sync) run side by side on the Pi 4 fixture for
# WINDOW seconds, start-up left out. A loop device merges requests unlike an SD card's
# controller, so the counts are the file system's writes, a floor for the card's.
# Needs root (losetup, mount); fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
WINDOW=${WINDOW:-180}
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
sleep 5
for n in default signage; do before[$n]=$(bench_writes_of "${dev[$n]}"); done
sleep "$WINDOW"
for n in default signage; do
	read -r w0 s0 <<<"${before[$n]}"
	read -r w1 s1 <<<"$(bench_writes_of "${dev[$n]}")"
	awk -v n="$n" -v w="$((w1 - w0))" -v s="$((s1 - s0))" -v t="$WINDOW" 'BEGIN {
		printf "  %-8s %7.0f device writes/h, %8.1f KB/h written (%d writes, %d sectors in %d s)\n",
		       n, w * 3600 / t, s * 512 / 1024 * 3600 / t, w, s, t }'
done
