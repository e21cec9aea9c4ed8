#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kernel log is waited on with poll(2) beside the timers (daemon/daemon.c,
# wait_next): a line written between two host ticks is handled when it is written, not
# at the next tick. The root's /dev/kmsg is a FIFO here (collect/kmsg.h: each write
# holds whole records) and the host ticks once a minute, so none comes during the test:
# the driver's init failure must reach events.log (detect/kernel_gpu.c) while the host log still
# has no row. (An Xid line, unlike this one, waits a grace period for NVML's own event:
# detect/kernel_gpu.c.) Then the FIFO is quiet: the daemon's wake-ups stay those of its GPU clock.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "kmsg_poll" "$SCEN"
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$FIXTURES/pcie/healthy/." "$ROOT/"
rm -f "$ROOT/dev/kmsg"
mkdir -p "$ROOT/dev"
mkfifo "$ROOT/dev/kmsg"
EV="$TMP/run/events.log"
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$ROOT" --gpu-interval 0.5 --interval 60 --duration 50 --log-dir "$TMP/run" \
	--quiet 2>"$TMP/err" &
PID=$!
wait_for 10 grep -qs 'type=START' "$EV"
sleep 1
# One record per write, as the kernel's device returns them.
printf '3,500,4000000500,-;NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n' \
	>"$ROOT/dev/kmsg"
wait_for 20 grep -qs 'type=KERNEL_GPU kind=init_failed' "$EV"
rows=$(cat "$TMP"/run/host-*.csv 2>/dev/null | wc -l)
check "the line written between host ticks is in events.log" \
	grep -q 'type=KERNEL_GPU kind=init_failed gpu=0 pci=0000:01:00.0' "$EV"
check_eq "before any host tick: the host log has no row yet" 0 "$rows"
# Quiet log: wake-ups over 4 s are the GPU clock's (2 a second) and the kernel log's
# none; a FIFO polled at end-of-file would wake the loop without end.
w0=$(awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$PID/status")
sleep 4
w1=$(awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$PID/status")
check "a quiet kernel log costs no wake-up: $((w1 - w0)) loop wake-ups in 4 s (GPU clock: 8)" \
	test "$((w1 - w0))" -le 40
kill -TERM "$PID"
wait "$PID"
check_eq "stops cleanly" 0 $?
