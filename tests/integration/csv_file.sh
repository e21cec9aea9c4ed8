#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --csv FILE, the reference monitor's option: the host CSV goes to exactly FILE (its
# directories made, one header, rows appended across runs, no rotation), the other logs
# still to the log directory.
. "$(dirname "$0")/../lib.sh"

cd "$TMP" || exit 1
# The reference user's command line, shortened: --quiet --duration --interval --csv.
"$VIGIL" --quiet --duration 0.5 --interval 0.1 --csv logs/monitor.csv --log-dir "$TMP/ld" \
	2>"$TMP/err1"
check "the CSV is at exactly the path given" test -s "$TMP/logs/monitor.csv"
check "no daily host file in the log directory" bash -c "! ls '$TMP'/ld/host-*.csv 2>/dev/null"
check "events.log still in the log directory" test -f "$TMP/ld/events.log"
rows1=$(($(wc -l <"$TMP/logs/monitor.csv") - 1))
check "rows were written" test "$rows1" -ge 2
check_eq "the header is the reference's first columns" "timestamp,uptime_s,cpu_total_pct" \
	"$(head -1 "$TMP/logs/monitor.csv" | cut -d, -f1-3)"

# A second run appends under the same header: one header in the file.
"$VIGIL" --quiet --count 2 --interval 0.1 --csv logs/monitor.csv --log-dir "$TMP/ld" 2>/dev/null
check_eq "one header after two runs" 1 "$(grep -c '^timestamp,' "$TMP/logs/monitor.csv")"
check_eq "rows of both runs" $((rows1 + 2)) $(($(wc -l <"$TMP/logs/monitor.csv") - 1))
check_eq "a data row has the header's width" \
	"$(head -1 "$TMP/logs/monitor.csv" | tr -cd , | wc -c)" \
	"$(tail -1 "$TMP/logs/monitor.csv" | tr -cd , | wc -c)"

# A file with another header (the reference's own, an older run) is kept aside.
printf 'timestamp,cpu\n2026-01-01T00:00:00,1\n' >"$TMP/other.csv"
"$VIGIL" --quiet --count 1 --interval 0.1 --csv "$TMP/other.csv" --no-log 2>"$TMP/err3"
check_eq "the old content is in .old" "timestamp,cpu" "$(head -1 "$TMP/other.csv.old")"
check_eq "the new file starts with vigil's header" "timestamp,uptime_s" \
	"$(head -1 "$TMP/other.csv" | cut -d, -f1-2)"
check "--csv writes even with --no-log" test "$(wc -l <"$TMP/other.csv")" -eq 2
check "the move is said" grep -q "other.csv.old" "$TMP/err3"
# A second change of header keeps both old files: the first .old is not overwritten.
printf 'timestamp,gpu\n2026-01-02T00:00:00,2\n' >"$TMP/other.csv"
"$VIGIL" --quiet --count 1 --interval 0.1 --csv "$TMP/other.csv" --no-log 2>"$TMP/err4"
check_eq "the first .old is kept" "timestamp,cpu" "$(head -1 "$TMP/other.csv.old")"
check_eq "the second old file is .old.1" "timestamp,gpu" "$(head -1 "$TMP/other.csv.old.1")"
check "the second move is said with its name" grep -q "other.csv.old.1" "$TMP/err4"
check "--no-log --csv: the log file system is the CSV's" python3 -c "assert float('$(csv_cell "$TMP/other.csv" 1 logfs_avail_mb)') > 0"
