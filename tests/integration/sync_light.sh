#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Light sync rounds (util/fssync.h, util/fs_commit.h): on ext4 with data=ordered and
# barriers, a sync interval of at least twice the journal's commit interval (5 s) and a
# second writes
# the logs' data with sync_file_range(2) every interval minus the commit interval and a
# second, and forces no journal commit (no fdatasync, no syncfs); the stop still
# fdatasyncs. With data=writeback, or an interval too short for that, every round is full.
# Each case logs to its own small ext4 file system on a loop device (needs root,
# losetup and mkfs.ext4, as CI has); the calls are counted with strace on the loop.
. "$(dirname "$0")/../lib.sh"

loop_ext4_ready sync_light strace || exit 0
# fs NAME MOUNT_OPTIONS: a fresh ext4 on a loop device, mounted at $TMP/mnt-NAME.
fs() {
	loop_ext4_new "$TMP/$1.img" && loop_ext4_mount "$TMP/$1.img" "$1" "$2"
}
# wait_csv LOG: until vigil's host CSV is in LOG (10 s at most).
wait_csv() {
	for _ in $(seq 100); do
		[ -n "$(ls "$1"/host-*.csv 2>/dev/null)" ] && return 0
		sleep 0.1
	done
}
# run NAME SYNC_INTERVAL: vigil on the Pi tree, a row a second, logging to mnt-NAME;
# strace counts over 16 s of its steady state into $sfr, $fds, $sfs; then the stop's
# calls into $stop_fds.
run() {
	local name=$1 every=$2 log="$TMP/mnt-$1/log"
	"$VIGIL" --root "$FIXTURES/pi4-healthy" --gpu none --quiet --min-disk-mb 0 --interval 1 \
		--sync-interval "$every" --duration 40 --log-dir "$log" 2>"$TMP/$name.err" &
	local pid=$!
	wait_csv "$log"
	sleep 1
	timeout -s INT 16 strace -f -c -e trace=sync_file_range,fdatasync,syncfs -p "$pid" \
		2>"$TMP/$name.strace" || true
	calls() { awk -v s="$1" '$NF == s {print $4}' "$TMP/$name.strace" | head -1; }
	sfr=$(calls sync_file_range)
	fds=$(calls fdatasync)
	sfs=$(calls syncfs)
	sfr=${sfr:-0} fds=${fds:-0} sfs=${sfs:-0}
	strace -f -e trace=fdatasync,syncfs -p "$pid" -o "$TMP/$name.stop" 2>/dev/null &
	local st=$!
	sleep 0.5
	kill -TERM "$pid"
	wait "$pid"
	check_eq "$name: stops cleanly" 0 $?
	wait "$st" 2>/dev/null
	stop_fds=$(grep -c -E '^[0-9]+ +(fdatasync|syncfs)\(' "$TMP/$name.stop" || true)
}

fs ordered data=ordered || not_ok "sync_light: cannot make the ext4 file system"
run ordered 12
# 2 or 3 rounds in 16 s, each a call per log with new lines (the host CSV, events.log).
check "data=ordered, a 12 s bound: a light round every 6 s, $sfr sync_file_range in 16 s (2 to 6)" \
	test "$sfr" -ge 2 -a "$sfr" -le 6
check_eq "data=ordered, a 12 s bound: no journal commit forced (fdatasync)" 0 "$fds"
check_eq "data=ordered, a 12 s bound: no syncfs" 0 "$sfs"
check "data=ordered: the stop still makes the logs durable ($stop_fds calls)" test "$stop_fds" -ge 1
rows=$(($(wc -l <"$(ls "$TMP"/mnt-ordered/log/host-*.csv)") - 1))
check "data=ordered: a row a second written ($rows)" test "$rows" -ge 15

run short 9
check_eq "data=ordered, a 9 s bound (under twice the commit interval and a second): no light round" 0 "$sfr"
check "data=ordered, a 9 s bound: full rounds, $((fds + sfs)) in 16 s (1 to 2)" \
	test $((fds + sfs)) -ge 1 -a $((fds + sfs)) -le 2

