#!/usr/bin/env bash
# Log writes per hour, the GPU-server default (--sync-interval 1) against
# --profile signage (5 s rows, --sync-interval 60), on the Pi 4 fixture, same window.
#
# What is measured is what vigil asks of the kernel, not what a particular device does
# with it: a loop or tmpfs device's counters say nothing of an SD card. Counted with
# strace -c attached to the running daemon for WINDOW seconds (start and exit left
# out): write(2) and fdatasync(2) calls; and /proc/PID/io's wchar (bytes written).
# On ext4 each fdatasync after an append forces the data blocks, a journal commit
# (i_size changed) and a cache flush to the card at once; an unsynced append is left
# to the kernel's writeback (dirty_expire_centisecs, 30 s by default), which coalesces
# every row written in that time into one write-out.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
WINDOW=${WINDOW:-180}
if ! command -v strace >/dev/null; then
	echo "skip: strace is not installed (Debian package strace)"
	exit 0
fi
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
export PATH="$PWD/tests/fixtures/bin:$PATH"

# run NAME ARGS...: the daemon, then strace on it for WINDOW seconds.
run() {
	local name=$1
	shift
	"$B/vigil" --root "$PWD/tests/fixtures/pi4-healthy" --gpu none --quiet \
		--log-dir "$tmp/$name" "$@" 2>"$tmp/$name.err" &
	local pid=$!
	pids+=("$pid")
	sleep 3
	local io0
	io0=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
	timeout -s INT "$WINDOW" strace -f -c -e trace=write,fdatasync,fsync -p "$pid" \
		2>"$tmp/$name.strace" || true
	local io1
	io1=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
	echo "$((io1 - io0))" >"$tmp/$name.wchar"
}
run default --interval 1 &
run signage --profile signage &
run signage_1s --profile signage --sync-interval 1 &
wait %1 %2 %3 2>/dev/null || wait

calls() { awk -v s="$2" '$NF == s {print $4}' "$tmp/$1.strace" | head -1; }
per_h() { echo $(((${1:-0} * 3600 + WINDOW / 2) / WINDOW)); }
printf '%-44s %14s %14s %14s\n' "per hour (window ${WINDOW} s)" "fdatasync" "write(2)" "bytes written"
for n in default signage_1s signage; do
	case $n in
	default) label="default: 1 s rows, --sync-interval 1" ;;
	signage_1s) label="signage rows (5 s), --sync-interval 1" ;;
	signage) label="--profile signage: 5 s rows, sync 60 s" ;;
	esac
	printf '%-44s %14s %14s %14s\n' "$label" "$(per_h "$(calls $n fdatasync)")" \
		"$(per_h "$(calls $n write)")" "$(per_h "$(cat "$tmp/$n.wchar")")"
done
