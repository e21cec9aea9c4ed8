#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The reference GPU logger's semantics where vigil once differed, each on its own
# simulated scenario (tests/nvml-sim/scenarios): 64-bit clock-event masks, transient
# NOT_SUPPORTED answers, the recovery action from field 230, the stderr (journal) lines
# and the spike snapshot's current state.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "gpu_parity" "$SCEN"

# sim NAME SCENARIO COUNT [ARGS...]: vigil for COUNT host samples (GPU at 10 ms, host at
# 50 ms) into $TMP/NAME; stderr (what the journal gets) in $TMP/NAME.err. At the
# default --gpu-mid-interval: the power limit is read every sample, as the reference
# reads it.
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

# --- every rule at its edge, as the reference computes it (rule-edges) -----------------
sim edges "rule-edges" 12
csv=$(gpu_csv edges)
enough "edges" "$csv" 32
check_eq "edges: the flags column, row by row" \
	"13:PWR+50W;17:TDP_REDUCED(591W);18:TDP_RESTORED(600W);21:SPUR_THROT(25%ofLim);24:FAN_SPIKE|TEMP_FAN_INV(85C@55%);27:FAN_SPIKE;31:FAN_SPIKE" \
	"$(python3 - "$csv" 32 <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
i = rows[0].index('flags')
print(';'.join(f"{n}:{r[i]}" for n, r in enumerate(rows[1:], 1) if r[i] and n <= int(sys.argv[2])))
PY
)"
check "edges: ANOMALY line for the inversion" grep -qF \
	"gpu0: ANOMALY: 85C but fans at 55% (expected >55% above 85C)" "$TMP/edges.err"
check "edges: TDP CHANGE lines both ways" bash -c "grep -qF 'gpu0: TDP CHANGE: 596W → 591W (-5W)' '$TMP/edges.err' && grep -qF 'gpu0: TDP CHANGE: 591W → 600W (+9W)' '$TMP/edges.err'"
check_eq "edges: no TDP CHANGE for 4 W" 0 "$(grep -c 'TDP CHANGE: 600W → 596W' "$TMP/edges.err")"

# --- limits that last less than the mid cadence, beside the reference's rule ----------
# The reference logger (seeds/000_*, its sample's "Power limit change detection") reads
# the limit every sample and, from the 2nd, flags a change of TDP_CHANGE_EPSILON_W (5 W)
# or more against the sample before: TDP_RESTORED/TDP_REDUCED(<limit>W), a "TDP CHANGE:"
# line and a type=TDP_CHANGE event. ref_tdp computes that from the scenario's limit at
# each row's step (sample N sees step N) and prints what vigil must have written.
ref_tdp() { # ref_tdp SCENARIO ROWS
	python3 - "$@" <<'PY'
import re, sys
steps = {}
for line in open(sys.argv[1]):
    m = re.match(r'(?:set 0|at 0 step (\d+) set) .*\blimit_mw=(\d+)', line)
    if m:
        steps[int(m.group(1) or 0)] = int(m.group(2)) / 1000.0
prev, cols, flags, log, events = None, [], [], [], []
for row in range(1, int(sys.argv[2]) + 1):
    w = steps[max(s for s in steps if s <= row)]
    cols.append(f"{w:.0f}")
    if prev is not None and abs(w - prev) >= 5:
        d = w - prev
        flags.append(f"{row}:TDP_{'RESTORED' if d > 0 else 'REDUCED'}({w:.0f}W)")
        log.append(f"{prev:.0f}W → {w:.0f}W ({d:+.0f}W)")
        events.append(f"from={prev:.0f}W to={w:.0f}W delta={d:+.0f}W")
    prev = w
print("power_limit=" + "/".join(cols))
print("flags=" + ";".join(flags))
print("log=" + ";".join(log))
print("events=" + ";".join(events))
PY
}
sim blip "tdp-blip" 8
csv=$(gpu_csv blip)
enough "tdp-blip" "$csv" 35
ref=$(ref_tdp "$SCEN/tdp-blip" 35)
check_eq "tdp-blip: the power_limit column of rows 1-35, as the driver had it" \
	"$(grep '^power_limit=' <<<"$ref")" "power_limit=$(cells "$csv" power_limit 1 35)"
