#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The libFuzzer harnesses (fuzz/): each is built with ASan+UBSan, replays its corpus
# fuzz/corpus/NAME/ (the seeds from the fixtures and every input that once found a bug)
# and then fuzzes briefly from it. One "ok" per harness. The sanitizers are already in
# the harness, so this runs once, in the plain pass.
. "$(dirname "$0")/../lib.sh"

case "${VIGIL_LABEL:-plain}" in
plain) ;;
*)
	ok "fuzz replay # skip: runs in the plain pass"
	exit 0
	;;
esac

cd "$TOP" || exit 1
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
fuzz/build.sh >"$TMP/build.log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	ok "fuzz replay # skip: $(tail -1 "$TMP/build.log")"
	exit 0
fi
if [ $rc -ne 0 ]; then
	not_ok "fuzz harnesses build"
	tail -20 "$TMP/build.log"
	exit 0
fi
ok "fuzz harnesses build"

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
for src in fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	n=${n#fuzz_}
	bin=$FUZZ_BUILD/fuzz/fuzz_$n
	corpus=fuzz/corpus/$n
	if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
		not_ok "fuzz $n: no corpus in $corpus"
		continue
	fi
	# New inputs go to a scratch directory (the first one named), never into the repo.
	mkdir -p "$TMP/$n"
	if timeout 120 "$bin" -runs=0 -timeout=10 "$TMP/$n" "$corpus" >"$TMP/$n.replay" 2>&1; then
		ok "fuzz $n: replays its corpus ($(ls "$corpus" | wc -l) inputs)"
	else
		not_ok "fuzz $n: replays its corpus"
		grep -m5 -E 'ERROR|SUMMARY|runtime error|Test unit' "$TMP/$n.replay"
	fi
	if timeout 120 "$bin" -runs=2000 -timeout=10 -artifact_prefix="$TMP/$n-" "$TMP/$n" "$corpus" \
		>"$TMP/$n.run" 2>&1; then
		ok "fuzz $n: 2000 new inputs"
	else
		not_ok "fuzz $n: 2000 new inputs"
		grep -m5 -E 'ERROR|SUMMARY|runtime error|Test unit' "$TMP/$n.run"
		for a in "$TMP/$n"-*; do [ -f "$a" ] && echo "    input: $(od -An -c "$a" | head -4 | tr -s ' ')"; done
	fi
done
