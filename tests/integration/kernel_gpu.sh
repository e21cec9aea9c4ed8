#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU failures read live from the kernel log (detect/kernel_gpu.c) on the simulated NVML
# with a fixture /dev/kmsg: lines from before the start are not reported; lines appended
# while vigil runs give events.log lines, /metrics counters, findings and, for a GPU
# fallen off the bus without an Xid 79, what an Xid 79 gives (crash snapshot, Xid
# counter, GPU lost) once, even when the Xid 79 line follows. An Xid NVML delivered is
# not reported a second time; one it missed is. The lines are the drivers' formats
# (tests/unit/test_gpu_klog.c cites each).
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "kernel_gpu" "$SCEN"
UUID='gpu="0",uuid="GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a1"'
GPU="$UUID,pci=\"0000:01:00.0\""

# A root with PCIe state (the GPU 0000:01:00.0 behind the port 0000:00:01.0, as sysfs
# links it) and a kernel log that already holds a lost GPU, an SXid and AER errors:
# they happened before the start and are no new events.
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$FIXTURES/pcie/healthy/." "$FIXTURES/kmsg/." "$ROOT/"
cat >>"$ROOT/dev/kmsg" <<'KMSG'
3,100,3800000000,-;nvidia-nvswitch0: SXid (PCI:0000:c5:00.0): 28001, OSFP Thermal Warn Activated
3,101,3800000100,-;NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)
KMSG
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "fake lspci $*"\n' >"$TMP/bin/lspci"
printf '#!/bin/sh\necho "fake nvidia-smi"\n' >"$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
cp -a "$ROOT" "$TMP/root2"
# NVML delivers one Xid 13 (at the 20th GPU sample, 0.2 s in) and nothing else.
{ cat "$SCEN/healthy-1gpu"; echo 'at 0 step 20 xid 13'; } >"$TMP/xid13.scen"

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
metrics() { curl -s "http://127.0.0.1:$PORT/metrics"; }
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
EV="$TMP/run/events.log"
kline() { grep 'type=KERNEL_GPU' "$EV" 2>/dev/null; }
crashes() { ls "$TMP"/$1/crashes/crash-*.log 2>/dev/null | grep -v -- '-followup-\|-programs'; }
# append TEXT...: records with the next sequence numbers, as the kernel adds them.
SEQ=200
append() {
	local t
	for t in "$@"; do
		printf '3,%d,%d,-;%s\n' "$SEQ" "$((4000000000 + SEQ))" "$t" >>"$ROOT/dev/kmsg"
		SEQ=$((SEQ + 1))
	done
}
# start NAME SCENARIO: vigil in the background (GPU at 10 ms, host at 50 ms) on $ROOT
# into $TMP/NAME, /metrics on $PORT, its pid in $PID.
start() {
	PORT=$(free_port)
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$2" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/$1" \
		--listen "127.0.0.1:$PORT" >"$TMP/$1.out" 2>"$TMP/$1.err" &
	PID=$!
}

start run "$SCEN/healthy-1gpu"
wait_for 10 grep -qs 'type=GPU_PROCESSES' "$EV"
sleep 0.3 # several host ticks: the kernel log scanned
m=$(metrics)
check "before: nothing of the old lines reported" test -z "$(kline)"
check_eq "before: the GPU's kinds at 0" 0 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"fallen_off_bus\"}")"
check_eq "before: the old malformed line skipped and counted" 1 \
	"$(metric "$m" 'vigil_kernel_log_records_skipped_total{reason="malformed"}')"
check_eq "before: no snapshot" 0 "$(crashes run | wc -l)"

# --- the 570.x probe message, split over three records: a GPU lost, no Xid ----------
append 'NVRM: The NVIDIA GPU 0000:01:00.0' \
	'NVRM: (PCI ID: 10de:2bb1) installed in this system has' \
	'NVRM: fallen off the bus and is not responding to commands.'
