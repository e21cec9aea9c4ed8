#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: kill -9 at random moments during heavy writing (host and 8 simulated GPUs at
# 10 ms), restarted 20 times into the same directory: the lock is taken over from the
# dead process every time, and every file parses: one header, no torn or interleaved
# row. A torn last row (a crash inside a write on another system) is repaired at open.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

d="$TMP/log"
runs=20
took_over=0
pid_file_ok=0
for i in $(seq 1 $runs); do
	VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$FIXTURES/x86-server" --interval 0.01 --gpu-interval 0.001 --quiet \
		--min-disk-mb 0 --log-dir "$d" 2>"$TMP/run$i.err" &
	pid=$!
	# Running and writing, then a random moment (0 to 300 ms) later: kill -9.
	wait_until 20 grep -q "writing to $d" "$TMP/run$i.err" && took_over=$((took_over + 1))
	[ "$(tr -d '\n' <"$d/vigil.pid")" = "$pid" ] && pid_file_ok=$((pid_file_ok + 1))
	sleep "0.$((RANDOM % 300))"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	if [ "$i" -eq 10 ]; then
		# A row cut off mid-write, as a crash inside write(2) could leave it.
		printf '2026-01-01 00:00:00.000,45,4' >>"$(ls "$d"/gpu3-*.csv | tail -1)"
	fi
done
check_eq "every restart took the lock from the killed one" $runs $took_over
check_eq "vigil.pid named each new process" $runs $pid_file_ok
check "no run refused as 'already running'" bash -c "! grep -l 'another vigil' '$TMP'/run*.err"

# A clean last run after the kills.
"$VIGIL" --root "$FIXTURES/x86-server" --interval 0.01 --count 5 --quiet --log-dir "$d" 2>"$TMP/last.err"
check_eq "a clean run after $runs kills exits 0" 0 $?
out=$(csv_whole "$d" 2>"$TMP/csv.err")
check "every file parses, rows whole, one header each ($out)" test ! -s "$TMP/csv.err"
cat "$TMP/csv.err"
check_eq "host and 8 GPU files" 9 "$(ls "$d"/*.csv | wc -l)"
check "torn GPU row repaired" bash -c "! grep -q '^2026-01-01 00:00:00.000' '$d'/gpu3-*.csv"
# Rows of all runs in one file are in time order: nothing interleaved or rewritten (a
# row written again would come after newer ones). Two rows may share a millisecond: a
# time stamp is the wake-up's, and a tick late by most of an interval wakes in the same
# millisecond as the next one on a loaded machine.
check "host rows in time order" python3 -c '
import csv, sys
r = [x[0] for x in list(csv.reader(open(sys.argv[1])))[1:]]
bad = [(a, b) for a, b in zip(r, r[1:]) if b < a]
print("    out of order:", bad[:5], file=sys.stderr) if bad else None
sys.exit(bool(bad))' "$(ls "$d"/host-*.csv | tail -1)"
