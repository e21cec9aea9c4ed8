#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
# result FILE FIELD: the RESULT column (from byte 112: the widths of gpu-check.sh's
# table) of FIELD's row for GPU 0.
result() { awk -v f="$2" '$1 == "0" && index($0, "0    " f) == 1 { print substr($0, 112) }' "$1"; }

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
	"$(awk '$1 == "1" && index($0, "1    nvlink links active") == 1 { print substr($0, 112) }' "$TMP/nvlink.out")"

# The memory's depth and the PCIe maximum. The workstation GPU of healthy-1gpu gives
# the aggregate ECC counts and none of the rest: nvidia-smi's [N/A] beside no vigil
# series is "not supported", never a 0 nor a disagreement.
for f in ecc.errors.corrected.aggregate.total ecc.errors.uncorrected.aggregate.total; do
	check_eq "same: $f agrees" agree "$(result "$TMP/same.out" "$f")"
done
for f in pcie.link.gen.max pcie.link.width.max ecc.mode.current ecc.mode.pending \
	retired_pages.single_bit_ecc.count retired_pages.double_bit.count retired_pages.pending persistence_mode; do
	check_eq "same: $f not supported" "not supported on this GPU" "$(result "$TMP/same.out" "$f")"
done
check "same: retirement not supported, side by side" \
	grep -Eq '^0 +retired_pages.pending +not supported +\[N/A\] +not supported on this GPU$' "$TMP/same.out"

# A V100 with page retirement, ECC and persistence on (its step 0): every depth field
# agrees, value for value.
grep -v '^at ' "$TOP/tests/nvml-sim/scenarios/ecc-retirement-v100" >"$SCEN"
check_run v100
check_eq "v100: exit status 0" 0 "$RC"
for f in pcie.link.gen.max pcie.link.width.max ecc.mode.current ecc.mode.pending \
	ecc.errors.corrected.aggregate.total ecc.errors.uncorrected.aggregate.total \
	retired_pages.single_bit_ecc.count retired_pages.double_bit.count retired_pages.pending persistence_mode; do
	check_eq "v100: $f agrees" agree "$(result "$TMP/v100.out" "$f")"
done
check "v100: the pages side by side" grep -Eq '^0 +retired_pages.single_bit_ecc.count +2 +2 +exact +agree$' "$TMP/v100.out"
check "v100: the aggregate count side by side" \
	grep -Eq '^0 +ecc.errors.corrected.aggregate.total +1187 +1187 +exact +agree$' "$TMP/v100.out"
check "v100: ECC mode as nvidia-smi words it" grep -Eq '^0 +ecc.mode.current +1 +Enabled +exact +agree$' "$TMP/v100.out"
check "v100: no retirement pending" grep -Eq '^0 +retired_pages.pending +0 +No +exact +agree$' "$TMP/v100.out"

# The stand-in lies about each depth field: each disagrees, a counter lower than vigil's
# too (vigil never reads one ahead of the GPU); a higher one rose between the reads.
check_run v100lies SMI_LIE="pcie.link.gen.max=4 pcie.link.width.max=8 ecc.mode.current=Disabled ecc.mode.pending=Disabled ecc.errors.corrected.aggregate.total=1000 ecc.errors.uncorrected.aggregate.total=0 retired_pages.single_bit_ecc.count=1 retired_pages.double_bit.count=1 retired_pages.pending=Yes persistence_mode=[N/A]"
check_eq "v100 lies: exit status 1" 1 "$RC"
for f in pcie.link.gen.max pcie.link.width.max ecc.mode.current ecc.mode.pending \
	ecc.errors.corrected.aggregate.total ecc.errors.uncorrected.aggregate.total \
	retired_pages.single_bit_ecc.count retired_pages.pending; do
	check_eq "v100 lies: $f disagrees" disagree "$(result "$TMP/v100lies.out" "$f")"
done
check_eq "v100 lies: persistence_mode [N/A] beside vigil's 1" "disagree (nvidia-smi has none)" \
	"$(result "$TMP/v100lies.out" persistence_mode)"
check_eq "v100 lies: a page more on nvidia-smi's later read" "agree (rose between the reads)" \
	"$(result "$TMP/v100lies.out" retired_pages.double_bit.count)"
check "v100 lies: nine disagree" grep -q '^[0-9]* agree, 9 disagree$' "$TMP/v100lies.out"

# A driver that does not know one depth field fails only that query: the rest is
# compared, the depth rows are "not asked", and the run still agrees.
check_run reject SMI_REJECT=retired_pages.pending
check_eq "reject: exit status 0" 0 "$RC"
check "reject: the depth not asked, with nvidia-smi's reason" grep -Eq \
	'^0 +memory depth and PCIe maximum .* not asked \(nvidia-smi rejected the query: Field "retired_pages.pending" is not a valid field to query.\)$' \
	"$TMP/reject.out"
check_eq "reject: the rest still compared" agree "$(result "$TMP/reject.out" "temperature.gpu (C)")"

bash "$TOP/scripts/gpu-check.sh" --smi "$TMP/no-such-smi" --vigil "$VIGIL" >/dev/null 2>"$TMP/nosmi.err"
check_eq "no nvidia-smi: exit status 2" 2 $?