wait_for 10 grep -qs 'kind=fallen_off_bus' "$EV"
check "fallen: one events.log line, as Xid 79" \
	grep -q 'type=KERNEL_GPU kind=fallen_off_bus gpu=0 pci=0000:01:00.0 xid=79 meaning="GPU has fallen off the bus" action="' "$EV"
wait_for 10 grep -qs 'type=CRASH_SNAPSHOT gpu=0' "$EV"
check "fallen: a crash snapshot, as an Xid 79 takes" grep -q 'type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/crash-.* reason="Kernel log: Xid(79) GPU has fallen off the bus"' "$EV"
crash=$(crashes run | head -1)
check "fallen: the snapshot names Xid 79" grep -q '^Xid 79: GPU has fallen off the bus' "$crash"
# The Xid 79 line of the same loss, after it: the same loss, not a second.
append "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
	'NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.'

# --- the other kinds --------------------------------------------------------------
append 'nvidia-nvswitch1: SXid (PCI:0000:c6:00.0): 20034, Fatal, Link 30 LTSSM Fault Up' \
	'nvidia-nvswitch2: SXid (PCI:0000:c7:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)' \
	'nvidia-nvswitch2: SXid (PCI:0000:c7:00.0): 11012, Non-fatal, Link 33 single-bit ECC error (First)' \
	'NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x22:0x56:667)' \
	'NVRM: GPU 0000:02:00.0: rm_init_adapter failed, device minor number 1' \
	'nvidia 0000:02:00.0: probe with driver nvidia failed with error -1' \
	'NVRM: Timeout after 45s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 9 (0x20801702 0x4).' \
	'nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)' \
	'pcieport 0000:00:01.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)' \
	'e1000e 0000:00:1f.6: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)' \
	"NVRM: Xid (PCI:0000:01:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"
echo 'a torn record without its header' >>"$ROOT/dev/kmsg"
# The Xids wait 3 s for NVML (which missed this one): the last line written.
wait_for 15 grep -qs 'kind=recovery_action' "$EV"
check "sxid: the NVSwitch's line, fatal, asking for a reset" grep -q 'type=KERNEL_GPU kind=sxid pci=0000:c6:00.0 sxid=20034 severity=critical meaning="fatal NVSwitch error (DL/PL link): LTSSM fault up; fatal to the NVSwitch port[^"]*" action="stop the jobs on the NVSwitch.s GPUs; reset all GPUs and NVSwitches' "$EV"
# The Fabric Manager guide's row decides what a code needs, whatever the driver's word:
# 12028 stalls the partition's traffic (critical, restart the workload); 11012 was corrected.
check "sxid 12028: critical though the driver says non-fatal, restart the workload" grep -q 'kind=sxid pci=0000:c7:00.0 sxid=12028 severity=critical meaning="non-fatal NVSwitch error (egress): egress nonposted PRIV error; [^"]*" action="restart the workload' "$EV"
check "sxid 11012: corrected, no action" grep -q 'kind=sxid pci=0000:c7:00.0 sxid=11012 meaning="non-fatal NVSwitch error (ingress): ingress single-bit ECC error; corrected by the NVSwitch, no impact" action="none"' "$EV"
check_eq "init failure: three lines, one event" 1 "$(kline | grep -c 'kind=init_failed pci=0000:02:00.0')"
check "gsp timeout: the driver's GPU number" grep -q 'kind=gsp_timeout driver_gpu=0 meaning=' "$EV"
check "aer: the GPU's own line" grep -q 'kind=aer_corrected gpu=0 pci=0000:01:00.0' "$EV"
check "aer: the GPU's upstream port is the GPU's link" grep -q 'kind=aer_fatal gpu=0 pci=0000:00:01.0' "$EV"
check "aer: another device's link is not counted" test -z "$(kline | grep '0000:00:1f.6')"
check "xid 154: the recovery action" grep -q 'kind=recovery_action gpu=0 pci=0000:01:00.0 xid=154 recovery_action=GPU_RESET meaning="the driver asks for a recovery action: GPU_RESET" action="stop the GPU' "$EV"
check_eq "lost once: one GPU-lost line" 1 "$(kline | grep -c 'xid=79')"
m=$(metrics)
check_eq "metrics: one loss over three lines, counted once" 1 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"fallen_off_bus\"}")"
check_eq "metrics: the loss's Xid 79 line is not a second" 0 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"xid\"}")"
check_eq "metrics: one Xid 79 counted, not two" 1 "$(metric "$m" "vigil_gpu_xid_errors_total{$UUID,xid=\"79\"}")"
check_eq "metrics: the recovery action" 1 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"recovery_action\"}")"
check_eq "metrics: the port's fatal AER on the GPU" 1 "$(metric "$m" "vigil_gpu_kernel_errors_total{$UUID,pci=\"0000:00:01.0\",kind=\"aer_fatal\"}")"
check_eq "metrics: the NVSwitch's SXid" 1 "$(metric "$m" 'vigil_gpu_kernel_errors_total{pci="0000:c6:00.0",kind="sxid"}')"
check_eq "metrics: init failures" 1 "$(metric "$m" 'vigil_gpu_kernel_errors_total{pci="0000:02:00.0",kind="init_failed"}')"
check_eq "metrics: gsp timeouts (no address)" 1 "$(metric "$m" 'vigil_gpu_kernel_errors_total{pci="unknown",kind="gsp_timeout"}')"
check_eq "metrics: the torn record skipped" 2 "$(metric "$m" 'vigil_kernel_log_records_skipped_total{reason="malformed"}')"
if command -v promtool >/dev/null; then
	check "metrics: promtool lint" promtool check metrics <<<"$m"
