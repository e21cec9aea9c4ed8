#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVML events and GPU snapshots end to end, on the simulated NVML: events.log lines with
# the Xid catalog's meaning, crash snapshots (sections, the flight recorder, follow-ups,
# the programs file), cooldowns, the counters on /metrics, an Xid flood counted event by
# event, fan-spike snapshots, `vigil snapshot`, the listener's restart after a failed
# wait, and the old driver's nvmlEventSetWait.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
NVML_OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
need_nvml_sim "gpu_events" "$SCEN"
BASE='gpu="0",uuid="GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a1"'

# A root with a kernel log, PCIe state, modules, memory and load for the snapshots.
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$FIXTURES/pcie/healthy/." "$FIXTURES/kmsg/." "$ROOT/"
printf 'nvidia_uvm 1794048 0 - Live 0x0000000000000000 (POE)\nnvidia 60493824 1 nvidia_uvm, Live 0x0000000000000000 (POE)\next4 1052672 1 - Live 0x0000000000000000\n' >"$ROOT/proc/modules"
# Programs the snapshot runs, found on PATH: they say how they were called.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "fake lspci $*"\n' >"$TMP/bin/lspci"
printf '#!/bin/sh\necho "fake nvidia-smi: No devices were found"\nexit 6\n' >"$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"

# start NAME SCENARIO [ARGS...]: vigil in the background (GPU at 10 ms, host at 50 ms)
# into $TMP/NAME with /metrics on $PORT; its pid in $PID.
start() {
	local name=$1 scenario=$2
	shift 2
	PORT=$(free_port)
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$scenario" "$VIGIL" --nvml "${NVML:-$NVML_SIM}" \
		--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/$name" --quiet \
		--listen "127.0.0.1:$PORT" "$@" 2>"$TMP/$name.err" &
	PID=$!
}
# stop: SIGTERM, and check the exit status (a sanitizer's report exits non-zero).
stop() {
	kill -TERM "$PID"
	wait "$PID"
	check_eq "exit status 0 after SIGTERM (pid $PID)" 0 $?
}
metrics() { curl -s "http://127.0.0.1:$PORT/metrics"; }
# wait_for SECONDS COMMAND...: poll every 0.1 s until the command succeeds.
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
# metric TEXT NAME_AND_LABELS: the value of one series ("" when absent).
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
# crash_files DIR: the crash snapshots proper (not follow-ups, not program output).
crash_files() { ls "$1"/crashes/crash-*.log 2>/dev/null | grep -v -- '-followup-\|-programs' ; }
# section FILE TITLE: the body of one "=== TITLE ===" section.
section() { awk -v t="=== $2 ===" '$0 == t { on = 1; next } /^=== .* ===$/ { on = 0 } on' "$1"; }

