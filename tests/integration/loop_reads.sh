#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a tick reads, counted with strace on the loop thread: the kernel log only when it
# has lines (the loop waits on it with epoll, util/fdwait.h; a host tick after a wait
# that found it quiet reads nothing, collect/kmsg.h kmsg_drain_pending), and
# /proc/meminfo once a host tick, the sync round taking the host sample's Dirty and
# Writeback (daemon/daemon.c note_unwritten) instead of a second read. The root's
# /dev/kmsg is a FIFO (collect/kmsg.h: whole records per write); the host ticks 5 times
# a second and one simulated GPU makes the logs two files, so the round may syncfs and
# looks at meminfo.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "loop_reads" "$SCEN"
need_tool loop_reads strace
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
rm -f "$ROOT/dev/kmsg"
mkdir -p "$ROOT/dev"
mkfifo "$ROOT/dev/kmsg"
EV="$TMP/run/events.log"
VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" --root "$ROOT" \
	--gpu-interval 0.5 --interval 0.2 --duration 60 --log-dir "$TMP/run" --quiet 2>"$TMP/err" &
PID=$!
for _ in $(seq 100); do grep -qs 'type=START' "$EV" && break; sleep 0.1; done
sleep 1
# The loop thread only (not -f: the NVML listener and the guard have their own reads).
timeout -k 3 -s INT 3 strace -y -e trace=read,pread64,epoll_pwait2,ppoll \
	-o "$TMP/trace" -p "$PID" 2>/dev/null
kmsg_reads=$(grep -Ec '^read\([0-9]+<[^>]*/dev/kmsg>' "$TMP/trace")
meminfo=$(grep -Ec '^pread64\([0-9]+<[^>]*/proc/meminfo>, "[^"]' "$TMP/trace")
stat_reads=$(grep -Ec '^pread64\([0-9]+<[^>]*/proc/stat>, "[^"]' "$TMP/trace")
waits=$(grep -Ec '^epoll_pwait2\(' "$TMP/trace")
check "the loop waits with epoll_pwait2: $waits waits in 3 s" test "$waits" -ge 10
check_eq "a quiet kernel log is never read by a host tick" 0 "$kmsg_reads"
check "host ticks happened: $stat_reads reads of /proc/stat" test "$stat_reads" -ge 10
check_eq "/proc/meminfo read once a host tick, the sync round's included" \
	"$stat_reads" "$meminfo"
# A line between ticks still comes in when it is written, and is read once.
timeout -k 3 -s INT 2 strace -y -e trace=read -o "$TMP/trace2" -p "$PID" 2>/dev/null &
ST=$!
sleep 0.5
printf '3,500,4000000500,-;NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n' \
	>"$ROOT/dev/kmsg"
wait "$ST"
check "the line is in events.log" grep -q 'type=KERNEL_GPU kind=init_failed' "$EV"
check "the kernel log read when it had a line" grep -Eq '^read\([0-9]+<[^>]*/dev/kmsg>, "3,500' \
	"$TMP/trace2"
kill -TERM "$PID"
wait "$PID"
check_eq "stops cleanly" 0 $?
