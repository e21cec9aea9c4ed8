#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A driver call that hangs (the simulator's `stall`): GPU 1's call blocks for seconds.
# Its sample becomes a failure row "NVML call hung for N s" (and the failure line and
# event), GPU 0 and the host keep sampling all through the stall, and when the call
# returns GPU 1 is recovered by the usual rules. The same for a call that hangs while
# GPU 1 is acquired. Then a call still hung at exit: the daemon exits anyway and says so. Counts rows only; no timing is asserted.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_stall"
rows() { python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))) - 1)' "$1"; }
# two_gpus STALL_LINE: GPU 0 and 1 of healthy-8gpu, then STALL_LINE.
two_gpus() {
	sed -n '/^driver/p; /^gpu [01] /p' "$SCEN/healthy-8gpu"
	grep '^set [01] ' "$SCEN/healthy-8gpu"
	echo "$1"
}
# run140 NAME: the daemon on $TMP/NAME.scen for 140 GPU ticks of 10 ms, logs in $TMP/NAME,
# stderr in $TMP/NAME.err; its exit status.
run140() {
	VIGIL_NVML_SCENARIO="$TMP/$1.scen" timeout 120 "$VIGIL" --nvml "$NVML_SIM" --root / \
		--gpu-interval 0.01 --interval 0.05 --count 140 --log-dir "$TMP/$1" --quiet 2>"$TMP/$1.err"
}
# csv_of NAME FILE: the first of $TMP/NAME/FILE-*.csv ("" when none).
csv_of() { ls "$TMP/$1/$2"-*.csv 2>/dev/null | head -1; }
# between FILE FROM TO: rows of FILE whose timestamp is in [FROM, TO] (the GPU CSV's
# "2026/01/02 03:04:05.678" and the host CSV's "2026-01-02T03:04:05.678" both compare).
between() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
norm = lambda s: s.replace('/', '-').replace('T', ' ')
lo, hi = norm(sys.argv[2]), norm(sys.argv[3])
rows = list(csv.reader(open(sys.argv[1], newline='')))[1:]
print(sum(1 for r in rows if lo <= norm(r[0]) <= hi))
PY
}

# --- GPU 1 stalls 4 s at step 10; the run lasts about 7 s ----------------------------
two_gpus 'at 1 step 10 stall 4000' >"$TMP/stall.scen"
run140 stall
check_eq "stall: exits 0" 0 $?
c0=$(csv_of stall gpu0)
c1=$(csv_of stall gpu1)
host=$(csv_of stall host)
check "stall: both GPU files and the host file" test -n "$c0" -a -n "$c1" -a -n "$host"
hung=$(grep -m1 'NVML_FAILED:NVML call hung for [0-9]* s' "$c1")
check "stall: gpu1 has a 'hung' failure row" test -n "$hung"
check_eq "stall: the first one says 2 s" "NVML_FAILED:NVML call hung for 2 s" \
	"$(grep -m1 -o 'NVML_FAILED:NVML call hung[^,]*' "$c1")"
check_eq "stall: gpu1 good rows before the stall (steps 1-9; the 10th is the stalled one)" 9 \
	"$(awk 'NR > 1 && !/NVML_FAILED/ {n++} /NVML_FAILED/ {exit} END {print n + 0}' "$c1")"
# The stall window, as the CSV shows it: from the first hung row to the first good row
# after it (the stalled sample, published when the call returned).
from=${hung%%,*}
to=$(awk -F, -v from="$from" 'NR > 1 && $1 > from && !/NVML_FAILED/ {print $1; exit}' "$c1")
check "stall: gpu1 answers again after the stall" test -n "$to"
n0=$(between "$c0" "$from" "${to:-9}")
check "stall: gpu0 kept sampling through the stall ($n0 rows)" test "$n0" -ge 20
nh=$(between "$host" "$from" "${to:-9}")
check "stall: the host kept sampling through the stall ($nh rows)" test "$nh" -ge 5
check_eq "stall: gpu0 never failed" 0 "$(grep -c NVML_FAILED "$c0")"
check "stall: gpu1 good rows after the recovery" \
	test "$(awk -F, -v to="${to:-9}" 'NR > 1 && $1 > to && !/NVML_FAILED/' "$c1" | wc -l)" -ge 10
