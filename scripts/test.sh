#!/usr/bin/env bash
# Run every test: format check, unit tests, integration tests; then the same unit and
# integration tests again on an ASan+UBSan build. The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
failures=()
log_dir=tests/out
rm -rf "$log_dir"
mkdir -p "$log_dir"

record() { # record NAME STATUS
	if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$1"); fi
}

run_units() { # run_units BUILD LABEL
	local bin out p f
	for bin in "$1"/tests/test_*; do
		[ -x "$bin" ] || continue
		out="$log_dir/$2-$(basename "$bin").log"
		"$bin" >"$out" 2>&1
		local rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
		passed=$((passed + ${p:-0}))
		failed=$((failed + ${f:-0}))
		if [ "${f:-0}" -gt 0 ]; then
			failures+=("$2 $(basename "$bin") (see $out)")
		elif [ $rc -ne 0 ]; then
			failed=$((failed + 1))
			failures+=("$2 $(basename "$bin"): exited $rc (see $out)")
		fi
		echo "$2 unit $(basename "$bin"): ${p:-0} passed, ${f:-0} failed"
	done
}

run_integration() { # run_integration BUILD LABEL
	local t out name line
	for t in tests/integration/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		out="$log_dir/$2-$name.log"
		VIGIL_BUILD="$1" VIGIL_LABEL="$2" timeout 900 bash "$t" >"$out" 2>&1
		local rc=$?
		local p f
		p=$(grep -c '^ok ' "$out")
		f=$(grep -c '^not ok ' "$out")
		passed=$((passed + p))
		failed=$((failed + f))
		if [ "$f" -gt 0 ]; then
			while IFS= read -r line; do failures+=("$2 $name: ${line#not ok }"); done < <(grep '^not ok ' "$out")
		fi
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			failed=$((failed + 1))
			failures+=("$2 $name: exited $rc (see $out)")
		fi
		echo "$2 integration $name: $p passed, $f failed"
	done
}

# 1. Formatting, with the repo's .clang-format.
if scripts/format-check.sh >"$log_dir/format.log" 2>&1; then
	record "format" 0
	echo "format: ok"
else
	record "format (see $log_dir/format.log)" 1
	echo "format: FAILED"; head -20 "$log_dir/format.log"
fi

# 2. The same code must also compile warning-free with clang (-Werror).
if make -s BUILD=build-clang CC=clang all unit >"$log_dir/clang-build.log" 2>&1; then
	record "clang build" 0
	echo "clang build: ok"
else
	record "clang build (see $log_dir/clang-build.log)" 1
	echo "clang build: FAILED"; tail -20 "$log_dir/clang-build.log"
fi

# 3. Plain build.
run_units build plain
run_integration build plain

# 4. ASan + UBSan build of everything, same tests.
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if make -s BUILD=build-asan OPT="-O1 -g $san" EXTRA_LDFLAGS="$san" all unit >"$log_dir/asan-build.log" 2>&1; then
	record "asan build" 0
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
	run_units build-asan asan
	run_integration build-asan asan
else
	record "asan build (see $log_dir/asan-build.log)" 1
	tail -20 "$log_dir/asan-build.log"
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "Failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
