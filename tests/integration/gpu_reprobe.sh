#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The 60 s re-probe end to end (about 65 s, mostly idle): retired fields asked again, on
# the simulated NVML (scenario reprobe-60s); the temperature thresholds and the recovery
# action are read again on the slow fields' cadence (--gpu-slow-interval, 10 s).
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_reprobe"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VIGIL_NVML_SIM_LOG="$TMP/calls" VIGIL_NVML_SCENARIO="$SCEN/reprobe-60s" "$VIGIL" --nvml "$NVML_SIM" \
	--root / --gpu-interval 0.1 --interval 1 --log-dir "$TMP/log" --quiet \
	--listen "127.0.0.1:$port" 2>"$TMP/err" &
pid=$!
csv=""
m=""
# Until the fan targets were asked again (the re-probe at 60 s), at most 100 s.
for _ in $(seq 200); do
	[ "$(grep -c '^nvmlDeviceGetTargetFanSpeed 0$' "$TMP/calls" 2>/dev/null)" = 8 ] && break
	sleep 0.5
done
m=$(curl -s "http://127.0.0.1:$port/metrics")
csv=$(ls "$TMP"/log/gpu0-*.csv 2>/dev/null | head -1)
kill -TERM "$pid"
wait "$pid"
check_eq "reprobe: vigil exits 0" 0 $?
check_eq "reprobe: gpu_tlimit before the change at step 100 (row 50)" 45 \
	"$(csv_cell "$csv" 50 gpu_tlimit)"
check_eq "reprobe: gpu_tlimit after it, read on the slow cadence" 35 \
	"$(tail -1 "$csv" | cut -d, -f3)"
check_eq "reprobe: fan targets: 3 calls per fan, then one more each" 8 \
	"$(grep -c '^nvmlDeviceGetTargetFanSpeed 0$' "$TMP/calls")"
fv=$(grep -c '^nvmlDeviceGetFieldValues 0$' "$TMP/calls")
samples=$(grep -c '^nvmlDeviceGetTemperature 0$' "$TMP/calls")
check "reprobe: field 230 read at start and on the slow cadence ($fv calls, $samples samples)" \
	test "$fv" -ge 3 -a "$((fv * 20))" -le "$samples"
check_eq "reprobe: /metrics has the new recovery action" 1 \
	"$(awk '$1 ~ /^vigil_gpu_recovery_action[{]/ { print $2 }' <<<"$m")"
