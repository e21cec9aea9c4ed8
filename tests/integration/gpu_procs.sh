#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The processes on a GPU, end to end on the simulated NVML (scenario gpu-procs): the
# list at start, on the --gpu-proc-interval cadence, after a recovery and after an Xid,
# with names and command lines from /proc under --root; events.log, the crash snapshot
# of a lost GPU (the last list taken before it stopped answering), /metrics, the
# dashboard and the live view; and a driver without the process calls.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios/gpu-procs"
need_nvml_sim "gpu_procs" "$SCEN"
BASE='gpu="0",uuid="GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a1"'

# A root whose /proc has the training job and the display server; 5555 and 7777 are
# not in it (another namespace, or gone).
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
mkdir -p "$ROOT/proc/4242" "$ROOT/proc/1234"
echo python3 >"$ROOT/proc/4242/comm"
printf 'python3\0train.py\0--config\0big.yaml\0' >"$ROOT/proc/4242/cmdline"
echo Xorg >"$ROOT/proc/1234/comm"
printf '/usr/lib/xorg/Xorg\0:0\0-nolisten\0tcp\0' >"$ROOT/proc/1234/cmdline"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/lspci"
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"

# start NAME NVML [ARGS...]: vigil on the gpu-procs scenario in the background (GPU at
# 10 ms), into $TMP/NAME, /metrics on $PORT; its pid in $PID.
start() {
	local name=$1 lib=$2
	shift 2
	PORT=$(free_port)
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN" "$VIGIL" --nvml "$lib" --root "$ROOT" \
		--gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/$name" --listen "127.0.0.1:$PORT" \
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PID=$!
}
stop() {
	kill -TERM "$PID"
	wait "$PID"
	check_eq "exit status 0 after SIGTERM (pid $PID)" 0 $?
}
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
# lacks PATTERN TEXT: true when no line of TEXT matches.
lacks() { ! grep -q "$1" <<<"$2"; }
section() { awk -v t="=== $2 ===" '$0 == t { on = 1; next } /^=== .* ===$/ { on = 0 } on' "$1"; }

# --- a slow cadence (1 h): lists at start, at the recovery and after the Xid -----
start slow "$NVML_SIM" --quiet --gpu-proc-interval 3600
ev="$TMP/slow/events.log"
wait_for 60 grep -qs 'type=GPU_PROCESSES gpu=0 reason=event' "$ev"
check "slow: a list after the Xid" test $? -eq 0
m=$(curl -s "http://127.0.0.1:$PORT/metrics")
dash=$(curl -s "http://127.0.0.1:$PORT/")
wait_for 60 bash -c "ls '$TMP'/slow/crashes/*-followup-10s.log >/dev/null 2>&1"
check "slow: +10 s follow-up written" test $? -eq 0
stop
check "slow: list at start, names from /proc" grep -q 'type=GPU_PROCESSES gpu=0 reason=start compute=1 graphics=1 pids=4242:python3,1234:Xorg$' "$ev"
check "slow: list when the GPU answers again" grep -q 'type=GPU_PROCESSES gpu=0 reason=recovered compute=1 graphics=1 pids=4242:python3,1234:Xorg$' "$ev"
check "slow: the Xid's list has the job that started before it" grep -q 'type=GPU_PROCESSES gpu=0 reason=event compute=2 graphics=1 pids=4242:python3,7777:?,1234:Xorg$' "$ev"
check "slow: no list on the cadence" bash -c "! grep -q 'reason=interval' '$ev'"
check "slow: the Xid line comes before its list" bash -c "grep -n 'event=Xid(13)\|reason=event' '$ev' | head -1 | grep -q 'Xid(13)'"
check_eq "slow: vigil_gpu_processes compute" 2 "$(metric "$m" "vigil_gpu_processes{$BASE,type=\"compute\"}")"
check_eq "slow: vigil_gpu_processes graphics" 1 "$(metric "$m" "vigil_gpu_processes{$BASE,type=\"graphics\"}")"
check "slow: /metrics has no per-pid series" lacks 'pid=' "$m"
check "slow: dashboard process table" grep -q '<table class="procs">' <<<"$dash"
check "slow: dashboard command line" grep -q '<td>python3 train.py --config big.yaml</td>' <<<"$dash"
check "slow: dashboard counts" grep -q '<p>Processes: 2 compute, 1 graphics (listed ' <<<"$dash"

# The crash snapshot of the loss at step 50: the list taken at start, the last one
# before the GPU stopped answering (the cadence is 10 s).
crash=$(ls "$TMP"/slow/crashes/crash-*.log | grep -v -- '-followup-\|-programs' | head -1)
procs=$(section "$crash" "GPU processes")
check "crash: last list, when and why" grep -Eq '^Last list: [0-9T:.+-]+ \([0-9.]+ s before this snapshot, start\); compute 1, graphics 1$' <<<"$procs"
check "crash: the training job with its command line" grep -Eq '^ +4242 compute +python3 +8192 MiB +python3 train.py --config big.yaml$' <<<"$procs"
check "crash: the display server" grep -Eq '^ +1234 graphics +Xorg +256 MiB +/usr/lib/xorg/Xorg :0 -nolisten tcp$' <<<"$procs"

# The +10 s follow-up: a list taken after the loss (at the recovery, or the Xid's).
follow=$(ls "$TMP"/slow/crashes/*-followup-10s.log | head -1)
procs=$(section "$follow" "GPU processes")
check "follow-up: a list taken after the crash" grep -Eq '^Last list: .* s before this snapshot, (recovered|event)\); compute [12], graphics 1$' <<<"$procs"
check "follow-up: the training job" grep -Eq '^ +4242 compute +python3 ' <<<"$procs"

# --- a fast cadence: the short job (steps 30-44) is seen; the live view shows lists ----
start fast "$NVML_SIM" --gpu-proc-interval 0.1 --live
ev="$TMP/fast/events.log"
wait_for 60 grep -qs 'reason=recovered' "$ev"
check "fast: recovered" test $? -eq 0
sleep 1.2 # at least one host line of the live view after it
stop
check "fast: the short job on the cadence, not in /proc" grep -q 'type=GPU_PROCESSES gpu=0 reason=interval compute=2 graphics=1 pids=4242:python3,5555:?,1234:Xorg$' "$ev"
check "fast: live view process line" grep -q '^         procs: 1 compute, 1 graphics: 4242 python3 8192MiB, 1234 Xorg 256MiB$' "$TMP/fast.out"

# --- a driver without the process calls: no list, no series, no error ----------------
OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
if nm -D "$OLD" | grep -q RunningProcesses; then
	not_ok "old driver exports the process calls"
else
	start old "$OLD" --quiet
	# Well past the first sample (where a list would be taken): 20 rows written.
	wait_for 30 bash -c "[ \$(cat '$TMP'/old/gpu0-*.csv 2>/dev/null | wc -l) -gt 20 ]"
	check "old: samples" test $? -eq 0
	m=$(curl -s "http://127.0.0.1:$PORT/metrics")
	stop
	check "old: vigil_gpu_up" grep -q "^vigil_gpu_up{$BASE} " <<<"$m"
	check "old: no process series" lacks '^vigil_gpu_processes{' "$m"
	check "old: no list logged" bash -c "! grep -q 'type=GPU_PROCESSES' '$TMP/old/events.log'"
fi