check "stall: the failure line" grep -q 'gpu1: NVML FAILED — GPU crash? NVML call hung for 2 s' "$TMP/stall.err"
check "stall: the recovery line" grep -Eq 'gpu1: GPU RECOVERED after [0-9]+ failures' "$TMP/stall.err"
check "stall: events.log failure" grep -q 'type=NVML_FAILED gpu=1 error="NVML call hung for 2 s"' "$TMP/stall/events.log"
check "stall: events.log recovery" grep -q 'type=GPU_RECOVERED gpu=1 failures=' "$TMP/stall/events.log"
check "stall: nothing about gpu0" bash -c "! grep -q 'gpu0: NVML FAILED\|type=NVML_FAILED gpu=0' '$TMP/stall.err' '$TMP/stall/events.log'"
check "stall: nothing abandoned at exit" bash -c "! grep -q 'still hung at exit' '$TMP/stall.err'"
check "stall: the guard's move counted at exit" grep -q 'NVML: 1 call(s) ran past the guard' "$TMP/stall.err"

# --- GPU 1 stalls 4 s while it is acquired (its first job, at the first tick) ----------
# Acquired under the guard like a sample: GPU 0 and the host sample from the start, GPU 1
# is said not to answer, has "hung" failure rows, then is named and answers.
two_gpus 'at 1 step 0 stall 4000' >"$TMP/acq.scen"
run140 acq
check_eq "acquire: exits 0" 0 $?
a0=$(csv_of acq gpu0)
a1=$(csv_of acq gpu1)
hung=$(grep -m1 'NVML_FAILED:NVML call hung for [0-9]* s' "${a1:-/dev/null}")
check "acquire: gpu1 has a 'hung' failure row" test -n "$hung"
check_eq "acquire: no good gpu1 row before it" 0 \
	"$(awk 'NR > 1 && !/NVML_FAILED/ {n++} /NVML_FAILED/ {exit} END {print n + 0}' "${a1:-/dev/null}")"
from=${hung%%,*}
n=$(between "${a0:-/dev/null}" 0 "${from:-0}")
check "acquire: gpu0 sampled while gpu1 was being acquired ($n rows)" test "$n" -ge 20
check "acquire: said at start" grep -q 'gpu1: not answering at start: NVML call still running after 2 s' "$TMP/acq.err"
check "acquire: gpu0 named" grep -q 'gpu0: .* | PCI: .* | UUID: ' "$TMP/acq.err"
check "acquire: gpu1 named once it answered" grep -q 'gpu1: .* | PCI: .* | UUID: ' "$TMP/acq.err"
check "acquire: gpu1 good rows after it answered" \
	test "$(awk -F, -v from="$from" 'NR > 1 && $1 > from && !/NVML_FAILED/' "${a1:-/dev/null}" | wc -l)" -ge 10
check "acquire: the recovery line" grep -Eq 'gpu1: GPU RECOVERED after [0-9]+ failures' "$TMP/acq.err"
check_eq "acquire: gpu0 never failed" 0 "$(grep -c NVML_FAILED "${a0:-/dev/null}")"
check "acquire: the guard's move counted at exit" grep -q 'NVML: 1 call(s) ran past the guard' "$TMP/acq.err"

# --- three GPUs, the middle one stalls: the GPUs before and after it keep sampling -----
# (the loop reads the GPUs in turn: GPU 2, after the stalled one, must not wait for it)
{
	sed -n '/^driver/p; /^gpu [012] /p' "$SCEN/healthy-8gpu"
	grep '^set [012] ' "$SCEN/healthy-8gpu"
	echo 'at 1 step 10 stall 4000'
} >"$TMP/three.scen"
run140 three
check_eq "three: exits 0" 0 $?
t1=$(csv_of three gpu1)
hung=$(grep -m1 'NVML_FAILED:NVML call hung for [0-9]* s' "${t1:-/dev/null}")
check "three: gpu1 has a 'hung' failure row" test -n "$hung"
from=${hung%%,*}
to=$(awk -F, -v from="$from" 'NR > 1 && $1 > from && !/NVML_FAILED/ {print $1; exit}' "${t1:-/dev/null}")
check "three: gpu1 answers again after the stall" test -n "$to"
# Before the hang is called (gpu1's last good row to its first hung row), too.
last=$(awk -F, -v from="$from" 'NR > 1 && $1 < from && !/NVML_FAILED/ {t = $1} END {print t}' \
	"${t1:-/dev/null}")
for g in 0 2; do
	c=$(csv_of three gpu$g)
	n=$(between "${c:-/dev/null}" "${last:-0}" "${from:-0}")
	check "three: gpu$g kept sampling before the hang was called ($n rows)" test "$n" -ge 20
	n=$(between "${c:-/dev/null}" "${from:-0}" "${to:-9}")
	check "three: gpu$g kept sampling through the stall ($n rows)" test "$n" -ge 20
	check_eq "three: gpu$g never failed" 0 "$(grep -c NVML_FAILED "${c:-/dev/null}")"
