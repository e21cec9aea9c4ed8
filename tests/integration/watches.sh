#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Process watches end to end on this machine's real /proc: the player and Chromium
# columns of the host log come from watches named player and chromium.
# Every pattern carries a token of this run, ended by a delimiter, so no other process on
# the machine (another vigil with --watch, another run of this script) can match it.
. "$(dirname "$0")/../lib.sh"

TOK="w$$-$(basename "$TMP" | tr -cd 'A-Za-z0-9')"

pids=()
start() { # start NAME: a sleeping process whose command line is "NAME 60"
	bash -c "exec -a '$1' sleep 60" &
	pids+=($!)
}
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT
start "python3-run_linux.py-$TOK-player"
for i in 1 2 3; do start "chromium-$TOK-renderer"; done
for i in 1 2; do start "kiosk-$TOK-helper"; done
sleep 0.3

"$VIGIL" --watch "player=run_linux.py-$TOK-" --watch "chromium=chromium-$TOK-" --interval 0.2 \
	--watch "kiosk=kiosk-$TOK-" --pss-interval 0.1 --count 3 --log-dir "$TMP/log" --quiet 2>"$TMP/err"
CSV=$(ls "$TMP"/log/host-*.csv)
cell() { csv_cell "$CSV" 3 "$1"; }
check_eq "chromium_procs counts the three" 3 "$(cell chromium_procs)"
check_eq "player_threads" 1 "$(cell player_threads)"
check "player_pss_mb is a positive number" python3 -c "import sys; assert 0 < float('$(cell player_pss_mb)') < 100"
check "chromium_pss_mb is the sum of three" python3 -c "assert 3 * 0.05 < float('$(cell chromium_pss_mb)') < 300"
check "uptime_s is the player's age" python3 -c "assert 0.2 < float('$(cell uptime_s)') < 30"
check_eq "player_cpu_pct of a sleeper" 0.0 "$(cell player_cpu_pct)"

# Every watch is recorded: one other than player and chromium has four columns of its
# own, after vigil's, and `vigil report` summarises them.
check_eq "kiosk's columns end the header" "kiosk_procs,kiosk_pss_mb,kiosk_cpu_pct,kiosk_threads" \
	"$(head -1 "$CSV" | tr , '\n' | tail -4 | paste -sd,)"
check_eq "kiosk_procs counts the two" 2 "$(cell kiosk_procs)"
check_eq "kiosk_threads" 2 "$(cell kiosk_threads)"
check_eq "kiosk_cpu_pct of sleepers" 0.0 "$(cell kiosk_cpu_pct)"
check "kiosk_pss_mb is the sum of two" python3 -c "assert 2 * 0.05 < float('$(cell kiosk_pss_mb)') < 200"
check_eq "no kiosk column for player" "" "$(head -1 "$CSV" | tr , '\n' | grep -x 'player_procs')"
"$VIGIL" report "$CSV" >"$TMP/report.txt" 2>&1
check "report: the kiosk watch's line" grep -Eq '^  kiosk_procs +min +2 +avg +2\.0 +max +2' "$TMP/report.txt"
check "report: kiosk PSS" grep -Eq '^  kiosk_pss_mb +min +[0-9.]+ +avg' "$TMP/report.txt"
"$VIGIL" report --html "$TMP/report.html" "$CSV" >/dev/null 2>&1
check "report --html: the watches' PSS chart" grep -q 'Other watches: PSS' "$TMP/report.html"
check "report --html: the watches' summary" grep -Eq '^  kiosk_procs +min' "$TMP/report.html"

# A watch that matches nothing: count 0, PSS as the reference writes it (0.0).
"$VIGIL" --watch "chromium=no-such-process-$TOK-" --interval 0.1 --count 2 --log-dir "$TMP/log2" --quiet 2>/dev/null
CSV=$(ls "$TMP"/log2/host-*.csv)
check_eq "no chromium: count 0" 0 "$(csv_cell "$CSV" 2 chromium_procs)"
check_eq "no chromium: pss 0.0" 0.0 "$(csv_cell "$CSV" 2 chromium_pss_mb)"
check_eq "no player watch: empty" "" "$(csv_cell "$CSV" 2 player_pss_mb)"

