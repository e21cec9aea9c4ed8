#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzz every harness (or the ones named) for SECONDS each, one after the other on one
# core: build them (fuzz/build.sh), start each from a working copy of its seed corpus
# fuzz/corpus/NAME/ (new inputs collect in fuzz/out/NAME/, not in the repository), and
# write what crashes to fuzz/crashes/. Prints one row per harness:
# name, seconds, executions, result. Exits 1 when any harness found a crash.
# Usage: fuzz/run.sh [SECONDS] [NAME...]     (default 60 s; NAME without fuzz_)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
out=${FUZZ_BUILD:-build-fuzz}
fuzz/build.sh "$@" || exit $?

if [ $# -gt 0 ]; then names=("$@"); else
	names=()
	for f in fuzz/fuzz_*.c; do n=$(basename "$f" .c); names+=("${n#fuzz_}"); done
fi
mkdir -p fuzz/crashes fuzz/out
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
found=0
printf '%-14s %8s %12s  %s\n' harness seconds execs result
for n in "${names[@]}"; do
	work=fuzz/out/$n
	log=fuzz/out/$n.log
	mkdir -p "$work"
	start=$(date +%s)
	"$out/fuzz/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="fuzz/crashes/$n-" "$work" "fuzz/corpus/$n" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		result="ok, corpus $(find "$work" -type f | wc -l) inputs"
	else
		found=1
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		why=$(grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | cut -c1-80)
		result="FOUND: ${why:-exit $rc} -> ${art:-see $log}"
	fi
	printf '%-14s %8s %12s  %s\n' "$n" "$took" "${execs:-?}" "$result"
done
exit $found