done

# --- a call still hung at exit: the daemon leaves it and exits -----------------------
two_gpus 'at 1 step 5 stall 600000' >"$TMP/forever.scen"
VIGIL_NVML_SCENARIO="$TMP/forever.scen" timeout 120 "$VIGIL" --nvml "$NVML_SIM" --root / \
	--gpu-interval 0.01 --interval 0.05 --count 60 --log-dir "$TMP/forever" --quiet \
	2>"$TMP/forever.err"
check_eq "hung at exit: exits 0" 0 $?
check "hung at exit: said so" grep -q 'NVML: 1 GPU call(s) still hung at exit: left running, nvmlShutdown skipped' "$TMP/forever.err"
check "hung at exit: the failure row" grep -q 'NVML_FAILED:NVML call hung for' "$TMP/forever"/gpu1-*.csv
check "hung at exit: gpu0 rows" test "$(rows "$(ls "$TMP/forever"/gpu0-*.csv | head -1)")" -ge 100

# --- signals after the loop moved off a hung thread: status, reopen, stop --------------
# The hung call keeps the first loop thread; the loop goes on on another, which must
# still answer SIGUSR1, SIGHUP and SIGTERM, and end the process cleanly.
two_gpus 'at 1 step 5 stall 600000' >"$TMP/sig.scen"
VIGIL_NVML_SCENARIO="$TMP/sig.scen" "$VIGIL" --nvml "$NVML_SIM" --root / \
	--gpu-interval 0.01 --interval 0.05 --duration 300 --log-dir "$TMP/sig" --quiet \
	2>"$TMP/sig.err" &
pid=$!
for _ in $(seq 600); do
	grep -qs 'NVML_FAILED:NVML call hung for' "$TMP/sig"/gpu1-*.csv && break
	sleep 0.1
done
check "signals: gpu1 hung (the loop moved on)" grep -qs 'NVML_FAILED:NVML call hung for' "$TMP/sig"/gpu1-*.csv
kill -USR1 "$pid"
for _ in $(seq 300); do [ -s "$TMP/sig/status.txt" ] && break; sleep 0.1; done
check "signals: SIGUSR1 writes status.txt" grep -qs "^vigil .* pid $pid" "$TMP/sig/status.txt"
kill -HUP "$pid"
for _ in $(seq 300); do grep -q 'SIGHUP: reopening' "$TMP/sig.err" && break; sleep 0.1; done
check "signals: SIGHUP reopens" grep -q 'SIGHUP: reopening log files' "$TMP/sig.err"
kill -TERM "$pid"
wait "$pid"
check_eq "signals: SIGTERM, exit 0" 0 $?
check "signals: the exit line" grep -q 'stopped: .* GPU samples' "$TMP/sig.err"
check "signals: events.log STOP" grep -q 'type=STOP' "$TMP/sig/events.log"
check "signals: the hung call left behind, said" grep -q 'still hung at exit' "$TMP/sig.err"
n=$(rows "$(ls "$TMP/sig"/gpu0-*.csv | head -1)")
check "signals: gpu0 sampled after the move ($n rows)" test "$n" -ge 50

# --- two hangs: the second abandons a loop thread the first one started ---------------
# That thread was the guard's; it hands its job over and ends on its own (detached).
{
	two_gpus 'at 1 step 10 stall 3000'
	echo 'at 1 step 40 stall 3000'
} >"$TMP/twice.scen"
VIGIL_NVML_SCENARIO="$TMP/twice.scen" timeout 120 "$VIGIL" --nvml "$NVML_SIM" --root / \
	--gpu-interval 0.01 --interval 0.05 --duration 12 --log-dir "$TMP/twice" --quiet \
	2>"$TMP/twice.err"
check_eq "twice: exits 0" 0 $?
t1=$(ls "$TMP/twice"/gpu1-*.csv 2>/dev/null | head -1)
check "twice: the guard took two calls" grep -q 'NVML: 2 call(s) ran past the guard' "$TMP/twice.err"
check_eq "twice: two failure streaks, each recovered" 2 \
	"$(grep -c 'gpu1: GPU RECOVERED after' "$TMP/twice.err")"
n=$(rows "$(ls "$TMP/twice"/gpu0-*.csv | head -1)")
check "twice: gpu0 kept sampling ($n rows)" test "$n" -ge 300
check_eq "twice: gpu0 never failed" 0 "$(grep -c NVML_FAILED "$(ls "$TMP/twice"/gpu0-*.csv | head -1)")"
check "twice: nothing abandoned at exit" bash -c "! grep -q 'still hung at exit' '$TMP/twice.err'"