fi
# A flood of corrected errors: every line counted, ten a minute written.
for _ in $(seq 14); do
	append 'nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)'
done
append 'nvidia-nvswitch1: SXid (PCI:0000:c6:00.0): 20034, Fatal, Link 31 LTSSM Fault Up'
wait_for 10 test "$(kline | grep -c 'kind=sxid pci=0000:c6:00.0')" -eq 2
m=$(metrics)
check_eq "flood: every corrected error counted" 15 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"aer_corrected\"}")"
check_eq "flood: ten lines a minute written" 10 "$(kline | grep -c 'kind=aer_corrected gpu=0 pci=0000:01:00.0')"
kill -TERM "$PID"
wait "$PID"
check_eq "exit 0 after SIGTERM" 0 $?
out="$TMP/run.out"
check "summary: the GPU lost" grep -q '^    (critical) gpu0: GPU lost' "$out"
check "summary: Xid 79 with its meaning" grep -q '^    (critical) gpu0: Xid 79 (.*): GPU has fallen off the bus' "$out"
check "summary: the SXid" grep -q '0000:c6:00.0: kernel log sxid 20034' "$out"
check "summary: the init failure" grep -q '0000:02:00.0: kernel log init_failed' "$out"
# The simulator still answers for gpu0: nothing says it came back.
check "summary: the GPU lost is still lost (nothing answered again)" grep -q '^    (critical) gpu0: GPU lost.*still lost at the end' "$out"
check "gpu count: the lost GPU does not answer" grep -q 'type=GPU_COUNT state=missing answering=0 expected=1' "$EV"
check "gpu count: never back" test -z "$(grep 'type=GPU_COUNT state=back' "$EV")"

# --- an Xid NVML delivered is NVML's; one it missed is the kernel log's ---------------
ROOT="$TMP/root2"
EV="$TMP/run2/events.log"
SEQ=200
start run2 "$TMP/xid13.scen"
wait_for 10 grep -qs 'type=NVML_EVENT gpu=0 event=Xid' "$EV"
append 'NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, Graphics Exception: ESR 0x514730=0x201f0000' \
	'NVRM: Xid (PCI:0000:01:00): 31, pid=4242, name=python3, Ch 00000008, intr 00000000. MMU Fault'