# vigil never counts itself, even when its own command line matches (the pattern is in
# its own arguments, and in no other process's).
"$VIGIL" --watch "chromium=self-$TOK-" --interval 0.1 --count 2 --log-dir "$TMP/log3" --quiet 2>/dev/null
CSV=$(ls "$TMP"/log3/host-*.csv)
check_eq "vigil excludes itself" 0 "$(csv_cell "$CSV" 2 chromium_procs)"

# PSS from the first row on, with the default 10 s PSS interval (the reference has PSS in
# every row).
"$VIGIL" --watch "player=run_linux.py-$TOK-" --watch "chromium=chromium-$TOK-" --interval 0.1 \
	--count 2 --log-dir "$TMP/log4" --quiet 2>/dev/null
CSV=$(ls "$TMP"/log4/host-*.csv)
check "player_pss_mb in the first row" python3 -c "assert 0 < float('$(csv_cell "$CSV" 1 player_pss_mb)') < 100"
check "chromium_pss_mb in the first row" python3 -c "assert 3 * 0.05 < float('$(csv_cell "$CSV" 1 chromium_pss_mb)') < 300"

# The exit summary has the same Watches section as `vigil report` on the rows written.
"$VIGIL" --watch "kiosk=kiosk-$TOK-" --interval 0.1 --count 10 --log-dir "$TMP/log5" \
	>"$TMP/exit.txt" 2>/dev/null
"$VIGIL" report "$TMP"/log5/host-*.csv >"$TMP/report5.txt" 2>&1
watches_section() { sed -n '/^  Watches/,/^  kiosk_threads/p' "$1"; }
check "exit summary: a Watches section" grep -Eq '^  kiosk_procs +min +2 ' "$TMP/exit.txt"
check_eq "exit summary: the same Watches section as the report" "$(watches_section "$TMP/report5.txt")" \
	"$(watches_section "$TMP/exit.txt")"

# A watched process that execs keeps its pid and gets a new address space: its PSS is
# read through the new one (a kept smaps_rollup fd still holds the old one, which answers
# ESRCH: vigil opens the file again), never left empty nor taken from the old image. The
# process is a small shell for 1.5 s, then a Python with 48 MiB written (the interpreter
# itself, not a wrapper that would exec again and lose the name).
PYBIN=$(python3 -c 'import sys; print(sys.executable)')
cat >"$TMP/execer.sh" <<EOS
sleep 1.5
exec -a "pssx-$TOK- after" "$PYBIN" -c 'import time; b = bytearray(48 << 20); b[::4096] = b"x" * len(b[::4096]); time.sleep(30)'
EOS
bash -c "exec -a 'pssx-$TOK- before' bash '$TMP/execer.sh'" &
pids+=($!)
sleep 0.2
"$VIGIL" --watch "px=pssx-$TOK-" --interval 0.25 --pss-interval 0.25 --count 14 \
	--log-dir "$TMP/log6" --quiet 2>"$TMP/err6"
CSV=$(ls "$TMP"/log6/host-*.csv)
check_eq "exec: one process all along" "1" "$(python3 -c "
import csv
print(','.join(sorted({r['px_procs'] for r in csv.DictReader(open('$CSV'))})))")"
check "exec: PSS before, a small shell" python3 -c "assert 0 < float('$(csv_cell "$CSV" 1 px_pss_mb)') < 20"
check "exec: PSS in every row" python3 -c "
import csv
rows = list(csv.DictReader(open('$CSV')))
assert len(rows) == 14 and all(r['px_pss_mb'] for r in rows), [r['px_pss_mb'] for r in rows]"
check "exec: PSS after, the new image's 48 MiB" python3 -c "assert 45 < float('$(csv_cell "$CSV" 14 px_pss_mb)') < 200"