check_eq "tdp-blip: the TDP flags, row by row" "$(grep '^flags=' <<<"$ref")" \
	"flags=$(python3 - "$csv" 35 <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
i = rows[0].index('flags')
print(';'.join(f"{n}:{t}" for n, r in enumerate(rows[1:], 1) if n <= int(sys.argv[2])
               for t in r[i].split('|') if t.startswith('TDP_')))
PY
)"
check_eq "tdp-blip: the TDP CHANGE lines" "$(grep '^log=' <<<"$ref")" \
	"log=$(grep -o 'gpu0: TDP CHANGE: .*' "$TMP/blip.err" | sed 's/^gpu0: TDP CHANGE: //' | paste -sd';')"
check_eq "tdp-blip: the TDP_CHANGE events" "$(grep '^events=' <<<"$ref")" \
	"events=$(grep -o 'type=TDP_CHANGE .*' "$TMP/blip/events.log" | sed 's/^type=TDP_CHANGE //; s/ gpu=0$//' | paste -sd';')"

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

# --- the recovery action from field 230; the journal's lines ---------------------------
sim rec "recovery-action" 24
ev="$TMP/rec/events.log"
check_eq "recovery: Xid 119 (reset class) names the field's GPU_RESET" 1 \
	"$(grep -c 'event=Xid(119) .* recovery_action=GPU_RESET$' "$ev")"
check_eq "recovery: Xid 154 and the event (eventData 0) name NODE_REBOOT" 2 \
	"$(grep -c 'event=\(Xid(154)\|GpuRecovery\) .*recovery_action=NODE_REBOOT$' "$ev")"
check_eq "recovery: a value NVIDIA does not define, by number" 1 \
	"$(grep -c 'event=GpuRecovery mask=0x8000 data=0 recovery_action=unknown(7)$' "$ev")"
check_eq "recovery: eventData 0 never read as NONE" 0 "$(grep -c 'recovery_action=NONE' "$ev")"
err="$TMP/rec.err"
check "journal: EVENT: line naming the GPU, the Xid, its meaning, action and recovery action" \
	grep -Eq '^vigil: warning: gpu0: EVENT: [0-9T:.-]+ Xid\(119\) \(Xid 119: GSP RPC timeout; action: reset the GPU \(nvidia-smi -r\) or reboot\) recovery action GPU_RESET$' "$err"
check "journal: CRITICAL EVENT naming the GPU and the Xid" \
	grep -q '^vigil: warning: gpu0: CRITICAL EVENT Xid(119) (Xid 119: GSP RPC timeout; .*) recovery action GPU_RESET — capturing crash snapshot (crash #1)$' "$err"
check "journal: held-back CRITICAL EVENT names its event" \
	grep -q '^vigil: warning: gpu0: CRITICAL EVENT #3 GpuRecovery recovery action NODE_REBOOT (snapshot suppressed by 60s cooldown)$' "$err"
check "journal: EVENT: PState" grep -Eq '^vigil: gpu0: EVENT: [0-9T:.-]+ PState$' "$err"
check_eq "journal: 25 Clock events are one ClockBurst line" 1 \
	"$(grep -Ec '^vigil: gpu0: EVENT: [0-9T:.-]+ ClockBurst\(10 in 1.0s\)$' "$err")"
check_eq "journal: no EVENT: line per Clock event" 0 "$(grep -c 'EVENT: [^ ]* Clock$' "$err")"

# --no-gpu-clock-events: the listener leaves clock events out of its mask (an idle H200
# raises ten a second: bench/RESULTS.md, section 21); the rest are still heard.
sim recnc "recovery-action" 24 --no-gpu-clock-events
check "no clock events: the mask lacks 0x0010" grep -q 'event listener started: gpu0 mask=0xc00f' "$TMP/recnc.err"
check_eq "no clock events: no ClockBurst line" 0 "$(grep -c 'ClockBurst' "$TMP/recnc.err")"
check "no clock events: the Xid is still heard" grep -q 'EVENT: [^ ]* Xid(119)' "$TMP/recnc.err"
check "with clock events: the mask has 0x0010" grep -q 'event listener started: gpu0 mask=0xc01f' "$err"