wait_for 15 grep -qs 'kind=xid gpu=0 pci=0000:01:00.0 xid=31' "$EV"
check "xid 31: NVML missed it, reported" grep -q 'type=KERNEL_GPU kind=xid gpu=0 pci=0000:01:00.0 xid=31 meaning="' "$EV"
check "xid 13: NVML delivered it, not reported again" test -z "$(kline | grep 'xid=13')"
m=$(metrics)
check_eq "metrics: Xid 13 once (NVML's)" 1 "$(metric "$m" "vigil_gpu_xid_errors_total{$UUID,xid=\"13\"}")"
check_eq "metrics: Xid 31 once (the kernel log's)" 1 "$(metric "$m" "vigil_gpu_xid_errors_total{$UUID,xid=\"31\"}")"
check_eq "metrics: both Xid lines read" 2 "$(metric "$m" "vigil_gpu_kernel_errors_total{$GPU,kind=\"xid\"}")"
kill -TERM "$PID"
wait "$PID"
check_eq "run2: exit 0 after SIGTERM" 0 $?

# --- a storm, a flood over many devices, one failure's many lines ------------------
ROOT="$TMP/root3"
EV="$TMP/run3/events.log"
cp -a "$TMP/root2" "$ROOT"
SEQ=200
start run3 "$SCEN/healthy-1gpu"
wait_for 10 grep -qs 'type=GPU_PROCESSES' "$EV"
sleep 0.3
lost0=$(metric "$(metrics)" 'vigil_kernel_log_records_skipped_total{reason="overwritten"}')
# 20,000 Xid lines of a device NVML does not list, appended at once: far more than
# the ring keeps (512 records), every one read.
awk -v s="$SEQ" 'BEGIN { for (i = 0; i < 20000; i++) printf "3,%d,%d,-;NVRM: Xid (PCI:0000:0a:00): 43, pid=1, name=a, Ch 00000010\n", s + i, 5000000000 + s + i }' >>"$ROOT/dev/kmsg"
SEQ=$((SEQ + 20000))
# 40 NVSwitch-like devices, 100 SXids each: 4,000 lines for 40 device/kind pairs.
awk -v s="$SEQ" 'BEGIN { for (i = 0; i < 4000; i++) printf "3,%d,%d,-;nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 19084, Non-fatal, Link %02d AN1 Heartbeat Timeout\n", s + i, 6000000000 + s + i, i % 40, 16 + i % 40, i % 40 }' >>"$ROOT/dev/kmsg"
SEQ=$((SEQ + 4000))
# One GSP failure as 595.x prints it (kernel_gsp.c): one event.
append 'NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 1939412 heartbeat 1934101 heartbeatWithOffsetMs 1934101 diff 5311 timeout 5200' \
	'NVRM: _kgspClassifyGspTimeout: =============== GSP-RM unresponsive ==================' \
	'NVRM: _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************' \
	'NVRM: _kgspLogRpcTimeout: Note: Please also check logs above.' \
	'NVRM: Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 9 (0x20801702 0x4).' \
	'NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out'
# A GSP timeout the driver classifies as Xid 119 (kernel_gsp.c:2375-2386): its banner
# and heartbeat lines are the Xid's, not a GSP event of their own.
append 'NVRM: _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************' \
	'NVRM: _kgspLogRpcTimeout: Note: Please also check logs above.' \
	'NVRM: Xid (PCI:0000:0c:00): 119, pid=2211, name=python, Timeout after 6s of waiting for RPC response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 7745 (0x20801348 0x4).' \
	'NVRM: GPU3 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) sequence 7745 and data 0x0000000020801348 0x0000000000000004.'
# The root port's line for the GPU, then the GPU's own: one error, the GPU's.
append 'pcieport 0000:00:01.0: AER: Uncorrectable (Non-Fatal) error received from 0000:01:00.0' \
	'nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Requester ID)' \
	'nvidia 0000:01:00.0:   device [10de:2330] error status/mask=00004000/00000000'
