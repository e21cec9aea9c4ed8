#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon end to end: options, files, lock, signals, rotation, status.
. "$(dirname "$0")/../lib.sh"

# Options.
check "help exits 0" "$VIGIL" --help >/dev/null
check_eq "version" "vigil $(cat "$TOP/VERSION")" "$("$VIGIL" --version)"
for bad in "--interval 0" "--interval fast" "--count -3" "--watch x" "--gpu 1,,2" "--bogus" \
	"--listen 99999" "--profile nope"; do
	# shellcheck disable=SC2086
	err=$("$VIGIL" $bad --no-log --count 1 2>&1 >/dev/null); rc=$?
	check_eq "bad option '$bad' exits 2" 2 "$rc"
	check_eq "bad option '$bad' says one line" 1 "$(printf '%s\n' "$err" | wc -l)"
done
printf 'interval = 1\nnot-a-key = 3\n' >"$TMP/bad.conf"
err=$("$VIGIL" --config "$TMP/bad.conf" --no-log --count 1 2>&1); rc=$?
check_eq "bad config exits 2" 2 "$rc"
check "bad config names the line and key" grep -q "line 2: unknown key 'not-a-key'" <<<"$err"

# A counted run writes one header and N rows, and START/STOP events.
log="$TMP/log"
"$VIGIL" --count 3 --interval 0.05 --log-dir "$log" --quiet 2>"$TMP/err"
check_eq "count run exits 0" 0 $?
csv=$(ls "$log"/host-*.csv)
check_eq "header + 3 rows" 4 "$(wc -l <"$csv")"
check "header starts with the reference columns" grep -q '^timestamp,uptime_s,cpu_total_pct,' "$csv"
check_eq "one header only" 1 "$(grep -c '^timestamp' "$csv")"
check "says where it writes" grep -q "writing to $log" "$TMP/err"
check "events.log START" grep -q 'type=START' "$log/events.log"
check "events.log STOP" grep -q 'type=STOP samples=3' "$log/events.log"

# Restart after a torn last line: the torn row is cut, the header is not repeated.
printf '2026-01-01T00:00:00.000,1,2' >>"$csv"
"$VIGIL" --count 2 --interval 0.05 --log-dir "$log" --quiet 2>/dev/null
check_eq "torn line repaired, rows appended" 6 "$(wc -l <"$csv")"
check_eq "still one header" 1 "$(grep -c '^timestamp' "$csv")"
check "no torn row left" bash -c "! grep -q '^2026-01-01' '$csv'"

# A second instance on the same directory refuses to start.
"$VIGIL" --interval 0.05 --log-dir "$log" --quiet 2>/dev/null &
pid=$!
sleep 0.5
err=$("$VIGIL" --count 1 --log-dir "$log" --quiet 2>&1); rc=$?
check "second instance refused" test "$rc" -ne 0
check "refusal names the running pid" grep -q "pid $pid" <<<"$err"

# vigil status talks to the running instance.
out=$("$VIGIL" status --log-dir "$log" 2>&1)
check "status names the pid" grep -q "pid $pid" <<<"$out"
check "status shows samples" grep -q "samples: host" <<<"$out"

# Rotation by rename + SIGHUP: rows continue in the new file, none lost or duplicated.
mv "$csv" "$csv.1"
sleep 0.3
kill -HUP "$pid"
sleep 0.5
kill -TERM "$pid"
wait "$pid"
check_eq "SIGTERM exits 0" 0 $?
check "new file after SIGHUP has a header" grep -q '^timestamp' "$csv"
old_rows=$(grep -vc '^timestamp' "$csv.1")
new_rows=$(grep -vc '^timestamp' "$csv")
samples=$(sed -n 's/.*type=STOP samples=\([0-9]*\).*/\1/p' "$log/events.log" | tail -1)
check_eq "rows across rename = samples (+5 earlier)" "$((samples + 5))" "$((old_rows + new_rows))"
check "no duplicate timestamps" bash -c "cat '$csv.1' '$csv' | grep -v '^timestamp' | cut -d, -f1 | sort | uniq -d | grep -q . && exit 1 || exit 0"

# After a kill -9 the lock is taken over cleanly.
"$VIGIL" --interval 0.05 --log-dir "$log" --quiet 2>/dev/null &
pid=$!
sleep 0.3
kill -9 "$pid"; wait "$pid" 2>/dev/null
"$VIGIL" --count 1 --interval 0.05 --log-dir "$log" --quiet 2>/dev/null
check_eq "restart after kill -9 takes the lock" 0 $?

# --no-log writes nothing.
"$VIGIL" --count 1 --interval 0.05 --no-log --log-dir "$TMP/none" --quiet 2>/dev/null
check "no-log creates no directory" test ! -e "$TMP/none"
