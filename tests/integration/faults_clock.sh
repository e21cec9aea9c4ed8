#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: the wall clock jumps while vigil runs (a Pi has no RTC; NTP steps it), under
# libfaketime driven through a control file (FAKETIME_NO_CACHE=1), the monotonic clock
# left alone: 2 days ahead, 30 days back, then right again. Sampling keeps its cadence
# (it runs on CLOCK_MONOTONIC); each jump opens the file of the day the clock says,
# with one header, rows whole; and retention (3 days here) never deletes the current
# or recent days because of the jump: the days a right clock would keep are all there.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

FT=""
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 /usr/lib/*/faketime/libfaketime.so.1 \
	/usr/lib/faketime/libfaketime.so.1; do
	[ -f "$f" ] && FT=$f && break
done
if [ -z "$FT" ]; then
	not_ok "clock: libfaketime is not installed (Debian package faketime)"
	exit 0
fi

d="$TMP/log"
mkdir -p "$d"
day() { date -d "@$(($(date +%s) + $1 * 86400))" +%F; }
today=$(day 0)
# Days already recorded: yesterday back to 5 days ago (a right clock keeps 3 days back).
for k in 1 2 3 4 5; do
	printf 'timestamp,x\n%s 12:00:00.000,1\n' "$(day -$k)" >"$d/host-$(day -$k).csv"
done
echo "+0" >"$TMP/clock"
start=$(date +%s%N)
LD_PRELOAD="$FT" FAKETIME_TIMESTAMP_FILE="$TMP/clock" FAKETIME_NO_CACHE=1 \
	FAKETIME_DONT_FAKE_MONOTONIC=1 "$VIGIL" --root "$FIXTURES/x86-server" --nvml /nonexistent \
	--interval 0.02 --count 200 --retention-days 3 --quiet --min-disk-mb 0 --log-dir "$d" \
	2>"$TMP/err" &
PID=$!
# jump OFFSET FILE_DAY: set the clock, wait until rows land in that day's file.
jump() {
	echo "$1" >"$TMP/clock"
	wait_until 20 has_rows_in "$d/host-$2.csv"
}
has_rows_in() { [ -f "$1" ] && [ "$(data_rows "$1")" -gt 0 ]; }
wait_until 20 has_rows_in "$d/host-$today.csv"
jump "+2d" "$(day 2)"
check "2 days ahead: that day's file" test -f "$d/host-$(day 2).csv"
jump "-30d" "$(day -30)"
check "30 days back: that day's file" test -f "$d/host-$(day -30).csv"
before=$(data_rows "$d/host-$today.csv")
echo "+0" >"$TMP/clock"
wait_until 20 more_than "$before" data_rows "$d/host-$today.csv"
wait "$PID"
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
check_eq "exits 0" 0 $rc
samples=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/err")
check_eq "200 samples" 200 "$samples"
# 200 samples at 20 ms take at least 3.98 s on the monotonic clock, whatever the wall
# clock did; a generous upper bound catches a stall on a jumped clock.
check "cadence kept: 200 samples in ${elapsed_ms} ms (>= 3980, < 60000)" \
	test "$elapsed_ms" -ge 3980 -a "$elapsed_ms" -lt 60000
check_eq "every row written" 200 "$(cat "$d/host-$today.csv" "$d/host-$(day 2).csv" "$d/host-$(day -30).csv" | grep -vc '^timestamp')"
check_eq "today's file: one header after coming back" 1 "$(grep -c '^timestamp' "$d/host-$today.csv")"
out=$(csv_whole "$d" "host-$today.csv" 2>"$TMP/csv")
check "today's file whole ($out)" test ! -s "$TMP/csv"
cat "$TMP/csv"
for k in 0 1 2 3; do
	check "retention kept $(day -$k) (a right clock keeps it)" test -f "$d/host-$(day -$k).csv"
done
check "retention kept the day the clock jumped to" test -f "$d/host-$(day 2).csv"