# A device NVML does not list, that the nvidia driver holds: the port's line is not
# known to be a GPU's, the device's own line says so.
append 'pcieport 0000:60:03.1: AER: Uncorrected (Fatal) error received: 0000:64:00.0' \
	'nvidia 0000:64:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)'
# An init failure and the probe summary after it: one.
append 'NVRM: GPU 0000:03:00.0: RmInitAdapter failed! (0x62:0x0:1915)' \
	'NVRM: The NVIDIA probe routine failed for 1 device(s).'
# The driver says the GPU needs a reset (kernel_gsp.c:2477); the kernel gave up on it.
append 'NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:01:00 (printing 1 of every 30).  The GPU likely needs to be reset.' \
	"nvidia 0000:01:00.0: AER: can't recover (no error_detected callback)"
# A loss and a lesser Xid in the same tick: the snapshot keeps the loss's reason.
append "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
	'NVRM: Xid (PCI:0000:01:00): 3, pid=1, name=a, Ch 00000010'
wait_for 20 grep -qs 'kind=init_failed' "$EV"
wait_for 15 grep -qs 'type=CRASH_SNAPSHOT gpu=0' "$EV"
sleep 0.5
check "snapshot: the most severe reason of its tick" grep -q 'type=CRASH_SNAPSHOT gpu=0 number=1 .*reason="Kernel log: Xid(79) GPU has fallen off the bus"' "$EV"
check "gsp: the reset the driver asks for" grep -q 'kind=gsp_timeout gpu=0 pci=0000:01:00.0 severity=critical meaning="the GPU.s GSP firmware did not answer the driver in time or failed (no Xid 119/120 logged); the driver says the GPU needs a reset" action="stop the GPU.s work and reset it' "$EV"
check "aer: the kernel could not recover the GPU" grep -q 'kind=aer_fatal gpu=0 pci=0000:01:00.0 severity=critical meaning="the kernel could not recover the device from a PCIe error"' "$EV"
m=$(metrics)
check_eq "storm: every Xid line counted" 20000 "$(metric "$m" 'vigil_gpu_kernel_errors_total{pci="0000:0a:00.0",kind="xid"}')"
check_eq "storm: nothing skipped" "$lost0" "$(metric "$m" 'vigil_kernel_log_records_skipped_total{reason="overwritten"}')"
sx=$(awk '$1 ~ /^vigil_gpu_kernel_errors_total\{.*kind="sxid"/ { n += $2 } END { print n + 0 }' <<<"$m")
check_eq "flood: 4,000 SXids over 40 devices, every one counted" 4000 "$sx"
n=$(kline | grep -c 'kind=sxid')
check "flood: at most 10 lines a minute for each of 40 pairs, not $n" test "$n" -le 400
n=$(kline | grep -c 'kind=xid pci=0000:0a:00.0')
check "storm: its lines bounded too, not $n" test "$n" -le 10
check_eq "gsp: one failure, one event (and the reset asked for later)" 1 "$(kline | grep 'kind=gsp_timeout' | grep -vc 'severity=critical')"
check "gsp: the one of an Xid 119 is the Xid's" grep -q 'kind=xid pci=0000:0c:00.0 xid=119' "$EV"
check_eq "aer: the port's line and the GPU's: one event" 1 "$(kline | grep -c 'kind=aer_nonfatal')"
check "aer: the GPU it names, not the port" grep -q 'kind=aer_nonfatal gpu=0 pci=0000:01:00.0' "$EV"
check_eq "aer: an unlisted nvidia device, once" 1 "$(kline | grep -c 'kind=aer_fatal pci=0000:64:00.0')"
check_eq "init: the failure and the probe summary, one event" 1 "$(kline | grep -c 'kind=init_failed')"
kill -TERM "$PID"
wait "$PID"
check_eq "run3: exit 0 after SIGTERM" 0 $?
