#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU memory's depth and the PCIe link's maximum on the simulated NVML: a V100-like
# GPU with a page retirement pending (scenario ecc-retirement-v100) and a GPU at x8 of
# x16 (pcie-x8-of-x16). /metrics carries each value the scenario sets, cell for cell,
# and no series of what the GPU does not support; events.log says each condition once;
# `vigil health` gives the state and the action. The same against the older driver,
# which lacks nvmlDeviceGetFieldValues: the values then come from their own calls.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_memory_depth"

# run LABEL SCENARIO LIBRARY STEPS: vigil at 100 ms until the GPU has taken STEPS
# samples; /metrics in $TMP/LABEL/metrics, /health in health.json, `vigil health`'s
# output and status in health.out and health.rc, the log directory $TMP/LABEL/log.
run() {
	local label=$1 scen=$2 lib=$3 steps=$4 port m="" pid
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$TMP/$label"
	VIGIL_NVML_SIM_LOG="$TMP/$label/calls" VIGIL_NVML_SCENARIO="$SCEN/$scen" "$VIGIL" \
		--nvml "$lib" --root / --gpu-interval 0.1 --gpu-slow-interval 0.5 --interval 1 \
		--log-dir "$TMP/$label/log" --quiet --listen "127.0.0.1:$port" 2>"$TMP/$label/err" &
	pid=$!
	for _ in $(seq 300); do
		sleep 0.2
		[ "$(grep -c '^nvmlDeviceGetTemperature 0' "$TMP/$label/calls" 2>/dev/null)" -ge "$steps" ] || continue
		sleep 0.6 # a slow sample after the last change
		m=$(curl -s "http://127.0.0.1:$port/metrics")
		curl -s "http://127.0.0.1:$port/health" >"$TMP/$label/health.json"
		"$VIGIL" health --log-dir "$TMP/$label/log" >"$TMP/$label/health.out" 2>/dev/null
		echo $? >"$TMP/$label/health.rc"
		break
	done
	kill -TERM "$pid"
	wait "$pid"
	check_eq "$label: vigil exits 0" 0 $?
	echo "$m" >"$TMP/$label/metrics"
}

# val LABEL SERIES-PREFIX: the value of the one series whose line starts so.
val() {
	awk -v p="$2" 'index($0, p) == 1 { print $2 }' "$TMP/$1/metrics"
}

# component_is FILE COMPONENT STATE ACTION: /health's entry of COMPONENT says so.
component_is() {
	python3 - "$@" <<'PY'
import json, sys
f, name, state, action = sys.argv[1:]
for c in json.load(open(f))["components"]:
    if c["component"] == name:
        sys.exit(0 if (c["state"], c["action"]) == (state, action) else 1)
sys.exit(1)
PY
}

for lib in "$NVML_SIM" "$(dirname "$NVML_SIM")/old/libnvidia-ml.so.1"; do
	case $lib in */old/*) l=old ;; *) l=new ;; esac
	run "v100-$l" ecc-retirement-v100 "$lib" 16
	m=v100-$l
	g='{gpu="0",uuid="GPU-6a1d2c3b-4e5f-4a7b-8c9d-0e1f2a3b4c5d"'
	check_eq "$m: aggregate corrected ECC" 1187 "$(val $m "vigil_gpu_ecc_errors_aggregate_total$g,type=\"corrected\"}")"
	check_eq "$m: aggregate uncorrected ECC" 2 "$(val $m "vigil_gpu_ecc_errors_aggregate_total$g,type=\"uncorrected\"}")"
	check_eq "$m: ECC mode current" 1 "$(val $m "vigil_gpu_ecc_mode$g,mode=\"current\"}")"
	check_eq "$m: ECC mode pending (off after the reset)" 0 "$(val $m "vigil_gpu_ecc_mode$g,mode=\"pending\"}")"
	check_eq "$m: pages retired, single-bit" 2 "$(val $m "vigil_gpu_retired_pages$g,cause=\"multiple_single_bit\"}")"
	check_eq "$m: pages retired, double-bit" 1 "$(val $m "vigil_gpu_retired_pages$g,cause=\"double_bit\"}")"
	check_eq "$m: retirement pending" 1 "$(val $m "vigil_gpu_retired_pages_pending$g}")"
	check_eq "$m: persistence mode" 1 "$(val $m "vigil_gpu_persistence_mode$g}")"
	check_eq "$m: link max width" 16 "$(val $m "vigil_gpu_pcie_link_max_width$g}")"
	check_eq "$m: link max generation" 3 "$(val $m "vigil_gpu_pcie_link_max_generation$g}")"
	check "$m: no remapped-row series (not supported: missing, never 0)" \
		bash -c "! grep -q '^vigil_gpu_remapped_rows' '$TMP/$m/metrics'"
	ev="$TMP/$m/log/events.log"
	check_eq "$m: one GPU_MEMORY retirement_pending line" 1 "$(grep -c 'type=GPU_MEMORY gpu=0 state=retirement_pending' "$ev")"
	check "$m: ... with the pages and the modes" grep -q 'retired_pending=1 retired_sbe=2 retired_dbe=1 ecc_mode=1' "$ev"
	check_eq "$m: no PCIE_LINK line (at its maximum)" 0 "$(grep -c 'type=PCIE_LINK' "$ev")"
	check_eq "$m: vigil health exits 1" 1 "$(cat "$TMP/$m/health.rc")"
	check "$m: ... its line names gpu0.memory" grep -q 'gpu0.memory' "$TMP/$m/health.out"
	check "$m: /health: gpu0.memory unhealthy, reset the GPU" \
		component_is "$TMP/$m/health.json" gpu0.memory unhealthy "reset the GPU"
done

run pcie "pcie-x8-of-x16" "$NVML_SIM" 14
g='{gpu="0",uuid="GPU-0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"'
check_eq "pcie: current width" 8 "$(val pcie "vigil_gpu_pcie_link_width$g}")"
check_eq "pcie: max width" 16 "$(val pcie "vigil_gpu_pcie_link_max_width$g}")"
check_eq "pcie: max generation" 4 "$(val pcie "vigil_gpu_pcie_link_max_generation$g}")"
ev="$TMP/pcie/log/events.log"
check_eq "pcie: one PCIE_LINK line, degraded from the first sample" 1 "$(grep -c 'type=PCIE_LINK' "$ev")"
check "pcie: ... x8 of x16" grep -q 'type=PCIE_LINK gpu=0 state=degraded gen=4 width=8 max_gen=4 max_width=16' "$ev"
check_eq "pcie: no GPU_MEMORY line" 0 "$(grep -c 'type=GPU_MEMORY' "$ev")"
check "pcie: /health: gpu0.pcie degraded, inspect the hardware" \
	component_is "$TMP/pcie/health.json" gpu0.pcie degraded "inspect the hardware"
