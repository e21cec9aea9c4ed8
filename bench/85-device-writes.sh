#!/usr/bin/env bash
# Block-device writes per hour: what reaches the device, not what vigil asks of the
# kernel (80-sync-writes.sh counts those). Each configuration logs to its own small ext4
# file system on its own loop device, so the device's own counters
# (/sys/block/loopN/stat: writes completed, sectors written) hold vigil's writes and the
# file system's journal and nothing else. The GPU-server default (1 s rows, 1 s sync)
# and --profile signage (5 s rows, 60 s sync) run side by side on the Pi 4 fixture for
# WINDOW seconds, start-up left out. A loop device merges requests unlike an SD card's
# controller, so the counts are the file system's writes, a floor for the card's.
# Needs root (losetup, mount); skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
WINDOW=${WINDOW:-180}
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	echo "skip: needs root, losetup and mkfs.ext4"
	exit 0
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

# stat_of LOOP: "writes sectors" from the device's counters.
stat_of() { awk '{print $5, $7}' "/sys/block/$(basename "$1")/stat"; }

declare -A dev before
start() { # start NAME ARGS...
	local name=$1
	shift
	truncate -s 64M "$tmp/$name.img"
	# Inode tables and journal zeroed now, not by the kernel's lazy-init thread during
	# the window (mkfs.ext4(8), -E lazy_itable_init, lazy_journal_init).
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$tmp/$name.img"
	local l
	l=$(losetup -f --show "$tmp/$name.img")
	loops+=("$l")
	mkdir -p "$tmp/mnt-$name"
	mount "$l" "$tmp/mnt-$name"
	dev[$name]=$l
	"$B/vigil" --root "$PWD/tests/fixtures/pi4-healthy" --gpu none --quiet --min-disk-mb 0 \
		--log-dir "$tmp/mnt-$name/log" "$@" 2>"$tmp/$name.err" &
	pids+=("$!")
}
start default --interval 1
start signage --profile signage
sleep 5
for n in default signage; do before[$n]=$(stat_of "${dev[$n]}"); done
sleep "$WINDOW"
for n in default signage; do
	read -r w0 s0 <<<"${before[$n]}"
	read -r w1 s1 <<<"$(stat_of "${dev[$n]}")"
	awk -v n="$n" -v w="$((w1 - w0))" -v s="$((s1 - s0))" -v t="$WINDOW" 'BEGIN {
		printf "  %-8s %7.0f device writes/h, %8.1f KB/h written (%d writes, %d sectors in %d s)\n",
		       n, w * 3600 / t, s * 512 / 1024 * 3600 / t, w, s, t }'
done
