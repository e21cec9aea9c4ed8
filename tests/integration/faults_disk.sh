#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: the log disk filling up (a small tmpfs, root only) through the free-space guard
# and through a real ENOSPC, and write errors other than ENOSPC (EIO, injected by an
# LD_PRELOAD shim). Each time vigil keeps sampling, says so once, retries, resumes when
# writing works again, records the gap in events.log, and leaves only whole rows.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
# start NAME DIR [ARGS...]: vigil in the background (host 10 ms, 2 simulated GPUs at
# 10 ms) writing to DIR, stderr to $TMP/NAME.err; sets PID.
start() {
	local name=$1 dir=$2
	shift 2
	VIGIL_NVML_SCENARIO="$SCEN/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" --gpu 0,1 \
		--root "$FIXTURES/x86-server" --interval 0.01 --gpu-interval 0.01 --quiet \
		--log-dir "$dir" "$@" 2>"$TMP/$name.err" &
	PID=$!
	wait_until 20 has_rows "$dir"
}
stop() { kill -TERM "$PID"; wait "$PID"; }
# fill DIR: write a filler file until the file system is full.
fill() { dd if=/dev/zero of="$1/filler" bs=64k 2>/dev/null; sync; }
rows_now() { data_rows "$1"/host-*.csv; }

# disk_case NAME MIN_DISK_MB: fill the tmpfs mid-run, then free it.
disk_case() {
	local name=$1 min=$2 d="$TMP/$1"
	mkdir -p "$d"
	mount -t tmpfs -o size=4m vigil-faults "$d" || { not_ok "$name: mount tmpfs"; return; }
	start "$name" "$d" --min-disk-mb "$min"
	local s1 s2 r1 r2 r3
	fill "$d"
	check "$name: disk is full" bash -c "! df --output=avail '$d' | tail -1 | grep -qv '^ *0$'"
	sleep 1.5
	r1=$(rows_now "$d")
	s1=$(host_samples "$PID" "$TMP/$name.err")
	sleep 1
	s2=$(host_samples "$PID" "$TMP/$name.err")
	r2=$(rows_now "$d")
	check "$name: sampling goes on while the disk is full ($s1 -> $s2)" test "$s2" -gt "$s1"
	check_eq "$name: no rows written while full" "$r1" "$r2"
	check "$name: still running" kill -0 "$PID"
	rm -f "$d/filler"
	# Wait for rows to resume, then a little more.
	wait_until 20 more_than "$r2" rows_now "$d"
	sleep 1.5
	r3=$(rows_now "$d")
	check "$name: writing resumed after space returned ($r2 -> $r3)" test "$r3" -gt "$r2"
	stop
	check_eq "$name: exits 0" 0 $?
	local out
	out=$(csv_whole "$d" 2>"$TMP/$name.csv")
	check "$name: every row on disk is whole ($out)" test ! -s "$TMP/$name.csv"
	cat "$TMP/$name.csv"
	if [ "$min" -gt 0 ]; then
		check_eq "$name: pause said once" 1 "$(grep -c 'pausing writes' "$TMP/$name.err")"
		check "$name: resume said" grep -q 'resuming writes' "$TMP/$name.err"
		check "$name: the gap is in events.log" grep -q 'type=DISK_RESUMED .*paused_s=' "$d/events.log"
		# Failed writes before the pause are reported as recovered only once writing
		# has resumed and works, not while paused.
		local resumed recovered
		resumed=$(grep -n 'resuming writes' "$TMP/$name.err" | head -1 | cut -d: -f1)
		recovered=$(grep -n 'writes recovered' "$TMP/$name.err" | head -1 | cut -d: -f1)
		check "$name: write recovery said after the resume, if at all" \
			test "${recovered:-999999}" -gt "${resumed:-0}"
	else
		check_eq "$name: failure said once" 1 "$(grep -c 'failed: No space left on device' "$TMP/$name.err")"
		check "$name: recovery said" grep -q 'writes recovered: [1-9][0-9]* rows dropped' "$TMP/$name.err"
		check "$name: the gap is in events.log" \
			grep -q 'type=WRITE_RESUMED dropped_rows=[1-9][0-9]* .*No space left' "$d/events.log"
	fi
	umount "$d"
}

if is_root; then
	disk_case "guard" 1
	disk_case "enospc" 0
else
	ok "disk full # skip needs root to mount a tmpfs"
fi

# --- EIO on every 3rd row write, for a while, then none -----------------------------
if build_shim; then
	d="$TMP/eio"
	touch "$TMP/eio.on"
	LD_PRELOAD="$TMP/shim.so" FAULT_MATCH="$d/" FAULT_EIO_EVERY=3 FAULT_SWITCH="$TMP/eio.on" \
		FAULT_LOG="$TMP/eio.log" start eio "$d" --min-disk-mb 0
	wait_until 20 test -s "$TMP/eio.log"
	sleep 1
	s1=$(host_samples "$PID" "$TMP/eio.err")
	sleep 1
	s2=$(host_samples "$PID" "$TMP/eio.err")
	check "eio: sampling goes on ($s1 -> $s2)" test "$s2" -gt "$s1"
	rm -f "$TMP/eio.on"
	r1=$(rows_now "$d")
	wait_until 20 grep -q 'type=WRITE_RESUMED' "$d/events.log"
	sleep 0.5
	r2=$(rows_now "$d")
	stop
	check_eq "eio: exits 0" 0 $?
	injected=$(grep -c . "$TMP/eio.log")
	check "eio: failures were injected ($injected)" test "$injected" -gt 10
	check_eq "eio: failure logged once (rate-limited)" 1 "$(grep -c "writing to $d failed: Input/output error" "$TMP/eio.err")"
	check "eio: write errors counted in status" grep -Eq 'write errors [1-9]' "$TMP/eio.err"
	check "eio: the gap is in events.log" grep -q 'type=WRITE_RESUMED dropped_rows=[1-9].*Input/output error' "$d/events.log"
	check "eio: rows after recovery ($r1 -> $r2)" test "$r2" -gt "$r1"
	out=$(csv_whole "$d" 2>"$TMP/eio.csv")
	check "eio: every row on disk is whole ($out)" test ! -s "$TMP/eio.csv"
	cat "$TMP/eio.csv"
else
	not_ok "eio: cannot build the fault shim"
fi