# An older driver without nvmlDeviceGetFieldValues: eventData is the fallback, marked.
NVML_OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
VIGIL_NVML_SCENARIO="$SCEN/recovery-action" "$VIGIL" --nvml "$NVML_OLD" --root / \
	--gpu-interval 0.01 --interval 0.05 --count 24 --log-dir "$TMP/recold" 2>"$TMP/recold.err" >/dev/null
check_eq "recovery, old driver: the events' eventData, marked as such" 2 \
	"$(grep -c 'event=GpuRecovery mask=0x8000 data=0 recovery_action=NONE source=eventData$' "$TMP/recold/events.log")"
check_eq "recovery, old driver: an Xid without the field names no action" 0 \
	"$(grep -c 'event=Xid(119) .*recovery_action' "$TMP/recold/events.log")"

# --- nvmlDeviceRegisterEvents answering UNKNOWN: the set freed and built again ---------
VIGIL_NVML_SIM_LOG="$TMP/reg.calls" sim reg "register-unknown" 60
check "register UNKNOWN: said, with the restart" grep -q \
	'event registration left the set undefined: Unknown Error; restarting the event listener in 1 s' "$TMP/reg.err"
check_eq "register UNKNOWN: create, register, free, create, register" \
	"nvmlEventSetCreate,nvmlDeviceRegisterEvents 0,nvmlEventSetFree,nvmlEventSetCreate,nvmlDeviceRegisterEvents 0" \
	"$(grep -E '^nvml(EventSet(Create|Free)|DeviceRegisterEvents)' "$TMP/reg.calls" | head -5 | paste -sd,)"
check "register UNKNOWN: the Xid after the rebuild is seen" grep -q 'type=NVML_EVENT gpu=0 event=Xid(13)' \
	"$TMP/reg/events.log"

# --- the spike snapshot's current state: every column of the row -----------------------
sim spike "fan-spike" 30
snap=$(ls "$TMP"/spike/spikes/spike-*.log 2>/dev/null | head -1)
csv=$(gpu_csv spike)
check "spike: a snapshot" test -n "$snap"
res=$(python3 - "$snap" "$csv" <<'PY'
import csv, sys
text = open(sys.argv[1]).read().split("=== Current state ===\n", 1)[1].split("\n===", 1)[0]
state = [l[1:].split(": ", 1) for l in text.strip("\n").split("\n")]
rows = list(csv.reader(open(sys.argv[2], newline='')))
keys = [k for k, _ in state]
print("columns=" + ("same" if keys == rows[0] else "differ: %s" % keys))
cur = dict((k, v) for k, v in state)
match = [r for r in rows[1:] if r[0] == cur.get("timestamp")]
print("row=" + ("same" if match and [cur.get(k, "") for k in rows[0]] == match[0] else "differ"))
print("reasons=" + cur.get("throttle_reasons", "(missing)"))
PY
)
check_eq "spike: current state lists every column of the CSV, in order" "columns=same" \
	"$(grep '^columns=' <<<"$res")"
check_eq "spike: ... with the values of the spike's row" "row=same" "$(grep '^row=' <<<"$res")"
check_eq "spike: throttle_reasons among them" "reasons=GpuIdle" "$(grep '^reasons=' <<<"$res")"

# --- /metrics: memory used (reserved included) and reserved; the recovery action --------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VIGIL_NVML_SCENARIO="$SCEN/recovery-action" "$VIGIL" --nvml "$NVML_SIM" --root / --gpu-interval 0.01 \
	--interval 0.05 --no-log --quiet --listen "127.0.0.1:$port" 2>"$TMP/metrics.err" &
pid=$!
m=""
for _ in $(seq 100); do
	m=$(curl -s "http://127.0.0.1:$port/metrics")
	grep -q '^vigil_gpu_memory_reserved_bytes' <<<"$m" && break
	sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
check_eq "metrics: vigil exits 0" 0 $?
series() { awk -v k="$1" '$1 ~ "^" k "[{]" { print $2 }' <<<"$m"; }
check_eq "metrics: used, reserved included (v1's used)" 1073741824 "$(series vigil_gpu_memory_used_bytes)"
check_eq "metrics: reserved" 536870912 "$(series vigil_gpu_memory_reserved_bytes)"
check_eq "metrics: the recovery action read at start" 0 "$(series vigil_gpu_recovery_action)"
