#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run the tests. The last line is "N passed, N failed".
#
#   scripts/test.sh          what `make test` (and CI) runs: the format check, every unit
#                            and integration test once on the plain build, and the unit
#                            tests again on an ASan+UBSan build
#   scripts/test.sh --full   what `make check` runs: all of the above, plus the clang build,
#                            the integration tests on the ASan+UBSan build, the ARM cross
#                            builds under qemu-user (cross.sh) and the Debian packages (deb.sh)
#
# Tests run TEST_JOBS at a time (default: the CPUs, nproc; every test picks its own free
# ports and temporary directories, so they do not see each other). Each test's output is
# in tests/out/LABEL-NAME.log; the tally is printed in a fixed order whatever finished first.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

full=0
[ "${1:-}" = --full ] && full=1
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
log_dir=tests/out
rm -rf "$log_dir"
mkdir -p "$log_dir"
passed=0
failed=0
failures=()

# Integration tests that only `make check` runs: they build for other architectures or
# install a package on this machine, and need packages `make test` does not install.
CHECK_ONLY="cross deb"
# The longest tests start first, so the pool does not wait on one of them at the end.
SLOW_FIRST="fuzz_replay prom_faults prom_queue powercut gpu_reprobe gpu_stall faults_proc gpu browser faults_disk gpu_events prom_push"

record() { # record NAME STATUS
	if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$1"); fi
}

# run_one KIND BUILD LABEL PATH: one unit binary or integration script, its output in
# its log and its exit status in the log's .rc file. Runs in the pool (xargs).
run_one() {
	local kind=$1 build=$2 label=$3 path=$4 name out
	case $kind in
	unit) name=$(basename "$path") ;;
	*) name=$(basename "$path" .sh) ;;
	esac
	out="$log_dir/$label-$name.log"
	local t0=$EPOCHREALTIME rc
	if [ "$kind" = unit ]; then
		"$path" >"$out" 2>&1
	else
		VIGIL_BUILD="$build" VIGIL_LABEL="$label" timeout 900 bash "$path" >"$out" 2>&1
	fi
	rc=$?
	echo "$t0 $EPOCHREALTIME $label-$name" >"$out.time"
	echo $rc >"$out.rc"
}
export -f run_one
export log_dir

# tally_unit LABEL BIN: add a unit binary's cmocka counts, print its line.
tally_unit() {
	local label=$1 name out rc p f
	name=$(basename "$2")
	out="$log_dir/$label-$name.log"
	rc=$(cat "$out.rc" 2>/dev/null || echo 255)
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "${f:-0}" -gt 0 ]; then
		failures+=("$label $name (see $out)")
	elif [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		failures+=("$label $name: exited $rc (see $out)")
	fi
	echo "$label unit $name: ${p:-0} passed, ${f:-0} failed"
}

# tally_integration LABEL SCRIPT: add a script's ok / not ok lines, print its line.
tally_integration() {
	local label=$1 name out rc p f line
	name=$(basename "$2" .sh)
	out="$log_dir/$label-$name.log"
	rc=$(cat "$out.rc" 2>/dev/null || echo 255)
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -gt 0 ]; then
		while IFS= read -r line; do failures+=("$label $name: ${line#not ok }"); done < <(grep '^not ok ' "$out")
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$label $name: exited $rc (see $out)")
	fi
	echo "$label integration $name: $p passed, $f failed"
}

# integration_scripts LABEL: the scripts this run takes, the slow ones first.
integration_scripts() {
	local t name s
	for s in $SLOW_FIRST; do
		[ -f "tests/integration/$s.sh" ] && echo "tests/integration/$s.sh"
	done
	for t in tests/integration/*.sh; do
		name=$(basename "$t" .sh)
		case " $SLOW_FIRST " in *" $name "*) continue ;; esac
		if [ $full -eq 0 ] || [ "$1" = asan ]; then
			case " $CHECK_ONLY " in *" $name "*) continue ;; esac
		fi
		echo "$t"
	done
}

# run_pool BUILD LABEL WITH_INTEGRATION: the build's unit binaries (and its integration
# scripts when asked) through the pool, then their tally in a fixed order.
run_pool() {
	local build=$1 label=$2 with_int=$3 bin t units=() scripts=()
	for bin in "$build"/tests/test_*; do [ -x "$bin" ] && units+=("$bin"); done
	[ "$with_int" = 1 ] && mapfile -t scripts < <(integration_scripts "$label")
	{
		for t in "${scripts[@]}"; do printf 'integration %s %s %s\n' "$build" "$label" "$t"; done
		for bin in "${units[@]}"; do printf 'unit %s %s %s\n' "$build" "$label" "$bin"; done
	} | xargs -P "$JOBS" -L 1 bash -c 'run_one "$@"' _
	for bin in "${units[@]}"; do tally_unit "$label" "$bin"; done
	for t in $(printf '%s\n' "${scripts[@]}" | sort); do tally_integration "$label" "$t"; done
}

# 1. Formatting, with the repo's .clang-format.
if scripts/format-check.sh >"$log_dir/format.log" 2>&1; then
	record "format" 0
	echo "format: ok"
else
	record "format (see $log_dir/format.log)" 1
	echo "format: FAILED"
	head -20 "$log_dir/format.log"
fi

# 2. The same code must also compile warning-free with clang (-Werror).
if [ $full -eq 1 ]; then
	if make -s -j"$(nproc)" BUILD=build-clang CC=clang all unit >"$log_dir/clang-build.log" 2>&1; then
		record "clang build" 0
		echo "clang build: ok"
	else
		record "clang build (see $log_dir/clang-build.log)" 1
		echo "clang build: FAILED"
		tail -20 "$log_dir/clang-build.log"
	fi
fi

# 3. ASan + UBSan build of the unit tests (and the simulated NVML they load; with --full
#    the daemon too), started now beside the plain tests: those mostly wait on daemons
#    and timers, so the compiler takes CPU they leave idle (bench/RESULTS.md, section 27).
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
targets="unit build-asan/nvml-sim/libnvidia-ml.so.1 build-asan/nvml-sim/old/libnvidia-ml.so.1"
[ $full -eq 1 ] && targets="all unit"
# shellcheck disable=SC2086 # targets is a list
nice make -s -j"$(nproc)" BUILD=build-asan OPT="-O1 -g $san" EXTRA_LDFLAGS="$san" $targets \
	>"$log_dir/asan-build.log" 2>&1 &
asan_build=$!

# 4. The plain build (made by the Makefile before this script): units and integration.
run_pool build plain 1

# 5. The ASan + UBSan unit tests; with --full the integration tests too.
if wait "$asan_build"; then
	record "asan build" 0
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
	run_pool build-asan asan $full
else
	record "asan build (see $log_dir/asan-build.log)" 1
	tail -20 "$log_dir/asan-build.log"
fi

# The slowest tests, for whoever wants the suite faster (each log's .time file holds its
# start and end).
echo
echo "Slowest (seconds):"
cat "$log_dir"/*.time 2>/dev/null | awk '{ printf "  %7.1f  %s\n", $2 - $1, $3 }' | sort -rn | head -8

if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "Failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
