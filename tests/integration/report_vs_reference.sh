#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `vigil report` against the reference monitor's own summarise(): the reference script
# (seeds/004_*, beside the clone as ../shared/seeds, or $VIGIL_SEEDS) is run on the
# fixtures; its output must equal the committed golden files (which the unit test
# test_report holds vigil's text to), and vigil's binary must print the same block but
# for one deliberate difference: from less than 30 min or 30 samples the reference's
# leak check says RISING / falling, vigil "too short to tell (SPAN)" (ref_trend.py
# checks every other line byte for byte, and this one row by row). The first fixture
# stretched to a row a minute (39 min) gets verdicts from both: byte for byte, the
# trend rows included. Without the seeds there is nothing to compare against, and
# nothing is printed.
. "$(dirname "$0")/../lib.sh"

seeds=${VIGIL_SEEDS:-$TOP/../shared/seeds}
seed=$(ls "$seeds"/004_*.txt 2>/dev/null | head -1)
[ -n "$seed" ] && [ -f "$seed" ] || exit 0

have_report=0
if [ -x "$VIGIL" ] && "$VIGIL" report --help >/dev/null 2>&1; then
	have_report=1
fi

# vigil's block in $TMP/vigil.txt: it leads with its "What happened" block; the
# reference's block follows it.
vigil_block() {
	awk 'f || /^  =====/ { if (!f) print ""; f = 1; print }' "$TMP/vigil.txt" >"$TMP/vigil.ref.txt"
}

for csv in "$FIXTURES"/csv/host-2026-12-02.csv "$FIXTURES"/csv/clean/host-2026-12-03.csv; do
	name=$(basename "$(dirname "$csv")")-$(basename "$csv" .csv)
	case $name in
	csv-*) span="39 s" ;;
	*) span="5 s, 6 samples" ;;
	esac
	golden=${csv%.csv}.summary
	if python3 "$TOP/tests/integration/report_ref.py" "$seed" "$csv" >"$TMP/ref.txt" 2>"$TMP/ref.err" &&
		cmp -s "$golden" "$TMP/ref.txt"; then
		ok "report_golden_is_reference $name"
	else
		not_ok "report_golden_is_reference $name"
		diff "$golden" "$TMP/ref.txt" | head -20
		head -5 "$TMP/ref.err"
	fi
	[ "$have_report" = 1 ] || continue
	lines=$(wc -l <"$TMP/ref.txt")
	"$VIGIL" report "$csv" >"$TMP/vigil.txt" 2>"$TMP/vigil.err"
	rc=$?
	vigil_block
	if [ $rc -eq 0 ] && python3 "$TOP/tests/integration/ref_trend.py" "$TMP/ref.txt" \
		"$TMP/vigil.ref.txt" "$span" >"$TMP/diff.txt" &&
		head -1 "$TMP/vigil.txt" | grep -q '^  What happened'; then
		ok "report_vs_reference $name (the same but the leak check: too short to tell ($span))"
	else
		not_ok "report_vs_reference $name (exit $rc)"
		head -20 "$TMP/diff.txt"
	fi
	# The one difference is there: the reference's verdicts, vigil's none.
	if [ "$name" = csv-host-2026-12-02 ]; then
		check_eq "report_vs_reference $name: the reference's 4 verdicts" 4 \
			"$(grep -c '(first->last quarter)$' "$TMP/ref.txt")"
		check_eq "report_vs_reference $name: vigil's 4 'too short to tell (39 s)'" 4 \
			"$(grep -c '^  [a-z_]* *too short to tell (39 s)$' "$TMP/vigil.ref.txt")"
		check_eq "report_vs_reference $name: no verdict from vigil" 0 \
			"$(grep -c 'RISING\|falling' "$TMP/vigil.ref.txt")"
	fi
done

# Enough data for a verdict (40 rows a minute apart: 39 min, 40 samples): the same
# block, byte for byte, the trend rows included.
[ "$have_report" = 1 ] || exit 0
mkdir -p "$TMP/long"
python3 - "$FIXTURES/csv/host-2026-12-02.csv" "$TMP/long/host-2026-12-02.csv" <<'PY'
import sys
src, dst = sys.argv[1:3]
lines = open(src, newline="").read().split("\n")
out = [lines[0]]
for k, ln in enumerate(l for l in lines[1:] if l):
    ts, rest = ln.split(",", 1)
    out.append("2026-12-02T%02d:%02d:00.000,%s" % (18 + (12 + k) // 60, (12 + k) % 60, rest))
open(dst, "w", newline="").write("\n".join(out) + "\n")
PY
python3 "$TOP/tests/integration/report_ref.py" "$seed" "$TMP/long/host-2026-12-02.csv" >"$TMP/ref.txt" 2>"$TMP/ref.err"
"$VIGIL" report "$TMP/long/host-2026-12-02.csv" >"$TMP/vigil.txt" 2>"$TMP/vigil.err"
vigil_block
check_eq "report_vs_reference 39 min: the reference's 4 verdicts" 4 "$(grep -c '(first->last quarter)$' "$TMP/ref.txt")"
if head -n "$(wc -l <"$TMP/ref.txt")" "$TMP/vigil.ref.txt" | cmp -s - "$TMP/ref.txt"; then
	ok "report_vs_reference 39 min: byte for byte, verdicts included"
else
	not_ok "report_vs_reference 39 min: byte for byte, verdicts included"
	head -n "$(wc -l <"$TMP/ref.txt")" "$TMP/vigil.ref.txt" | diff - "$TMP/ref.txt" | head -20
fi
