#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The slow GPU fields (--gpu-slow-interval): read at the first sample and then on their
# own cadence, not every sample; every row and /metrics carry the last values read; a
# field whose read fails is missing, not 0; the option is validated (command line and
# configuration file). Scenario gpu-slow-fields on the simulated NVML.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_slow_fields"

# -- the option
for bad in 0 0.01 7200 abc -1; do
	"$VIGIL" --gpu none --no-log --count 1 --gpu-slow-interval "$bad" >/dev/null 2>"$TMP/opt.err"
	check_eq "option: --gpu-slow-interval $bad refused (exit 2)" 2 $?
	check "option: ... and the message names it" grep -q "gpu-slow-interval" "$TMP/opt.err"
done
for bad in 0 0.0001 7200 abc; do
	"$VIGIL" --gpu none --no-log --count 1 --gpu-mid-interval "$bad" >/dev/null 2>"$TMP/opt.err"
	check_eq "option: --gpu-mid-interval $bad refused (exit 2)" 2 $?
	check "option: ... and the message names it" grep -q "gpu-mid-interval" "$TMP/opt.err"
done
printf '[vigil]\ngpu-slow-interval = 0.05\n' >"$TMP/bad.conf"
"$VIGIL" --config "$TMP/bad.conf" --gpu none --no-log --count 1 >/dev/null 2>"$TMP/conf.err"
check_eq "option: a bad gpu-slow-interval in the configuration file is refused" 2 $?
check "option: ... and the message names it" grep -q "gpu-slow-interval" "$TMP/conf.err"
printf '[vigil]\ngpu-slow-interval = 2\n' >"$TMP/good.conf"
"$VIGIL" --config "$TMP/good.conf" --gpu none --no-log --count 1 --quiet --root "$FIXTURES/x86-server" \
	>/dev/null 2>"$TMP/good.err"
check_eq "option: gpu-slow-interval = 2 in the configuration file is taken" 0 $?