fs writeback data=writeback || not_ok "sync_light: cannot make the data=writeback file system"
run writeback 12
check_eq "data=writeback (data may follow its metadata): no light round" 0 "$sfr"
check "data=writeback, a 12 s bound: full rounds, $((fds + sfs)) in 16 s (1 to 2)" \
	test $((fds + sfs)) -ge 1 -a $((fds + sfs)) -le 2

# watched NAME [VAR=VALUE...]: vigil as run makes it at a 12 s bound, on mnt-NAME, with
# VAR=VALUE in its environment, while something else writes that file system out every
# half second (sync -f); strace over 16 s of its steady state counts its own data writes
# ($own: sync_file_range with SYNC_FILE_RANGE_WRITE), the write-backs it confirmed
# ($seen: SYNC_FILE_RANGE_WAIT_AFTER alone) and its looks ($looks: cachestat, which
# strace 6.1 names syscall_0x1c3); $stop_rc is its exit status after SIGTERM.
watched() {
	local name=$1 log="$TMP/mnt-$1/log"
	shift
	fs "$name" data=ordered || not_ok "sync_light: cannot make the $name file system"
	env "$@" "$VIGIL" --root "$FIXTURES/pi4-healthy" --gpu none --quiet --min-disk-mb 0 \
		--interval 1 --sync-interval 12 --duration 40 --log-dir "$log" 2>"$TMP/$name.err" &
	local pid=$!
	wait_csv "$log"
	(while kill -0 "$pid" 2>/dev/null; do sync -f "$log" 2>/dev/null; sleep 0.5; done) &
	local writer=$!
	sleep 1
	timeout -s INT 16 strace -f -e trace=all -p "$pid" -o "$TMP/$name.strace" 2>/dev/null || true
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	own=$(grep -c 'sync_file_range(.*SYNC_FILE_RANGE_WRITE' "$TMP/$name.strace" || true)
	seen=$(grep -E 'sync_file_range\(' "$TMP/$name.strace" | grep -vc 'SYNC_FILE_RANGE_WRITE' || true)
	looks=$(grep -cE 'syscall_0x1c3\(|cachestat\(' "$TMP/$name.strace" || true)
	kill -TERM "$pid"
	wait "$pid"
	stop_rc=$?
}

# Watch rounds (util/fssync.h): where cachestat(2) works (Linux 6.5), a log the kernel
# has already written out owes no write of vigil's own. Here something else writes the
# file system out every half second (sync -f, as the kernel's flusher does 30 s after a
# file got dirty): at a 12 s bound vigil then writes no data itself (no sync_file_range
# with SYNC_FILE_RANGE_WRITE) and confirms each write-back it saw with a
# SYNC_FILE_RANGE_WAIT_AFTER alone (which writes nothing and says a failed write-back).
# Without that writer the data is still written within the bound (the first case).
watched watched
wlog="$TMP/mnt-watched/log"
check_eq "watched: stops cleanly" 0 "$stop_rc"
read -r kmaj kmin _ <<<"$(uname -r | tr '.-' '  ')"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 5 ]; }; then
	check "watched, a 12 s bound: the logs looked at ($looks cachestat calls in 16 s)" \
		test "$looks" -ge 3
	check_eq "watched: no data written by vigil itself (the writer did it)" 0 "$own"
	check "watched: each write-back seen confirmed ($seen WAIT_AFTER calls)" test "$seen" -ge 3
else # before Linux 6.5: no cachestat, light rounds as in the first case
	check "no cachestat (Linux $(uname -r)): light rounds, $own sync_file_range in 16 s" \
		test "$own" -ge 2
fi
rows=$(($(wc -l <"$(ls "$wlog"/host-*.csv)") - 1))
check "watched: a row a second written ($rows)" test "$rows" -ge 15

# A kernel without cachestat (before Linux 6.5; the fault shim makes it fail with
# ENOSYS): the first look gives watch rounds up and the light rounds write the data
# again, whatever else writes the file system out.
. "$TOP/tests/faults/helpers.sh"
if build_shim; then
	watched nocs LD_PRELOAD="$TMP/shim.so" FAULT_NO_CACHESTAT=1
	check_eq "no cachestat: stops cleanly" 0 "$stop_rc"
	check "no cachestat: light rounds write the data ($own sync_file_range in 16 s, 2 to 8)" \
		test "$own" -ge 2 -a "$own" -le 8
else
	not_ok "sync_light: cannot build the fault shim"
fi
