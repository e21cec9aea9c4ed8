#!/usr/bin/env bash
# `vigil report` against the reference monitor's own summarise(): the reference script
# (seeds/004_*, beside the clone as ../shared/seeds, or $VIGIL_SEEDS) is run on the
# fixtures; its output must equal the committed golden files (which the unit test
# test_report holds vigil's text to), and vigil's binary must print the same block.
# Without the seeds there is nothing to compare against, and nothing is printed.
. "$(dirname "$0")/../lib.sh"

seeds=${VIGIL_SEEDS:-$TOP/../shared/seeds}
seed=$(ls "$seeds"/004_*.txt 2>/dev/null | head -1)
[ -n "$seed" ] && [ -f "$seed" ] || exit 0

have_report=0
if [ -x "$VIGIL" ] && "$VIGIL" report --help >/dev/null 2>&1; then
	have_report=1
fi

for csv in "$FIXTURES"/csv/host-2026-12-02.csv "$FIXTURES"/csv/clean/host-2026-12-03.csv; do
	name=$(basename "$(dirname "$csv")")-$(basename "$csv" .csv)
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
	# vigil leads with its "What happened" block; the reference's block follows it.
	awk 'f || /^  =====/ { if (!f) print ""; f = 1; print }' "$TMP/vigil.txt" >"$TMP/vigil.ref.txt"
	if [ $rc -eq 0 ] && head -n "$lines" "$TMP/vigil.ref.txt" | cmp -s - "$TMP/ref.txt" &&
		head -1 "$TMP/vigil.txt" | grep -q '^  What happened'; then
		ok "report_vs_reference $name"
	else
		not_ok "report_vs_reference $name (exit $rc)"
		head -n "$lines" "$TMP/vigil.ref.txt" | diff - "$TMP/ref.txt" | head -20
	fi
done
