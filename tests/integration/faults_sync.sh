#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: power loss. What was written but not yet on the medium is lost; vigil bounds
# that by fdatasync'ing its log files every --sync-interval (default 1 s; README: "at
# most 1 s of rows"), only the files written since the last sync.
# An LD_PRELOAD shim counts the fdatasync/fsync calls on files in the log directory
# while vigil runs (not only the ones at exit), and each sync is followed by rows.
# The files are counted one by one where each is fdatasync'ed on its own: on tmpfs. On a
# disk file system where syncfs(2) is durable the logs of a round share one syncfs
# instead (util/fssync.h), which tests/integration/sync_round.sh counts.
if [ -d /dev/shm ] && [ "$(stat -f -c %T "${TMPDIR:-/tmp}")" != tmpfs ]; then
	export TMPDIR=/dev/shm
fi
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

# --sync-interval (the SD-card cadence of --profile signage): the host CSV is synced at
# the first row, then not again within the interval, however many rows come; a snapshot
# syncs the logs before its own file is written.
d="$TMP/sd"
cp -r "$FIXTURES/pi4-healthy" "$TMP/sdroot"
LD_PRELOAD="$TMP/shim.so" FAULT_MATCH="$d/" FAULT_LOG="$TMP/sd-sync.log" PATH="$FIXTURES/bin:$PATH" \
	"$VIGIL" --root "$TMP/sdroot" --interval 0.05 --gpu none --sync-interval 60 --quiet \
	--min-disk-mb 0 --log-dir "$d" 2>"$TMP/sd-err" &
pid=$!
rows() { local c; c=$(ls "$d"/host-*.csv 2>/dev/null | head -1); [ -n "$c" ] && wc -l <"$c" || echo 0; }
wait_until 30 more_than 40 rows
sdsyncs() { grep -c "^fdatasync $d/$1" "$TMP/sd-sync.log" 2>/dev/null; }
check_eq "sync-interval 60: one host CSV sync in 40 rows (the first)" 1 "$(sdsyncs host-)"
"$VIGIL" snapshot --log-dir "$d" "sync test" >/dev/null 2>&1
wait_until 30 grep -q 'type=SNAPSHOT' "$d/events.log"
check_eq "a snapshot syncs the host CSV at once" 2 "$(sdsyncs host-)"
check "the sync comes before the snapshot's own" bash -c \
	"grep -E '^(fdatasync $d/host-|fsync $d/incidents/)' '$TMP/sd-sync.log' | tail -2 | head -1 | grep -q '^fdatasync $d/host-'"
kill -TERM "$pid"
wait "$pid"
check_eq "sync-interval 60: exits 0" 0 $?
check_eq "synced at exit" 3 "$(sdsyncs host-)"

# A failed sync (an SD card whose write-back fails): said on stderr, once a minute at
# most, the rows kept coming, and the file still owed: once syncs work again the next
# round syncs it.
d="$TMP/eio"
sw="$TMP/eio.on"
touch "$sw"
port=$(free_port)
LD_PRELOAD="$TMP/shim.so" FAULT_MATCH="$d/" FAULT_LOG="$TMP/eio-sync.log" FAULT_SWITCH="$sw" \
	FAULT_SYNC_EIO=1 "$VIGIL" --root "$FIXTURES/x86-server" --gpu none --interval 0.2 \
	--quiet --min-disk-mb 0 --log-dir "$d" --listen "127.0.0.1:$port" 2>"$TMP/eio-err" &
pid=$!
eios() { grep -c "^synceio $d/host-" "$TMP/eio-sync.log" 2>/dev/null; }
wait_until 30 more_than 2 eios
check "failing syncs: said on stderr" grep -q "syncing the logs in $d failed: Input/output error" \
	"$TMP/eio-err"
check_eq "failing syncs: said once, not every round" 1 \
	"$(grep -c 'syncing the logs in' "$TMP/eio-err")"
# Counted where a fleet sees it: /metrics and vigil status.
synced_errs() { curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "vigil_sync_errors_total" {print $2}'; }
wait_until 10 more_than 1 synced_errs
check "failing syncs: counted in vigil_sync_errors_total ($(synced_errs))" more_than 1 synced_errs
check "failing syncs: counted in vigil status" bash -c \
	"'$VIGIL' status --log-dir '$d' | grep -Eq 'sync errors [1-9]'"
rows_before=$(grep -c '^[0-9]' "$d"/host-*.csv)
rm -f "$sw"
wait_until 30 grep -q "^fdatasync $d/host-" "$TMP/eio-sync.log"
check "failing syncs: the host CSV synced once syncs work again" \
	grep -q "^fdatasync $d/host-" "$TMP/eio-sync.log"
check "failing syncs: rows kept coming ($rows_before, then more)" \
	test "$(grep -c '^[0-9]' "$d"/host-*.csv)" -gt "$rows_before"
kill -TERM "$pid"
wait "$pid"
check_eq "failing syncs: exits 0" 0 $?
