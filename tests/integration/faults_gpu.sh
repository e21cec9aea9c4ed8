#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults on the GPU side (simulated NVML): the GPU falls off the bus mid-run and comes
# back (Xid 79), the NVML library is missing, is not a library, or lacks the symbols
# vigil needs. Host sampling goes on through all of it, every host row is written, and
# the failures are recorded (stderr once, events.log).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
NVML_OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
# run NAME NVML COUNT [ARGS...]: COUNT host samples at 50 ms (GPU at 10 ms) into $TMP/NAME.
run() {
	local name=$1 lib=$2 count=$3
	shift 3
	timeout 60 "$VIGIL" --nvml "$lib" --root "$FIXTURES/x86-server" --gpu-interval 0.01 \
		--interval 0.05 --count "$count" --min-disk-mb 0 --log-dir "$TMP/$name" --quiet "$@" \
		2>"$TMP/$name.err"
}
# host_ok NAME COUNT: COUNT host rows, each with its load average (host data kept coming).
host_ok() {
	local csv
	csv=$(ls "$TMP/$1"/host-*.csv 2>/dev/null | head -1)
	check_eq "$1: $2 host rows" "$2" "$(data_rows "$csv")"
	check "$1: every host row has its values" python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
i = r[0].index("load1")
sys.exit(any(row[i] == "" for row in r[1:]))' "$csv"
}

# --- the GPU is lost at its 30th sample and back at its 36th (xid-79-lost-recovered,
# recovering before the 10 failures after which vigil backs off to one try in 30 s) ---
sed 's/step 60/step 36/' "$SCEN/xid-79-lost-recovered" >"$TMP/lost.scen"
VIGIL_NVML_SCENARIO="$TMP/lost.scen" run lost "$NVML_SIM" 40
check_eq "lost: exits 0" 0 $?
host_ok lost 40
gcsv=$(ls "$TMP/lost"/gpu0-*.csv | head -1)
check "lost: GPU rows record the loss" grep -q 'NVML_FAILED:GPU is lost' "$gcsv"
check "lost: GPU rows after the recovery" bash -c "tail -1 '$gcsv' | grep -qv NVML_FAILED"
out=$(csv_whole "$TMP/lost" 2>"$TMP/lost.csv")
check "lost: every file whole ($out)" test ! -s "$TMP/lost.csv"
check "lost: failure in events.log" grep -q 'type=NVML_FAILED gpu=0 error="GPU is lost"' "$TMP/lost/events.log"
check "lost: recovery in events.log" grep -q 'type=GPU_RECOVERED gpu=0' "$TMP/lost/events.log"
check_eq "lost: failure said once" 1 "$(grep -c 'gpu0: NVML FAILED' "$TMP/lost.err")"
check "lost: recovery said" grep -q 'gpu0: GPU RECOVERED after' "$TMP/lost.err"
crash=$(ls "$TMP/lost"/crashes/crash-*.log 2>/dev/null | grep -v -e followup -e programs | head -1)
check "lost: a crash snapshot of the first failure" grep -qx 'Error: NVML_FAILED: GPU is lost' "$crash"

# --- no library, not a library, a library without NVML's symbols ---------------------
printf 'not an ELF file\n' >"$TMP/garbage.so"
printf 'int vigil_not_nvml(void);\nint vigil_not_nvml(void) { return 0; }\n' >"$TMP/empty.c"
cc -shared -fPIC -o "$TMP/libempty.so" "$TMP/empty.c"
for c in "missing:/nonexistent/libnvidia-ml.so.1" "garbage:$TMP/garbage.so" "nosymbols:$TMP/libempty.so"; do
	name=${c%%:*}
	run "$name" "${c#*:}" 5
	check_eq "$name: exits 0" 0 $?
	host_ok "$name" 5
	check "$name: no GPU file" bash -c "! ls '$TMP/$name'/gpu*.csv 2>/dev/null | grep -q ."
	check_eq "$name: said once" 1 "$(grep -c 'GPU sampling off' "$TMP/$name.err")"
	check "$name: says which library" grep -q "${c#*:}" "$TMP/$name.err"
done

# --- an old driver lacking the newer symbols: fallbacks, and the host as ever ---------
VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" run old "$NVML_OLD" 5
check_eq "old library: exits 0" 0 $?
host_ok old 5
check "old library: GPU rows" test "$(data_rows "$TMP/old"/gpu0-*.csv)" -gt 5