# --- Xid 79, the GPU lost, back after 4 samples ------------------------------------
sed 's/step 60/step 34/' "$SCEN/xid-79-lost-recovered" >"$TMP/xid79.scen"
start xid79 "$TMP/xid79.scen"
wait_for 60 bash -c "ls '$TMP'/xid79/crashes/*-followup-10s.log >/dev/null 2>&1"
check "xid79: +10 s follow-up written" test $? -eq 0
m=$(metrics)
stop
ev="$TMP/xid79/events.log"
check "xid79: Xid line with meaning and action" grep -q 'type=NVML_EVENT gpu=0 event=Xid(79) mask=0x0008 data=79 xid=79 class=reboot meaning="GPU has fallen off the bus" action="reboot the machine; if it repeats, check the PCIe slot and riser, the power supply and cooling"' "$ev"
check "xid79: unavailable event" grep -q 'type=NVML_EVENT gpu=0 event=GpuUnavailable mask=0x4000' "$ev"
check "xid79: recovered" grep -q 'type=GPU_RECOVERED gpu=0 failures=' "$ev"
crash=$(crash_files "$TMP/xid79")
check_eq "xid79: one crash snapshot" 1 "$(grep -c . <<<"$crash")"
check "xid79: events.log names it" grep -q "type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/$(basename "$crash") reason=\"NVML_FAILED: GPU is lost\"" "$ev"
check "xid79: the Xid after it held back" grep -q 'type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash number=2 cooldown=60s' "$ev"
check "xid79: the held-back Xid named in the snapshot" grep -q '^Xid 79: GPU has fallen off the bus. Action: reboot the machine' "$(crash_files "$TMP/xid79")"
check_eq "xid79: header" "=== GPU CRASH DETECTED ===
GPU: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (00000000:01:00.0)
Error: NVML_FAILED: GPU is lost
Event #: 1" "$(grep -E '^(===.*DETECTED|GPU:|Error:|Event #:)' "$crash")"
check "xid79: header time and uptime" grep -Eq '^Uptime: [0-9]+s, 29 samples$' "$crash"
want="Flight recorder (last 5 minutes, every sample)
GPU processes
NVLink and fabric
dmesg (nvidia/gpu errors)
dmesg (last 200 lines)
PCIe AER errors
PCIe state (sysfs)
NVIDIA kernel modules
System memory
System load
Programs
Xid after this snapshot"
check_eq "xid79: sections in order" "$want" "$(sed -n 's/^=== \(.*\) ===$/\1/p' "$crash" | grep -v DETECTED)"
ring=$(section "$crash" "Flight recorder (last 5 minutes, every sample)")
check "xid79: ring header" grep -q '^timestamp,gpu_temp,gpu_tlimit,power_instant,' <<<"$ring"
check_eq "xid79: ring holds every sample up to the failure" 30 "$(grep -c '^20' <<<"$ring")"
check "xid79: ring row before the failure" grep -Eq '^[0-9/]+ [0-9:.]+,72,18,420\.00,600,0,' <<<"$ring"
check "xid79: ring ends with the failure" grep -q ',NVML_FAILED:GPU is lost$' <<<"$(tail -1 <<<"$ring")"
check "xid79: kernel log Xid line" grep -q 'NVRM: Xid (PCI:0000:01:00): 62' <<<"$(section "$crash" 'dmesg (nvidia/gpu errors)')"
check "xid79: PCIe state of the GPU" grep -q '0000:01:00.0' <<<"$(section "$crash" 'PCIe state (sysfs)')"
check_eq "xid79: NVIDIA modules only" "nvidia_uvm nvidia" "$(section "$crash" 'NVIDIA kernel modules' | awk 'NF { print $1 }' | paste -sd' ')"
check "xid79: memory" grep -q '^MemTotal:' <<<"$(section "$crash" 'System memory')"
check "xid79: load" test "$(section "$crash" 'System load' | grep -c .)" -eq 2
prog="${crash%.log}-programs.log"
check "xid79: programs file" grep -qx "fake lspci -vvs 0000:01:00.0" "$prog"
check "xid79: nvidia-smi output" grep -qx "fake nvidia-smi: No devices were found" "$prog"
fu=$(ls "$TMP"/xid79/crashes/*-followup-10s.log)
check_eq "xid79: follow-up named after the crash" "$(basename "${crash%.log}")-followup-10s.log" "$(basename "$fu")"
check "xid79: follow-up header" grep -q "^Follow-up of: $(basename "${crash%.log}") (+10s)$" "$fu"
check "xid79: follow-up PCIe" grep -qx '=== PCIe state (sysfs) ===' "$fu"
check "xid79: follow-up in events.log" grep -q 'type=CRASH_FOLLOWUP gpu=0 delay=10s file=crashes/' "$ev"
check_eq "xid79: metrics Xid 79" 1 "$(metric "$m" "vigil_gpu_xid_errors_total{$BASE,xid=\"79\"}")"
check_eq "xid79: metrics unavailable events" 1 "$(metric "$m" "vigil_gpu_events_total{$BASE,type=\"gpu_unavailable\"}")"
check_eq "xid79: metrics snapshots (crash, +10 s)" 2 "$(metric "$m" vigil_snapshots_total)"
check_eq "xid79: metrics suppressed" 2 "$(metric "$m" vigil_snapshots_suppressed_total)"
check_eq "xid79: metrics nothing dropped" 0 "$(metric "$m" vigil_events_dropped_total)"
# The lost GPU fails the wait: the listener rebuilds its set and registers the GPU again.
check "xid79: listener restarted" grep -q 'event wait failed: GPU is lost; restarting the event listener in 1 s' "$TMP/xid79.err"
check "xid79: GPU registered again" test "$(grep -cE 'event listener (started|registered): gpu0 mask=0xc01f' "$TMP/xid79.err")" -ge 2
check "xid79: restart on /metrics" test "$(metric "$m" vigil_gpu_event_listener_restarts_total)" -ge 1
if command -v promtool >/dev/null; then
	check_eq "xid79: promtool finds nothing to say" "0 " "$(promtool check metrics <<<"$m" 2>&1; echo "$? ")"
fi

# --- an Xid flood: every event counted, one snapshot per cooldown -------------------
start flood "$SCEN/xid-flood"
total() {
	m=$(metrics)
	local xids dropped
	xids=$(awk -v p="vigil_gpu_xid_errors_total{$BASE," 'index($1, p) == 1 { s += $2 } END { print s + 0 }' <<<"$m")
	dropped=$(metric "$m" vigil_events_dropped_total)
	[ $((xids + ${dropped:-0})) -ge 354 ]
}
wait_for 30 total
check "flood: every Xid counted or reported dropped" test $? -eq 0
stop
dropped=$(metric "$m" vigil_events_dropped_total)
xids=$(awk -v p="vigil_gpu_xid_errors_total{$BASE," 'index($1, p) == 1 { s += $2 } END { print s + 0 }' <<<"$m")
check_eq "flood: Xids + dropped = 354 sent" 354 "$((xids + dropped))"
if [ "$dropped" = 0 ]; then
	for kv in 62=1 45=50 119=1 154=1 13=300 31=1; do
		check_eq "flood: Xid ${kv%=*} counted" "${kv#*=}" "$(metric "$m" "vigil_gpu_xid_errors_total{$BASE,xid=\"${kv%=*}\"}")"
	done
	check_eq "flood: recovery action counted" 1 "$(metric "$m" "vigil_gpu_events_total{$BASE,type=\"gpu_recovery_action\"}")"
	check_eq "flood: xid events counted" 354 "$(metric "$m" "vigil_gpu_events_total{$BASE,type=\"xid\"}")"
	check_eq "flood: one Xid line per event" 354 "$(grep -c 'type=NVML_EVENT gpu=0 event=Xid(' "$TMP/flood/events.log")"
	check_eq "flood: all but one snapshot held back" 354 "$(metric "$m" vigil_snapshots_suppressed_total)"
fi
check_eq "flood: one crash snapshot in the cooldown" 1 "$(crash_files "$TMP/flood" | grep -c .)"
check "flood: its reason is the first Xid" grep -q 'type=CRASH_SNAPSHOT gpu=0 number=1 .* reason="Event: Xid(62)"' "$TMP/flood/events.log"
check "flood: the Xid in the header" grep -qx 'Xid 62: internal micro-controller (PMU) halt. Action: reset the GPU (nvidia-smi -r) or reboot.' "$(crash_files "$TMP/flood")"
check_eq "flood: three suppressions logged" 3 "$(grep -c 'type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash' "$TMP/flood/events.log")"
check_eq "flood: three on stderr" 3 "$(grep -c 'snapshot suppressed by 60s cooldown' "$TMP/flood.err")"
check "flood: status counts the crashes" grep -q 'gpu0: Status: .* | 355 crash |' "$TMP/flood.err"

# --- a flood across GPUs: 600 Xids in one step on four GPUs --------------------------
{ cat "$SCEN/healthy-8gpu"; for g in 0 1 2 3; do echo "at $g step 10 xid 13 count=150"; done; } >"$TMP/flood4.scen"
start flood4 "$TMP/flood4.scen"
total4() {
	m=$(metrics)
	local xids dropped
	xids=$(awk '/^vigil_gpu_xid_errors_total\{/ { s += $2 } END { print s + 0 }' <<<"$m")
	dropped=$(metric "$m" vigil_events_dropped_total)
	[ $((xids + ${dropped:-0})) -ge 600 ]
}
wait_for 30 total4
check "flood x4: every Xid counted or reported dropped" test $? -eq 0
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID/status")
stop
xids=$(awk '/^vigil_gpu_xid_errors_total\{/ { s += $2 } END { print s + 0 }' <<<"$m")
dropped=$(metric "$m" vigil_events_dropped_total)
check_eq "flood x4: Xids + dropped = 600 sent" 600 "$((xids + dropped))"
for g in 0 1 2 3; do
	n=$(awk -v g="gpu=\"$g\"" 'index($0, "vigil_gpu_xid_errors_total{" g) == 1 { s += $2 } END { print s + 0 }' <<<"$m")
	check "flood x4: gpu$g's Xids counted ($n)" test "$n" -ge 1 -a "$n" -le 150
done
check_eq "flood x4: one crash snapshot per GPU in the cooldown" 4 "$(crash_files "$TMP/flood4" | grep -c .)"
check_eq "flood x4: nothing on the quiet GPUs" 0 "$(grep -c 'type=NVML_EVENT gpu=[4-7] ' "$TMP/flood4/events.log")"
if [ "${VIGIL_LABEL:-plain}" != asan ]; then
	check "flood x4: memory bounded (peak RSS ${hwm:-?} kB < 32 MB)" test "${hwm:-999999}" -lt 32768
fi

# --- the listener survives a failed wait ----------------------------------------------
{ cat "$SCEN/healthy-1gpu"; printf 'at 0 step 5 wait_error 999\nat 0 step 400 xid 43\n'; } >"$TMP/restart.scen"
start restart "$TMP/restart.scen"
wait_for 40 bash -c "grep -qs 'event=Xid(43)' '$TMP/restart/events.log'"
check "restart: an Xid after the failure still arrives" test $? -eq 0
m=$(metrics)
stop
check "restart: said why and when" grep -q 'event wait failed: Unknown Error; restarting the event listener in 1 s' "$TMP/restart.err"
check "restart: events.log" grep -q 'type=EVENT_LISTENER state=failed error="event wait failed: Unknown Error; restarting the event listener in 1 s"' "$TMP/restart/events.log"
check_eq "restart: counted" 1 "$(metric "$m" vigil_gpu_event_listener_restarts_total)"
check_eq "restart: started twice" 2 "$(grep -c 'event listener started: gpu0 mask=0xc01f' "$TMP/restart.err")"

# --- fan spikes: one snapshot per 10 s -------------------------------------------------
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN/fan-spike" "$VIGIL" --nvml "$NVML_SIM" --root "$ROOT" \
	--gpu-interval 0.01 --interval 0.05 --count 30 --log-dir "$TMP/spike" --quiet 2>"$TMP/spike.err"
check_eq "spike: exits 0" 0 $?
spikes=$(ls "$TMP"/spike/spikes/spike-*.log 2>/dev/null)
check_eq "spike: one snapshot for four flagged samples in 10 s" 1 "$(grep -c . <<<"$spikes")"
check "spike: header" grep -qx '=== FAN SPIKE DETECTED ===' "$spikes"
check "spike: event number" grep -qx 'Event #: 1' "$spikes"
cur=$(section "$spikes" 'Current state')
check "spike: current fan0" grep -qx ' fan0_speed_pct: 60' <<<"$cur"
check "spike: current flags" grep -qx ' flags: FAN_SPIKE' <<<"$cur"
check_eq "spike: last readings (header + 20 samples)" 21 "$(section "$spikes" 'Last 50 telemetry readings' | grep -c .)"
check_eq "spike: thresholds" " shutdown: 98C
 slowdown: 95C
 gpu_max: 90C" "$(section "$spikes" 'Thermal thresholds' | grep .)"
check_eq "spike: fan policies and targets" " fan[0]: policy=0 (automatic) target=30% speed=60%
 fan[1]: policy=0 (automatic) target=30% speed=60%" "$(section "$spikes" 'Fan control policies' | grep .)"
check "spike: events.log" grep -q "type=SPIKE_SNAPSHOT gpu=0 number=1 file=spikes/$(basename "$spikes")" "$TMP/spike/events.log"
check_eq "spike: the other three held back" 3 "$(grep -c 'type=SNAPSHOT_SUPPRESSED gpu=0 kind=spike' "$TMP/spike/events.log")"
check "spike: no crash snapshot" test ! -d "$TMP/spike/crashes"

# --- eight GPUs, one set: each event lands on its GPU, cooldowns are per GPU ---------
{ cat "$SCEN/healthy-8gpu"; printf 'at 3 step 10 xid 48\nat 6 step 12 xid 94\nat 6 step 12 event clock count=25\n'; } >"$TMP/eight.scen"
start eight "$TMP/eight.scen"
wait_for 30 bash -c "grep -qs 'gpu=6 event=Xid(94)' '$TMP/eight/events.log' && [ \$(ls '$TMP'/eight/crashes/crash-*.log 2>/dev/null | grep -vc programs) -ge 2 ]"
check "8 GPUs: both events arrived, two snapshots" test $? -eq 0
m=$(metrics)
stop
check "8 GPUs: one listener for all" test "$(grep -c 'event listener started: gpu0 mask=0xc01f, gpu1 mask=0xc01f, gpu2' "$TMP/eight.err")" -eq 1
check "8 GPUs: Xid 48 on gpu3" grep -q 'type=NVML_EVENT gpu=3 event=Xid(48) .*meaning="double-bit ECC error"' "$TMP/eight/events.log"
check_eq "8 GPUs: counted on gpu3 only" 1 "$(grep -c '^vigil_gpu_xid_errors_total{' <<<"$(grep 'xid="48"' <<<"$m")")"
check "8 GPUs: gpu3's series" grep -q '^vigil_gpu_xid_errors_total{gpu="3",.*xid="48"} 1$' <<<"$m"
check "8 GPUs: gpu3's snapshot names its GPU" grep -lq '^GPU: NVIDIA H100 80GB HBM3 (00000000:48:00.0)$' $(crash_files "$TMP/eight")
check_eq "8 GPUs: 25 clock events counted on gpu6" 25 "$(awk '/^vigil_gpu_events_total\{gpu="6",/ && /type="clock"/ { print $2 }' <<<"$m")"
check_eq "8 GPUs: 25 in one second are one burst line" 1 "$(grep -c 'type=NVML_EVENT gpu=6 event=ClockBurst count=10 window=1.0s' "$TMP/eight/events.log")"

# --- vigil snapshot [REASON] -------------------------------------------------------------
start req "$SCEN/healthy-1gpu"
wait_for 20 bash -c "grep -qs 'event listener started' '$TMP/req.err'"
"$VIGIL" snapshot --log-dir "$TMP/req" "disk check 1" >/dev/null 2>&1
check_eq "snapshot: command exits 0" 0 $?
wait_for 20 bash -c "grep -qs 'type=CRASH_SNAPSHOT' '$TMP/req/events.log'"
m=$(metrics)
stop
req=$(crash_files "$TMP/req")
check_eq "snapshot: one file" 1 "$(grep -c . <<<"$req")"
check "snapshot: the reason" grep -qx 'Error: Requested: disk check 1' "$req"
check "snapshot: the flight recorder" grep -q '^20[0-9/]* [0-9:.]*,45,45,85.00,600,8,' "$req"
check "snapshot: events.log" grep -q 'type=CRASH_SNAPSHOT gpu=0 number=0 file=crashes/.* reason="Requested: disk check 1"' "$TMP/req/events.log"
check "snapshot: no follow-ups for a request" bash -c "! ls '$TMP'/req/crashes/*followup* 2>/dev/null | grep -q ."

# --- the old driver's nvmlEventSetWait -----------------------------------------------------
if [ -f "$NVML_OLD" ]; then
	NVML="$NVML_OLD" start old "$SCEN/xid-flood"
	wait_for 30 bash -c "grep -qs 'event=Xid(31)' '$TMP/old/events.log'"
	check "old driver: events through nvmlEventSetWait" test $? -eq 0
	stop
fi

# --- no log directory: events still counted, nothing written -------------------------
PORT=$(free_port)
VIGIL_NVML_SCENARIO="$SCEN/xid-flood" "$VIGIL" --nvml "$NVML_SIM" --gpu-interval 0.01 --interval 0.05 \
	--no-log --quiet --listen "127.0.0.1:$PORT" 2>"$TMP/nolog.err" &
PID=$!
wait_for 30 bash -c "curl -s http://127.0.0.1:$PORT/metrics | grep -q 'xid=\"31\"} 1'"
check "--no-log: events counted" test $? -eq 0
stop
check "--no-log: says the snapshot was not written" grep -q 'crash snapshot not written (--no-log)' "$TMP/nolog.err"

# --- no sanitizer or leak report in any run --------------------------------------------
check "no sanitizer report" bash -c "! grep -l 'Sanitizer\|runtime error' '$TMP'/*.err"
