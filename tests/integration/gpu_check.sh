#!/usr/bin/env bash
# scripts/gpu-check.sh on the simulated NVML, beside a stand-in nvidia-smi
# (tests/nvml-sim/nvidia-smi) that prints what the scenario says in nvidia-smi's CSV:
# every field agrees and the exit status is 0; when the stand-in lies about a value or
# the processes, that field disagrees and the exit status is 1.
. "$(dirname "$0")/../lib.sh"

need_nvml_sim "gpu_check"
SCEN="$TMP/scen"
cat "$TOP/tests/nvml-sim/scenarios/healthy-1gpu" >"$SCEN"
printf 'proc 0 pid=4242 type=compute mem=8589934592\nproc 0 pid=4343 type=compute mem=na\nproc 0 pid=1234 type=graphics mem=268435456\n' >>"$SCEN"
export VIGIL_NVML_SCENARIO="$SCEN"
# check_run NAME [ENV=VALUE...]: gpu-check for 5 s into $TMP/NAME.out, status in $RC.
check_run() {
	local name=$1
	shift
	env "$@" bash "$TOP/scripts/gpu-check.sh" --duration 5 --vigil "$VIGIL" --nvml "$NVML_SIM" \
		--smi "$TOP/tests/nvml-sim/nvidia-smi" --root "$FIXTURES/x86-server" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
}
# result FILE FIELD: the RESULT column (from byte 106: the widths of gpu-check.sh's
# table) of FIELD's row for GPU 0.
result() { awk -v f="$2" '$1 == "0" && index($0, "0    " f) == 1 { print substr($0, 106) }' "$1"; }

check_run same
check_eq "same: exit status 0" 0 "$RC"
check "same: nothing disagrees" grep -q '^[0-9]* agree, 0 disagree$' "$TMP/same.out"
for f in "temperature.gpu (C)" "power.draw (W)" "power.limit (W)" "enforced.power.limit (W)" \
	"clocks.gr (MHz)" "clocks.mem (MHz)" "utilization.gpu (%)" "utilization.memory (%)" \
	"memory.total (MiB)" "pcie.link.gen.current" "pcie.link.width.current" "pstate" \
	"fan.speed (%, fan 0)" "clocks_event_reasons.active" "processes (compute pids)"; do
	check_eq "same: $f agrees" agree "$(result "$TMP/same.out" "$f")"
done
check "same: memory.used agrees" grep -Eq '^0 +memory.used \(MiB\) .* agree' "$TMP/same.out"
check "same: memory.reserved agrees or is not recorded" \
	grep -Eq '^0 +memory.reserved \(MiB\) .* (agree|not recorded \(no vram_reserved_mb column\))$' "$TMP/same.out"
check "same: the values side by side" grep -Eq '^0 +temperature.gpu \(C\) +45 +45 +\+-2 +agree$' "$TMP/same.out"
check "same: the pids side by side" grep -Eq '^0 +processes \(compute pids\) +4242,4343 +4242,4343 +same set +agree$' "$TMP/same.out"

check_run lies SMI_LIE="temperature.gpu=60 pstate=P2 clocks_event_reasons.active=0x0000000000000004"
check_eq "lies: exit status 1" 1 "$RC"
check_eq "lies: temperature disagrees" disagree "$(result "$TMP/lies.out" "temperature.gpu (C)")"
check_eq "lies: pstate disagrees" disagree "$(result "$TMP/lies.out" "pstate")"
check_eq "lies: reasons disagree" disagree "$(result "$TMP/lies.out" "clocks_event_reasons.active")"
check_eq "lies: power still agrees" agree "$(result "$TMP/lies.out" "power.draw (W)")"
check "lies: three disagree" grep -q '^[0-9]* agree, 3 disagree$' "$TMP/lies.out"

check_run pids SMI_LIE_PIDS="4242 9999"
check_eq "pids: exit status 1" 1 "$RC"
check "pids: the lists side by side" grep -Eq '^0 +processes \(compute pids\) +4242,4343 +4242,9999 +same set +disagree$' "$TMP/pids.out"

check_eq "same: a GPU without NVLink is recorded so, not 0" "agree (no NVLink)" \
	"$(result "$TMP/same.out" "nvlink links active")"
check_eq "same: ... nor a fabric" "agree (no fabric)" "$(result "$TMP/same.out" "fabric state")"

# A GPU with NVLink and a fabric: the links active and the probe's state agree (the
# scenario's values at step 0, which the stand-in prints: link 7's errors and link 5's
# fall left out).
grep -v '^at ' "$TOP/tests/nvml-sim/scenarios/nvlink-down" >"$SCEN"
check_run nvlink
check_eq "nvlink: links active agree" agree "$(result "$TMP/nvlink.out" "nvlink links active")"
check "nvlink: 18 active on both sides" grep -Eq '^0 +nvlink links active +18 +18 ' "$TMP/nvlink.out"
check_eq "nvlink: fabric state agrees" agree "$(result "$TMP/nvlink.out" "fabric state (1-3)")"
check "nvlink: the error counters recorded" grep -Eq '^0 +nvlink error counters \(sum\) +0 ' "$TMP/nvlink.out"
check_eq "nvlink: the PCIe GPU beside it has none" "agree (no NVLink)" \
	"$(awk '$1 == "1" && index($0, "1    nvlink links active") == 1 { print substr($0, 106) }' "$TMP/nvlink.out")"

bash "$TOP/scripts/gpu-check.sh" --smi "$TMP/no-such-smi" --vigil "$VIGIL" >/dev/null 2>"$TMP/nosmi.err"
check_eq "no nvidia-smi: exit status 2" 2 $?
