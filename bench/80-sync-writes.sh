#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
. bench/lib.sh
B=${BUILD:-build}
WINDOW=${WINDOW:-180}
if ! command -v strace >/dev/null; then
	bench_fail "strace is not installed (Debian package strace)"
fi
tmp=$(mktemp -d)
pids=()
bench_cleanup_at_exit "$tmp"
export PATH="$PWD/tests/fixtures/bin:$PATH"

# start NAME ARGS...: the daemon, in this shell (so cleanup stops it); its pid in pid[NAME].
declare -A pid
start() {
	local name=$1
	shift
	"$B/vigil" --root "$PWD/tests/fixtures/pi4-healthy" --gpu none --quiet \
		--log-dir "$tmp/$name" "$@" 2>"$tmp/$name.err" &
	pid[$name]=$!
	pids+=("$!")
}
# watch NAME: strace on the daemon NAME for WINDOW seconds, and its bytes written then.
watch() {
	local p=${pid[$1]} io0 io1
	[ -r "/proc/$p/io" ] || bench_fail "vigil ($1) exited early: $(tail -1 "$tmp/$1.err")"
	io0=$(awk '/^wchar/ {print $2}' "/proc/$p/io")
	timeout -s INT "$WINDOW" strace -f -c -e trace=write,fdatasync,fsync,syncfs -p "$p" \
		2>"$tmp/$1.strace" || true
	[ -r "/proc/$p/io" ] || bench_fail "vigil ($1) exited during the window: $(tail -1 "$tmp/$1.err")"
	io1=$(awk '/^wchar/ {print $2}' "/proc/$p/io")
	echo "$((io1 - io0))" >"$tmp/$1.wchar"
}
start default --interval 1
start signage --profile signage
start signage_1s --profile signage --sync-interval 1
sleep 3
watchers=()
for n in default signage signage_1s; do
	watch "$n" &
	watchers+=($!)
done
for w in "${watchers[@]}"; do wait "$w" || bench_fail "a strace window failed"; done

calls() { awk -v s="$2" '$NF == s {print $4}' "$tmp/$1.strace" | head -1; }
per_h() { echo $(((${1:-0} * 3600 + WINDOW / 2) / WINDOW)); }
printf '%-44s %14s %14s %14s %14s\n' "per hour (window ${WINDOW} s)" "fdatasync" "syncfs" "write(2)" \
	"bytes written"
for n in default signage_1s signage; do
	case $n in
	default) label="default: 1 s rows, --sync-interval 1" ;;
	signage_1s) label="signage rows (5 s), --sync-interval 1" ;;
	signage) label="--profile signage: 5 s rows, sync 60 s" ;;
	esac
	printf '%-44s %14s %14s %14s %14s\n' "$label" "$(per_h "$(calls $n fdatasync)")" \
		"$(per_h "$(calls $n syncfs)")" "$(per_h "$(calls $n write)")" \
		"$(per_h "$(cat "$tmp/$n.wchar")")"
done
