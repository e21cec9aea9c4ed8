#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The expected GPU count end to end, on the simulated NVML (tests/nvml-sim):
#   - a first start with 2 GPUs keeps gpus=2 (and their PCI devices) in vigil.state,
#     says nothing;
#   - a restart where NVML counts 1 (a GPU fell off the bus in between): one
#     events.log line, the finding in the exit summary and `vigil status`, the two
#     gauges on /metrics; the state still remembers 2;
#   - expected-gpus in the config file overrides the remembered count (1: quiet; 3:
#     missing, from the key); a bad value is one line and exit status 2;
#   - a GPU lost at run time (Xid 79) and back: missing, then back;
#   - --gpu none checks nothing.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"
SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_count"

# Two GPUs: healthy-1gpu's GPU 0, and a second one like it on bus 0x41.
{
	cat "$SCEN/healthy-1gpu"
	echo 'gpu 1 uuid=GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a2 pci=00000000:41:00.0 fans=2'
	grep '^set 0 \|^at 0 ' "$SCEN/healthy-1gpu" | sed 's/^set 0 /set 1 /; s/^at 0 /at 1 /'
} >"$TMP/two.scen"

# run NAME SCENARIO LOG ARGS...: vigil in the foreground for 5 host samples into LOG,
# stdout (the exit summary) to $TMP/NAME.out, stderr to $TMP/NAME.err; status in $RC.
run() {
	local name=$1 scenario=$2 log=$3
	shift 3
	VIGIL_NVML_SCENARIO="$scenario" "$VIGIL" --nvml "$NVML_SIM" --root "$FIXTURES/x86-server" \
		--gpu-interval 0.01 --interval 0.05 --count 5 --log-dir "$log" "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
}
count_lines() { grep -c "$2" "$1" 2>/dev/null; }

# --- first start: 2 GPUs -----------------------------------------------------------
L="$TMP/log"
run first "$TMP/two.scen" "$L"
check_eq "first: exit 0" 0 "$RC"
check "first: vigil.state remembers 2 GPUs" grep -qx 'gpus=2' "$L/vigil.state"
check "first: and their PCI devices, as the kernel names them" \
	grep -qx 'gpu_bus=0000:01:00.0,0000:41:00.0' "$L/vigil.state"
check_eq "first: no GPU_COUNT line" 0 "$(count_lines "$L/events.log" 'type=GPU_COUNT')"
check "first: the summary has no GPUs missing" bash -c "! grep -q 'GPUs missing' '$TMP/first.out'"

# --- restart with 1: a GPU gone before the start ---------------------------------------
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" --root "$FIXTURES/x86-server" \
	--gpu-interval 0.01 --interval 0.05 --quiet --log-dir "$L" --listen "127.0.0.1:$PORT" \
	>"$TMP/second.out" 2>"$TMP/second.err" &
pid=$!
scraped() { curl -sf "http://127.0.0.1:$PORT/metrics" -o "$TMP/metrics" && grep -q '^vigil_gpus_answering ' "$TMP/metrics"; }
wait_until 20 scraped
"$VIGIL" status --log-dir "$L" >"$TMP/status.txt" 2>&1
kill "$pid"
wait "$pid"
check_eq "one gone: clean exit" 0 $?
check_eq "one gone: one events.log line" \
	"type=GPU_COUNT state=missing answering=1 expected=2 from=state" \
	"$(grep -o 'type=GPU_COUNT.*' "$L/events.log")"
check "one gone: the warning at start" grep -q 'GPUs: 1 of 2 expected answer (expected: state)' "$TMP/second.err"
check "one gone: /metrics expects 2" grep -qx 'vigil_gpus_expected 2' "$TMP/metrics"
check "one gone: /metrics has 1 answering" grep -qx 'vigil_gpus_answering 1' "$TMP/metrics"
check "one gone: /metrics types them" grep -qx '# TYPE vigil_gpus_answering gauge' "$TMP/metrics"
check "one gone: vigil status names it" \
	grep -q 'host: GPUs missing, still missing (.*): 1 of 2 expected GPUs answer' "$TMP/status.txt"
check "one gone: the state still remembers 2" grep -qx 'gpus=2' "$L/vigil.state"
check "one gone: the state has the GPU sampled" grep -qx 'gpu_bus=0000:01:00.0' "$L/vigil.state"

