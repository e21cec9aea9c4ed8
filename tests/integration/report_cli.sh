#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `vigil report` through the binary: text, exit statuses, gzip days, HTML.
# (The summary's format is checked in the unit test test_report and against the
# reference script in report_vs_reference.sh.)
. "$(dirname "$0")/../lib.sh"

[ -x "$VIGIL" ] || exit 0
csv=$FIXTURES/csv
if ! "$VIGIL" report --help >"$TMP/help.txt" 2>&1; then
	not_ok "report_cli_dispatch (vigil report is not wired to report_main)"
	exit 0
fi
ok report_cli_dispatch

"$VIGIL" report "$csv/host-2026-12-02.csv" >"$TMP/out.txt" 2>"$TMP/err.txt"
check_eq report_cli_exit_ok 0 $?
check report_cli_summary grep -q '^  SUMMARY over 40 samples (18:12:47 -> 18:13:26)$' "$TMP/out.txt"
# vigil leads with "What happened"; the reference's block follows it.
ref_part() { awk 'f || /^  =====/ { if (!f) print ""; f = 1; print }' "$1"; }
check report_cli_findings_first grep -q '^  What happened' <<<"$(head -1 "$TMP/out.txt")"
# The reference's block, but no RISING / falling from 39 s of data (ref_trend.py).
ref_part "$TMP/out.txt" >"$TMP/out.ref.txt"
check report_cli_reference_block python3 "$TOP/tests/integration/ref_trend.py" \
	"$csv/host-2026-12-02.summary" "$TMP/out.ref.txt" "39 s"

# A compressed old day reads like a plain one.
gzip -c "$csv/host-2026-12-02.csv" >"$TMP/host-2026-12-02.csv.gz"
"$VIGIL" report "$TMP/host-2026-12-02.csv.gz" >"$TMP/gz.txt" 2>&1
check report_cli_gzip cmp -s <(ref_part "$TMP/out.txt" | head -n 20) <(ref_part "$TMP/gz.txt" | head -n 20)

"$VIGIL" report /nonexistent/host-2026-01-01.csv >"$TMP/out2.txt" 2>"$TMP/err2.txt"
check_eq report_cli_unreadable_exit 2 $?
check report_cli_unreadable_named grep -q 'cannot read /nonexistent/host-2026-01-01.csv' "$TMP/err2.txt"

"$VIGIL" report >/dev/null 2>"$TMP/err3.txt"
check_eq report_cli_no_args_exit 2 $?

printf 'a,b,c\n1,2,3\n' >"$TMP/other.csv"
"$VIGIL" report "$TMP/other.csv" >/dev/null 2>"$TMP/err4.txt"
check_eq report_cli_foreign_exit 2 $?
check report_cli_foreign_named grep -q 'other.csv: not a vigil host or GPU log' "$TMP/err4.txt"

"$VIGIL" report --html "$TMP/r.html" "$csv/host-2026-12-02.csv" "$csv/gpu0-2026-12-02.csv" \
	>"$TMP/html.out" 2>&1
check_eq report_cli_html_exit 0 $?
check_eq report_cli_html_names_the_file "vigil report: wrote $TMP/r.html" "$(cat "$TMP/html.out")"
check report_cli_html_doc grep -q '^<!DOCTYPE html>' "$TMP/r.html"
check report_cli_html_no_script bash -c "! grep -q '<script' '$TMP/r.html'"
# Host 7; the GPU 5: temperature and fans on axes of their own, power, clocks, utilisation.
check report_cli_html_charts bash -c "[ \$(grep -o '<svg ' '$TMP/r.html' | wc -l) -eq 12 ]"

# --- one time to exhaustion per leak -------------------------------------------------------
# Three hours: Chromium's PSS +150 MB/h, the memory available -180 MB/h. The leak's
# finding and the slopes give the same time until memory runs out.
mkdir -p "$TMP/leak"
python3 - "$FIXTURES/csv/host-2026-12-02.csv" "$TMP/leak/host-2026-12-02.csv" <<'PY'
import csv, random, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, row = rows[0], rows[1]
col = {n: i for i, n in enumerate(head)}
random.seed(1)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(head)
    for k in range(180):
        r = list(row)
        r[col["timestamp"]] = "2026-12-02T%02d:%02d:00.000" % (10 + k // 60, k % 60)
        r[col["chromium_pss_mb"]] = "%.1f" % (400 + 2.5 * k + random.uniform(-3, 3))
        r[col["mem_avail_mb"]] = "%.1f" % (3000 - 3.0 * k + random.uniform(-5, 5))
        w.writerow(r)
PY
"$VIGIL" report "$TMP/leak/host-2026-12-02.csv" >"$TMP/leak.txt" 2>&1
check "leak: the finding says when memory runs out" grep -q 'rising chromium_pss_mb .*memory runs out in ~[0-9.]* h' "$TMP/leak.txt"
check_eq "leak: one time to exhaustion in the report" 1 \
	"$(grep -o 'runs out in ~[0-9.]* h\|reaches 0 in ~[0-9.]* h' "$TMP/leak.txt" | grep -o '[0-9.]* h' | sort -u | wc -l)"

# --- a machine without a Pi: no Pi rows, no verdict from seconds of data ------------------
"$VIGIL" --root "$FIXTURES/x86-server" --nvml /nonexistent --count 6 --interval 0.05 --quiet \
	--log-dir "$TMP/x86" 2>/dev/null
"$VIGIL" report "$TMP"/x86/host-*.csv >"$TMP/x86.txt" 2>&1
check "no Pi: a summary" grep -q '^  SUMMARY over 6 samples' "$TMP/x86.txt"
check_eq "no Pi: none of the Pi player's leak-check rows" 0 \
	"$(grep -c 'Trend (the leak check)\|player_pss_mb\|chromium_\|volt_core_v\|arm_mhz\|Throttle / power' "$TMP/x86.txt")"
check_eq "no Pi: no trend verdict from seconds of data" 0 "$(grep -c 'falling\|RISING' "$TMP/x86.txt")"
check "no Pi: the slopes say the data are too short" \
	grep -Eq '^  mem_avail_mb       \((not enough data for a trend: .*|too few samples)\)$' "$TMP/x86.txt"