# -- the cadence: 100 ms samples, slow fields every second, until /metrics shows the
# change of step 5 and at least 25 rows were written. run LABEL LIBRARY
run() {
	local label=$1 lib=$2 port m="" csv="" pid
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$TMP/$label"
	VIGIL_NVML_SIM_LOG="$TMP/$label/calls" VIGIL_NVML_SCENARIO="$SCEN/gpu-slow-fields" "$VIGIL" \
		--nvml "$lib" --root / --gpu-interval 0.1 --gpu-slow-interval 1 --interval 1 \
		--log-dir "$TMP/$label/log" --quiet --listen "127.0.0.1:$port" 2>"$TMP/$label/err" &
	pid=$!
	for _ in $(seq 300); do
		sleep 0.2
		csv=$(ls "$TMP/$label"/log/gpu0-*.csv 2>/dev/null | head -1)
		[ -n "$csv" ] || continue
		m=$(curl -s "http://127.0.0.1:$port/metrics")
		[ "$(awk '$1 ~ /^vigil_gpu_pcie_replay_errors_total[{]/ { print $2 }' <<<"$m")" = 3 ] &&
			[ "$(($(wc -l <"$csv") - 1))" -ge 25 ] && break
	done
	kill -TERM "$pid"
	wait "$pid"
	check_eq "$label: vigil exits 0" 0 $?
	check "$label: the event listener stopped when interrupted" \
		bash -c "! grep -q 'did not end when interrupted' '$TMP/$label/err'"
	echo "$m" >"$TMP/$label/metrics"
	python3 - "$csv" "$TMP/$label/calls" <<'PY' >"$TMP/$label/verdict"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
calls = [l.strip() for l in open(sys.argv[2])]
def n(name):
    return sum(1 for c in calls if c == name + " 0")
print("rows", len(rows))
print("samples", n("nvmlDeviceGetTemperature"))
for fn in ("nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetEnforcedPowerLimit",
           "nvmlDeviceGetRemappedRows", "nvmlDeviceGetTotalEccErrors",
           "nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetFieldValues",
           "nvmlDeviceGetTotalEnergyConsumption"):
    print("calls", fn, n(fn))
slow = ("power_enforced_limit", "pcie_replay", "ecc_corrected", "remapped_correctable",
        "remapped_uncorrectable", "remap_pending", "remap_failure", "gpu_tlimit", "energy_j")
print("empty_slow_cells", sum(1 for r in rows for c in slow if r[c] == ""))
print("ecc_uncorrected_values", sorted({r["ecc_uncorrected"] for r in rows}))
for c in ("pcie_replay", "ecc_corrected", "remapped_correctable", "power_enforced_limit",
          "gpu_tlimit"):
    # one change only, old -> new: never a value that was not read
    seen = [rows[0][c]]
    for r in rows:
        if r[c] != seen[-1]:
            seen.append(r[c])
    print("sequence", c, "->".join(seen))
PY
}
val() { awk -v k="$2" -v f="${3:-}" '$1 == k && (f == "" || $2 == f) { print $NF }' "$TMP/$1/verdict"; }
# rare LABEL FUNCTION [PER_READ]: called at least twice, yet at most PER_READ times per 4
# samples (read every sample, it would be called PER_READ times per sample or more).
rare() {
	local c samples per=${3:-1}
	c=$(val "$1" calls "$2")
	samples=$(val "$1" samples)
	check "$1: $2 on the slow cadence ($c calls, $samples samples)" \
		test "${c:-0}" -ge 2 -a "$((${c:-0} * 4))" -le "$((${samples:-0} * per))"
}
rows_checks() {
	local label=$1
	check "$label: at least 25 rows (got $(val "$label" rows))" test "$(val "$label" rows)" -ge 25
	check_eq "$label: every slow cell filled in every row" 0 "$(val "$label" empty_slow_cells)"
	check_eq "$label: the failing uncorrected ECC total is missing in every row, never 0" "['']" \
		"$(val "$label" ecc_uncorrected_values)"
	check_eq "$label: pcie_replay 0, then 3 after a slow read" "0->3" \
		"$(val "$label" sequence pcie_replay)"
	check_eq "$label: ecc_corrected 0, then 2" "0->2" "$(val "$label" sequence ecc_corrected)"
	check_eq "$label: remapped_correctable 0, then 1" "0->1" \
		"$(val "$label" sequence remapped_correctable)"
	check_eq "$label: power_enforced_limit 600, then 450" "600->450" \
		"$(val "$label" sequence power_enforced_limit)"
	check_eq "$label: gpu_tlimit from the re-read GPU max threshold (90 -> 80 C at 45 C)" \
		"45->35" "$(val "$label" sequence gpu_tlimit)"
	check_eq "$label: /metrics has the replay counter read last" 3 \
		"$(awk '$1 ~ /^vigil_gpu_pcie_replay_errors_total[{]/ { print $2 }' "$TMP/$label/metrics")"
	check_eq "$label: /metrics has the enforced limit read last" 450 \
		"$(awk '$1 ~ /^vigil_gpu_enforced_power_limit_watts[{]/ { print $2 }' "$TMP/$label/metrics")"
}

# A driver with nvmlDeviceGetFieldValues: the counters come from one call of it; the
# uncorrected ECC total, which it does not give, from its own call.
run fields "$NVML_SIM"
rows_checks fields
# The energy counter too: on a real GSP driver its call costs more than all the others of
# a sample together (bench/RESULTS.md, "NVML on a real H200").
for fn in nvmlDeviceGetFieldValues nvmlDeviceGetEnforcedPowerLimit nvmlDeviceGetTotalEccErrors \
	nvmlDeviceGetTotalEnergyConsumption; do
	rare fields "$fn"
done
rare fields nvmlDeviceGetTemperatureThreshold 3
check_eq "fields: no replay counter call (the field gave it)" 0 \
	"$(val fields calls nvmlDeviceGetPcieReplayCounter)"
check_eq "fields: no remapped rows call (the fields gave them)" 0 \
	"$(val fields calls nvmlDeviceGetRemappedRows)"

# The old driver, without it: each by its own call.
run old "$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
rows_checks old
for fn in nvmlDeviceGetPcieReplayCounter nvmlDeviceGetEnforcedPowerLimit \
	nvmlDeviceGetRemappedRows nvmlDeviceGetTotalEnergyConsumption; do
	rare old "$fn"
done
rare old nvmlDeviceGetTotalEccErrors 2
rare old nvmlDeviceGetTemperatureThreshold 3
