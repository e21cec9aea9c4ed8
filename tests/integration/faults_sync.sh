#!/usr/bin/env bash
# Faults: power loss. What was written but not yet on the medium is lost; vigil bounds
# that by fdatasync'ing its log files every second (README: "at most 1 s of rows").
# An LD_PRELOAD shim counts the fdatasync/fsync calls on files in the log directory
# while vigil runs (not only the ones at exit), and each sync is followed by rows.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

if ! build_shim; then
	not_ok "sync: cannot build the fault shim"
	exit 0
fi
d="$TMP/log"
LD_PRELOAD="$TMP/shim.so" FAULT_MATCH="$d/" FAULT_LOG="$TMP/sync.log" \
	VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$FIXTURES/x86-server" --interval 0.05 --gpu-interval 0.05 --quiet --min-disk-mb 0 \
	--log-dir "$d" 2>"$TMP/err" &
pid=$!
syncs() { grep -c "^fdatasync $d/$1" "$TMP/sync.log" 2>/dev/null; }
# Three syncs of each CSV while running: at start, and then on the one-second cadence.
wait_until 30 more_than 2 syncs host-
host=$(syncs host-)
wait_until 30 more_than 2 syncs gpu0-
gpu=$(syncs gpu0-)
wait_until 30 more_than 0 syncs events.log
check "running: host CSV synced periodically ($host)" test "$host" -ge 3
check "running: GPU CSV synced periodically ($gpu)" test "$gpu" -ge 3
# events.log is synced when lines were written since the last sync, not every second:
# a sync with nothing to sync is a disk flush (and a wake-up) for nothing.
check "running: events.log synced after its first lines" test "$(syncs events.log)" -ge 1
size=$(stat -c %s "$d/events.log")
events=$(syncs events.log)
sleep 2.5
if [ "$(stat -c %s "$d/events.log")" = "$size" ]; then
	check_eq "idle: events.log not synced again while nothing was written" "$events" \
		"$(syncs events.log)"
else
	ok "idle: events.log grew meanwhile (the idle check needs a quiet log; skipped)"
fi
samples=$(host_samples "$pid" "$TMP/err")
host=$(syncs host-)
# The cadence is time, not rows: at 50 ms about 20 host samples fall between syncs.
check "fewer syncs than samples (one per second, not per row: $host syncs, $samples samples)" \
	test "$host" -lt "$((samples / 4))"
kill -TERM "$pid"
wait "$pid"
check_eq "exits 0" 0 $?
check "synced at exit" test "$(syncs host-)" -gt "$host"
