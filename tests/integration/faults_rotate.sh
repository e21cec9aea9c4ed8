#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: log rotation under heavy writing (host at 10 ms), both ways logrotate does it:
# rename + SIGHUP (its default), five times, and copytruncate, five times. The rows of
# every old and new file together are exactly the samples vigil took (its exit line),
# with timestamps strictly increasing: none lost, none duplicated. After copytruncate
# rows land at the new end of the file (O_APPEND: no hole of NUL bytes) after a header.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

# run_case NAME ROTATE_FUNCTION GAP: a rotation every GAP seconds.
run_case() {
	local name=$1 rotate=$2 gap=$3 d="$TMP/$1"
	"$VIGIL" --root "$FIXTURES/x86-server" --interval 0.01 --quiet --min-disk-mb 0 \
		--log-dir "$d" 2>"$TMP/$name.err" &
	PID=$!
	wait_until 20 has_rows "$d"
	local csv
	csv=$(ls "$d"/host-*.csv)
	for i in 1 2 3 4 5; do
		sleep "$gap"
		"$rotate" "$csv" "$i"
	done
	sleep "$gap"
	kill -TERM "$PID"
	wait "$PID"
	check_eq "$name: exits 0" 0 $?
	local samples
	samples=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/$name.err")
	check_eq "$name: rows in all files = samples taken" "$samples" "$(data_rows "$csv"*)"
	local out
	out=$(csv_whole "$d" 'host-*.csv*' 2>"$TMP/$name.csv")
	check "$name: every file whole, one header each ($out)" test ! -s "$TMP/$name.csv"
	cat "$TMP/$name.csv"
	check "$name: timestamps in order across old and new files (count checked above)" python3 -c '
import csv, sys
ts = []
for p in sys.argv[1:]:
    ts += [r[0] for r in list(csv.reader(open(p)))[1:]]
bad = [(a, b) for a, b in zip(ts, ts[1:]) if b < a]
if bad: print(bad[:3], file=sys.stderr)
sys.exit(bool(bad))' "$csv".5 "$csv".4 "$csv".3 "$csv".2 "$csv".1 "$csv"
	check "$name: no NUL byte anywhere" bash -c "! grep -qaP '\\x00' '$csv'*"
}

# The oldest copy ends .5, as logrotate numbers them.
shift_old() {
	local csv=$1 k
	for k in 4 3 2 1; do [ -f "$csv.$k" ] && mv "$csv.$k" "$csv.$((k + 1))"; done
}
by_rename() {
	shift_old "$1"
	mv "$1" "$1.1"
	kill -HUP "$PID"
	wait_until 10 has_rows "$(dirname "$1")"
}
# copytruncate, with vigil stopped in between: logrotate itself loses the rows written
# between its copy and its truncate; vigil must lose none around it.
by_copytruncate() {
	shift_old "$1"
	kill -STOP "$PID"
	cp "$1" "$1.1"
	truncate -s 0 "$1"
	kill -CONT "$PID"
}

run_case rename by_rename 0.3
# vigil looks at its file's size once a second (local/csvlog.h): the header goes back in
# front of the rows written after a cut at the next look, so the copies come more than a
# second apart (logrotate's come hours apart).
run_case copytruncate by_copytruncate 1.3
