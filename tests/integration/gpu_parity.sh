#!/usr/bin/env bash
# The reference GPU logger's semantics where vigil once differed, each on its own
# simulated scenario (tests/nvml-sim/scenarios): 64-bit clock-event masks, transient
# NOT_SUPPORTED answers, the recovery action from field 230, the stderr (journal) lines
# and the spike snapshot's current state.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
if [ ! -f "$NVML_SIM" ] || [ ! -d "$SCEN" ]; then
	not_ok "gpu_parity: the simulated NVML is not built ($NVML_SIM)"
	exit 0
fi

# sim NAME SCENARIO COUNT [ARGS...]: vigil for COUNT host samples (GPU at 10 ms, host at
# 50 ms) into $TMP/NAME; stderr (what the journal gets) in $TMP/NAME.err.
sim() {
	local name=$1 scenario=$2 count=$3
	shift 3
	VIGIL_NVML_SCENARIO="$SCEN/$scenario" "$VIGIL" --nvml "$NVML_SIM" --root / \
		--gpu-interval 0.01 --interval 0.05 --count "$count" --log-dir "$TMP/$name" \
		"$@" 2>"$TMP/$name.err" >/dev/null
}
gpu_csv() { ls "$TMP/$1"/gpu0-*.csv 2>/dev/null | head -1; }
rows() { python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))) - 1)' "$1"; }
# cells FILE COLUMN FIRST LAST: the column's cells of data rows FIRST..LAST, '/'-joined.
cells() {
	python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
c = rows[0].index(sys.argv[2])
print('/'.join(r[c] for r in rows[int(sys.argv[3]):int(sys.argv[4]) + 1]))
PY
}
enough() { # enough NAME FILE N
	local n
	n=$(rows "$2")
	if [ "$n" -ge "$3" ]; then ok "$1: at least $3 samples"; else not_ok "$1: only $n samples, $3 needed"; fi
}
ALL='GpuIdle|AppClocks|SwPowerCap|HwSlowdown|SyncBoost|SwThermalSlowdown|HwThermalSlowdown|HwPowerBrakeSlowdown|DisplayClocks|UserDefinedClocks'

# --- a 63-bit clock-event mask ---------------------------------------------------------
sim mask "mask-63-bits" 12
csv=$(gpu_csv mask)
enough "mask" "$csv" 26
check_eq "mask: bitmask cells, steps 14-15 and 24-25" \
	"0x0001/0x7fffffffffffffff/0x7fffffffffffffff/0x0001" \
	"$(cells "$csv" throttle_bitmask 14 15)/$(cells "$csv" throttle_bitmask 24 25)"
check_eq "mask: every reason named" "$ALL" "$(cells "$csv" throttle_reasons 15 15)"
check_eq "mask: SwPowerCap at 10 % of the limit is SPUR_THROT" \
	"/SPUR_THROT(10%ofLim)/SPUR_THROT(10%ofLim)/" \
	"$(cells "$csv" flags 14 15)/$(cells "$csv" flags 24 25)"
check "mask: Throttle: line into the mask" grep -qF "gpu0: Throttle: GpuIdle → $ALL" "$TMP/mask.err"
check "mask: Throttle: line out of it" grep -qF "gpu0: Throttle: $ALL → GpuIdle" "$TMP/mask.err"
check_eq "mask: one ANOMALY line (60 s cooldown) for ten SPUR_THROT rows" 1 \
	"$(grep -c 'gpu0: ANOMALY: SwPowerCap at 60W (10% of 600W limit)' "$TMP/mask.err")"

# --- NOT_SUPPORTED once or twice is not forever ----------------------------------------
VIGIL_NVML_SIM_LOG="$TMP/transient.calls" sim transient "transient-unsupported" 12
csv=$(gpu_csv transient)
enough "transient" "$csv" 31
check_eq "transient: the limit blank only where it was refused (steps 9-11, 19-22)" \
	"600//600 600///600" "$(cells "$csv" power_limit 9 11) $(cells "$csv" power_limit 19 22)"
check_eq "transient: the limit's drop is still flagged" "TDP_REDUCED(400W)" \
	"$(cells "$csv" flags 30 30)"
check "transient: TDP CHANGE line" grep -qF "gpu0: TDP CHANGE: 600W → 400W (-200W)" \
	"$TMP/transient.err"
check_eq "transient: fan targets never answered: retired after 3 calls per fan" 6 \
	"$(grep -c '^nvmlDeviceGetTargetFanSpeed 0$' "$TMP/transient.calls")"
check_eq "transient: their cells are empty" "/" "$(cells "$csv" fan0_target_pct 30 31)"