# --- the config key overrides the remembered count ---------------------------------------
printf 'expected-gpus = 1\n' >"$TMP/one.conf"
n=$(count_lines "$L/events.log" 'type=GPU_COUNT')
run keyed "$SCEN/healthy-1gpu" "$L" --config "$TMP/one.conf"
check_eq "expected-gpus = 1: exit 0" 0 "$RC"
check_eq "expected-gpus = 1: no new GPU_COUNT line" "$n" "$(count_lines "$L/events.log" 'type=GPU_COUNT')"
# The findings of this run (the health verdict above them keeps the last run's state
# until it is seen again or 120 s pass: the persisted verdict's own rule).
check "expected-gpus = 1: the summary has no GPUs missing" \
	bash -c "! sed -n '/What happened/,\$p' '$TMP/keyed.out' | grep -q 'GPUs missing'"
check "expected-gpus = 1: the remembered count is kept" grep -qx 'gpus=2' "$L/vigil.state"
printf '[vigil]\nexpected-gpus = 3\n' >"$TMP/three.conf"
run three "$TMP/two.scen" "$L" --config "$TMP/three.conf"
check "expected-gpus = 3: missing, from the key" \
	grep -q 'type=GPU_COUNT state=missing answering=2 expected=3 from=config' "$L/events.log"
check "expected-gpus = 3: the exit summary names it" \
	grep -q 'host: GPUs missing, still missing (.*): 2 of 3 expected GPUs answer (expected: expected-gpus)' "$TMP/three.out"
n=$(count_lines "$L/events.log" 'type=GPU_COUNT')
run cli "$SCEN/healthy-1gpu" "$L" --config "$TMP/three.conf" --expected-gpus 1
check_eq "--expected-gpus 1 wins over the file" "$n" "$(count_lines "$L/events.log" 'type=GPU_COUNT')"

# --- a bad value: one line, exit 2 ---------------------------------------------------------
for v in two -1 1025 ''; do
	"$VIGIL" --expected-gpus "$v" --count 1 --no-log >"$TMP/bad.out" 2>"$TMP/bad.err"
	check_eq "--expected-gpus '$v': exit 2" 2 $?
	check_eq "--expected-gpus '$v': one line" 1 "$(wc -l <"$TMP/bad.err")"
	check "--expected-gpus '$v': names the option" grep -q 'expected-gpus' "$TMP/bad.err"
done
printf 'expected-gpus = lots\n' >"$TMP/bad.conf"
"$VIGIL" --config "$TMP/bad.conf" --count 1 --no-log >"$TMP/bad.out" 2>"$TMP/bad.err"
check_eq "expected-gpus = lots: exit 2" 2 $?
check_eq "expected-gpus = lots: one line" 1 "$(wc -l <"$TMP/bad.err")"
check "expected-gpus = lots: names the key" grep -q 'expected-gpus' "$TMP/bad.err"

# --- lost at run time: Xid 79 at step 30, back at step 34 (the retries back off) ------------
sed 's/step 60/step 34/' "$SCEN/xid-79-lost-recovered" >"$TMP/xid79.scen"
run lost "$TMP/xid79.scen" "$TMP/lost" --count 1000000 --duration 3
check_eq "lost: exit 0" 0 "$RC"
check_eq "lost: missing, then back" \
	"type=GPU_COUNT state=missing answering=0 expected=1 from=first-start
type=GPU_COUNT state=back answering=1 expected=1 from=first-start" \
	"$(grep -o 'type=GPU_COUNT.*' "$TMP/lost/events.log")"
check "lost: the summary says all are back" grep -q 'host: GPUs missing for [0-9.]* s in all, all back' "$TMP/lost.out"

# --- --gpu none: nothing checked, the count kept -------------------------------------------------
n=$(count_lines "$L/events.log" 'type=GPU_COUNT')
run none "$SCEN/healthy-1gpu" "$L" --gpu none
check_eq "--gpu none: no new GPU_COUNT line" "$n" "$(count_lines "$L/events.log" 'type=GPU_COUNT')"
check "--gpu none: the remembered count is kept" grep -qx 'gpus=2' "$L/vigil.state"
