#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The NVIDIA GPU path end to end, on the simulated NVML (tests/nvml-sim): CSV cells, the
# flags column sample by sample, failures, back-off and recovery, unsupported fields,
# many GPUs, GPU selection, no library, and `vigil xid`.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
NVML_OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
need_nvml_sim "gpu" "$SCEN"

# sim NAME SCENARIO COUNT [ARGS...]: run vigil for COUNT host samples (GPU at 10 ms,
# host at 50 ms) into $TMP/NAME, stderr to $TMP/NAME.err.
sim() {
	local name=$1 scenario=$2 count=$3
	shift 3
	VIGIL_NVML_SCENARIO="$scenario" "$VIGIL" --nvml "$NVML_SIM" --root / --gpu-interval 0.01 \
		--interval 0.05 --count "$count" --log-dir "$TMP/$name" --quiet "$@" 2>"$TMP/$name.err"
}
gpu_csv() { ls "$TMP/$1"/gpu"$2"-*.csv 2>/dev/null | head -1; }
rows() { python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))) - 1)' "$1"; }
# flags FILE [LAST_ROW]: "ROW:FLAGS;ROW:FLAGS" for every data row with flags, up to LAST_ROW.
flags() {
	python3 - "$1" "${2:-1000000}" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
i = rows[0].index('flags')
print(';'.join(f"{n}:{r[i]}" for n, r in enumerate(rows[1:], 1) if r[i] and n <= int(sys.argv[2])))
PY
}
# same_width FILE: every row has as many cells as the header.
same_width() {
	python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(len({len(x) for x in r}) != 1)' "$1"
}
# load_row FILE ROW: the cells of data row ROW into the array R (R[column]=value), with
# one python run instead of one per cell.
declare -A R
load_row() {
	R=()
	local line
	while IFS= read -r line; do R[${line%%=*}]=${line#*=}; done < <(python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
n = int(sys.argv[2])
if n < len(rows):
    for k, v in zip(rows[0], rows[n]):
        print(f"{k}={v}")
PY
)
}
# enough NAME FILE N: the run took at least N GPU samples (else the row checks are moot).
enough() {
	local n
	n=$(rows "$2")
	if [ "$n" -ge "$3" ]; then ok "$1: at least $3 samples ($n)"; else not_ok "$1: only $n samples, $3 needed"; fi
}

# --- healthy-1gpu: every cell of the first rows ------------------------------------
sim healthy "$SCEN/healthy-1gpu" 10
check_eq "healthy: exits 0" 0 $?
csv=$(gpu_csv healthy 0)
check "healthy: gpu0 CSV written" test -n "$csv"
check_eq "healthy: header" "timestamp,gpu_temp,gpu_tlimit,power_instant,power_limit,pstate,gpu_clock,mem_clock,gpu_util,mem_util,vram_used_mb,pcie_gen,pcie_width,throttle_bitmask,throttle_reasons,fan0_speed_pct,fan0_target_pct,fan1_speed_pct,fan1_target_pct,sensor0_temp,sensor0_target,sensor0_controller,flags,sm_clock,video_clock,power_enforced_limit,energy_j,vram_total_mb,pcie_replay,ecc_corrected,ecc_uncorrected,remapped_correctable,remapped_uncorrectable,remap_pending,remap_failure,vram_reserved_mb,nvlink_links_up,nvlink_errors,fabric_state,fabric_health_mask" "$(head -1 "$csv")"
load_row "$csv" 1
for kv in gpu_temp=45 gpu_tlimit=45 power_instant=85.00 power_limit=600 pstate=8 gpu_clock=1200 \
	mem_clock=9000 gpu_util=10 mem_util=5 vram_used_mb=1024 pcie_gen=5 pcie_width=16 \
	throttle_bitmask=0x0001 throttle_reasons=GpuIdle fan0_speed_pct=30 fan0_target_pct=30 \
	fan1_speed_pct=30 fan1_target_pct=30 sensor0_temp=45 sensor0_target=1 sensor0_controller=1 \
	flags= sm_clock=1200 video_clock=1100 power_enforced_limit=600 energy_j=1008.500 \
	vram_total_mb=97887 pcie_replay=0 ecc_corrected=0 ecc_uncorrected=0 remapped_correctable=0 \
	remapped_uncorrectable=0 remap_pending=0 remap_failure=0 vram_reserved_mb=512; do
	check_eq "healthy: row 1 ${kv%%=*}" "${kv#*=}" "${R[${kv%%=*}]-(no such column)}"
done
check "healthy: timestamp format" grep -Eq '^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}$' \
	<<<"${R[timestamp]}"
# The energy counter is a slow field (gpu_slow_fields.sh): row 2 repeats the first read.
check_eq "healthy: row 2 energy_j, the slow read's value" 1008.500 "$(csv_cell "$csv" 2 energy_j)"
check "healthy: rows as wide as the header" same_width "$csv"
check_eq "healthy: no flags" "" "$(flags "$csv")"
check "healthy: more GPU rows than host rows" test "$(rows "$csv")" -gt 10
check "healthy: start line names the GPU" grep -q 'gpu0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition | PCI: 00000000:01:00.0' "$TMP/healthy.err"
check "healthy: thresholds logged" grep -q 'gpu0: Thresholds: shutdown=98C slowdown=95C gpu_max=90C' "$TMP/healthy.err"
check "healthy: no anomaly events" bash -c "! grep -q 'type=ANOMALY\|type=NVML_FAILED' '$TMP/healthy/events.log'"
info="$TMP/healthy/system-info.txt"
check "system-info: driver" grep -qx '  Driver: 570.86.15' "$info"
check "system-info: GPU name" grep -qx '  Name: NVIDIA RTX PRO 6000 Blackwell Workstation Edition' "$info"
check "system-info: serial" grep -qx '  Serial: 1795024012345' "$info"
check "system-info: gpu_max" grep -qx '  gpu_max: 90C' "$info"
check "system-info: kernel" grep -q "^  Linux .* $(uname -r) " "$info"
touch -d '2000-01-01' "$info"
sim healthy "$SCEN/healthy-1gpu" 2
check "system-info: not rewritten for the same driver" test "$(stat -c %Y "$info")" -lt 1000000000
sed 's/^driver .*/driver 575.51.02/' "$SCEN/healthy-1gpu" >"$TMP/newdriver"
sim healthy "$TMP/newdriver" 2
check "system-info: rewritten for a new driver" grep -qx '  Driver: 575.51.02' "$info"

# --- the flags column, sample by sample (step N of the scenario is row N) -----------
sim spike "$SCEN/fan-spike" 30
csv=$(gpu_csv spike 0)
enough "fan-spike" "$csv" 62
check_eq "fan-spike: flags by row" "20:FAN_SPIKE;21:FAN_SPIKE;40:FAN_SPIKE;41:FAN_SPIKE" "$(flags "$csv" 62)"
check "fan-spike: events.log" grep -q 'type=ANOMALY gpu=0 flag=FAN_SPIKE' "$TMP/spike/events.log"

sim inv "$SCEN/temp-fan-inversion" 30
csv=$(gpu_csv inv 0)
enough "temp-fan-inversion" "$csv" 60
got=$(flags "$csv" 60)
check_eq "temp-fan-inversion: rows 28..51 flagged" 24 "$(tr ';' '\n' <<<"$got" | grep -c TEMP_FAN_INV)"
check_eq "temp-fan-inversion: first" "28:TEMP_FAN_INV(85C@40%)" "$(cut -d';' -f1 <<<"$got")"
check_eq "temp-fan-inversion: last" "51:TEMP_FAN_INV(86C@48%)" "$(awk -F';' '{print $NF}' <<<"$got")"
check "temp-fan-inversion: logged once" test "$(grep -c 'ANOMALY: 85C but fans at 40% (expected >55% above 85C)' "$TMP/inv.err")" -eq 1
check_eq "temp-fan-inversion: one stderr line per minute" 1 "$(grep -c 'ANOMALY' "$TMP/inv.err")"

sim spur "$SCEN/spurious-throttle" 30
csv=$(gpu_csv spur 0)
enough "spurious-throttle" "$csv" 52
want=$(for i in $(seq 20 29); do printf '%s:SPUR_THROT(10%%ofLim);' "$i"; done)
check_eq "spurious-throttle: rows 20..29 only" "${want%;}" "$(flags "$csv" 52)"
check_eq "spurious-throttle: a real cap is not flagged" "0x0004" "$(csv_cell "$csv" 45 throttle_bitmask)"
check "spurious-throttle: transition logged" grep -q 'gpu0: Throttle: GpuIdle → SwPowerCap' "$TMP/spur.err"
check "spurious-throttle: anomaly logged" grep -q 'ANOMALY: SwPowerCap at 60W (10% of 600W limit)' "$TMP/spur.err"

sim pwr "$SCEN/power-breach" 30
csv=$(gpu_csv pwr 0)
enough "power-breach" "$csv" 42
want=$(for i in $(seq 30 39); do printf '%s:PWR+100W;' "$i"; done)
check_eq "power-breach: +50 W is not flagged, +100 and +100.5 W are" "${want%;}" "$(flags "$csv" 42)"
check_eq "power-breach: 700.5 W" 700.50 "$(csv_cell "$csv" 31 power_instant)"

sim tdp "$SCEN/tdp-change" 30 --gpu-slow-interval 0.1 --gpu-mid-interval 0.01
csv=$(gpu_csv tdp 0)
enough "tdp-change" "$csv" 62
check_eq "tdp-change: flags by row (no change to 0 W at a failed read)" \
	"20:TDP_REDUCED(450W);40:TDP_RESTORED(600W)" "$(flags "$csv" 62)"
check_eq "tdp-change: the failed limit read is an empty cell" "" "$(csv_cell "$csv" 50 power_limit)"
check_eq "tdp-change: the row still has its values" 45 "$(csv_cell "$csv" 50 gpu_temp)"
# The enforced limit is a slow field: the change at step 60 shows from a later slow read.
check "tdp-change: enforced limit before step 60 is not the new one" \
	test "$(csv_cell "$csv" 59 power_enforced_limit)" != 300
check_eq "tdp-change: enforced limit, read on the slow cadence" 300 \
	"$(csv_cell "$csv" "$(rows "$csv")" power_enforced_limit)"
check_eq "tdp-change: events" "type=TDP_CHANGE from=600W to=450W delta=-150W gpu=0
type=TDP_CHANGE from=452W to=600W delta=+148W gpu=0" "$(grep -o 'type=TDP_CHANGE.*' "$TMP/tdp/events.log")"
check "tdp-change: logged" grep -q 'gpu0: TDP CHANGE: 600W → 450W (-150W)' "$TMP/tdp.err"

# --- the power limit every sample; the mid-cadence fields (--gpu-mid-interval, default
# 1 s): the SM and video clocks. Every 10th sample here: the limit's change at step 20
# is flagged on row 20, as the reference flags it; the rows between mid reads keep the
# clocks last read.
VIGIL_NVML_SIM_LOG="$TMP/lcalls" sim lcad "$SCEN/tdp-change" 20 --gpu-slow-interval 3600 \
	--gpu-mid-interval 0.1
csv=$(gpu_csv lcad 0)
enough "limit cadence" "$csv" 45
n=$(rows "$csv")
check_eq "limit cadence: the limit read at every sample (and once at start)" "$((n + 1))" \
	"$(grep -c '^nvmlDeviceGetPowerManagementLimit 0$' "$TMP/lcalls")"
check "limit cadence: as the other calls" \
	test "$(grep -c '^nvmlDeviceGetPowerUsage 0$' "$TMP/lcalls")" -eq "$n"
check_eq "limit cadence: TDP_REDUCED on the row of step 20" "20:TDP_REDUCED(450W)" "$(flags "$csv" 35)"
check_eq "limit cadence: the row before the flag has the old limit" 600 "$(csv_cell "$csv" 19 power_limit)"
check_eq "limit cadence: the flagged row has the new one" 450 "$(csv_cell "$csv" 20 power_limit)"
clk=$(grep -c '^nvmlDeviceGetClockInfo 0$' "$TMP/lcalls")
check "mid cadence: clocks: graphics and memory every sample, SM and video every 10th ($clk calls)" \
	test "$clk" -ge $((2 * n + 2 * (n / 10) - 2)) -a "$clk" -le $((2 * n + 2 * (n / 10) + 6))
check_eq "mid cadence: every row carries the video and SM clocks last read" "1100/1200 x $n" \
	"$(python3 -c 'import csv, sys; v = {r["video_clock"] + "/" + r["sm_clock"] for r in csv.DictReader(open(sys.argv[1]))}; print(" ".join(v), "x", sys.argv[2])' "$csv" "$n")"

# --- a GPU lost and back: failure rows, then the recovery line -----------------------
{ cat "$SCEN/healthy-1gpu"; printf 'at 0 step 20 lost\nat 0 step 24 recovered\n'; } >"$TMP/lost.scen"
sim lost "$TMP/lost.scen" 30
csv=$(gpu_csv lost 0)
enough "lost" "$csv" 30
check "lost: rows as wide as the header" same_width "$csv"
check_eq "lost: four failure rows, nothing else flagged" \
	"20:NVML_FAILED:GPU is lost;21:NVML_FAILED:GPU is lost;22:NVML_FAILED:GPU is lost;23:NVML_FAILED:GPU is lost" \
	"$(flags "$csv")"
row20=$(sed -n 21p "$csv")
check_eq "lost: the failure row is the timestamp, empty cells and the error" \
	",,,,,,,,,,,,,,,,,,,,,,NVML_FAILED:GPU is lost,,,,,,,,,,,,,,,,," "${row20#*.[0-9][0-9][0-9]}"
check_eq "lost: answering again" 45 "$(csv_cell "$csv" 24 gpu_temp)"
check_eq "lost: one failure line" 1 "$(grep -c 'gpu0: NVML FAILED — GPU crash? GPU is lost' "$TMP/lost.err")"
check "lost: recovery line" grep -q 'gpu0: GPU RECOVERED after 4 failures' "$TMP/lost.err"
check "lost: events.log failure" grep -q 'type=NVML_FAILED gpu=0 error="GPU is lost"' "$TMP/lost/events.log"
check "lost: events.log recovery" grep -q 'type=GPU_RECOVERED gpu=0 failures=4' "$TMP/lost/events.log"
check "lost: no false anomaly around the failure" bash -c "! grep -q 'TDP\|FAN_SPIKE' '$csv'"

# --- back-off: GPU 1 stays lost; after 10 failures it is asked every 30 s, GPU 0 keeps
# its 10 ms cadence ------------------------------------------------------------------
{
	sed -n '/^driver/p; /^gpu 0/p' "$SCEN/healthy-8gpu"
	sed -n '/^gpu 1/p' "$SCEN/healthy-8gpu"
	grep '^set [01] ' "$SCEN/healthy-8gpu"
	echo 'at 1 step 5 lost'
} >"$TMP/backoff.scen"
sim backoff "$TMP/backoff.scen" 30
c0=$(gpu_csv backoff 0)
c1=$(gpu_csv backoff 1)
check_eq "back-off: gpu1 has 4 good rows and 11 failure rows" "4 11" \
	"$(grep -vc 'NVML_FAILED\|^timestamp' "$c1") $(grep -c 'NVML_FAILED:GPU is lost' "$c1")"
check "back-off: gpu0 keeps sampling" test "$(rows "$c0")" -ge 100
check_eq "back-off: said once" 1 "$(grep -c 'gpu1: GPU still unresponsive — backing off to 30s' "$TMP/backoff.err")"
check_eq "back-off: gpu0 never failed" 0 "$(grep -c NVML_FAILED "$c0")"

# --- NOT_SUPPORTED fields: empty cells, retired after 3 answers in a row -------------
# The slow fields (ECC, remapped rows, replays) are asked at slow reads only: at their
# shortest cadence here, so that 1 s of samples holds more than 3 of them.
VIGIL_NVML_SIM_LOG="$TMP/calls" sim unsup "$SCEN/unsupported-fields" 20 --gpu-slow-interval 0.1
csv=$(gpu_csv unsup 0)
n=$(rows "$csv")
load_row "$csv" "$n"
for col in fan0_target_pct fan1_target_pct sensor0_temp sensor0_target sensor0_controller energy_j \
	pcie_replay ecc_corrected ecc_uncorrected remapped_correctable remap_failure; do
	check_eq "unsupported: $col empty" "" "${R[$col]-(no such column)}"
done
check_eq "unsupported: fan speed still read" 30 "${R[fan0_speed_pct]}"
calls() { grep -c "^$1 0\$" "$TMP/calls"; }
check_eq "unsupported: temperature every sample" "$n" "$(calls nvmlDeviceGetTemperature)"
check_eq "unsupported: power every sample" "$n" "$(calls nvmlDeviceGetPowerUsage)"
check_eq "unsupported: fan targets 3 times per fan" 6 "$(calls nvmlDeviceGetTargetFanSpeed)"
# Four counters: corrected and uncorrected, volatile and aggregate.
check_eq "unsupported: ECC 3 times per counter" 12 "$(calls nvmlDeviceGetTotalEccErrors)"
for fn in nvmlDeviceGetRemappedRows nvmlDeviceGetTotalEnergyConsumption \
	nvmlDeviceGetThermalSettings nvmlDeviceGetPcieReplayCounter; do
	check_eq "unsupported: $fn asked 3 times" 3 "$(calls $fn)"
done

# --- an older driver: the fallback names --------------------------------------------
if [ -f "$NVML_OLD" ]; then
	VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_OLD" --gpu-interval 0.01 \
		--interval 0.05 --count 4 --log-dir "$TMP/old" --quiet 2>"$TMP/old.err"
	csv=$(gpu_csv old 0)
	check_eq "old driver: reasons via ThrottleReasons" 0x0001 "$(csv_cell "$csv" 1 throttle_bitmask)"
	check_eq "old driver: memory via v1 (reserved included), as with v2" 1024 \
		"$(csv_cell "$csv" 1 vram_used_mb)"
	check_eq "old driver: v1 has no reserved figure" "" "$(csv_cell "$csv" 1 vram_reserved_mb)"
	check_eq "old driver: fan 0 via the single-fan call" 30 "$(csv_cell "$csv" 1 fan0_speed_pct)"
	check "old driver: one fan column pair" bash -c "! head -1 '$csv' | grep -q fan1_"
	check_eq "old driver: no thermal settings" "" "$(csv_cell "$csv" 1 sensor0_temp)"
	check "old driver: PCI bus id via _v2" grep -q 'PCI: 00000000:01:00.0' "$TMP/old.err"
fi

# --- eight GPUs, GPU selection --------------------------------------------------------
sim eight "$SCEN/healthy-8gpu" 4
check_eq "8 GPUs: 8 CSV files" 8 "$(ls "$TMP/eight"/gpu*-*.csv | wc -l)"
check_eq "8 GPUs: gpu3 temperature" 33 "$(csv_cell "$(gpu_csv eight 3)" 1 gpu_temp)"
check_eq "8 GPUs: gpu7 power" 77.00 "$(csv_cell "$(gpu_csv eight 7)" 1 power_instant)"
check "8 GPUs: no fan columns for fanless GPUs" bash -c "! head -1 '$(gpu_csv eight 0)' | grep -q fan"
check "8 GPUs: rows as wide as the header" same_width "$(gpu_csv eight 5)"

sim one "$SCEN/healthy-8gpu" 3 --gpu 1
check_eq "--gpu 1: one file, gpu1" "gpu1" "$(ls "$TMP/one"/gpu*-*.csv | xargs -n1 basename | cut -d- -f1 | paste -sd,)"
check_eq "--gpu 1: its readings" 31 "$(csv_cell "$(gpu_csv one 1)" 1 gpu_temp)"

sim pick "$SCEN/healthy-8gpu" 3 --gpu 0,9
check_eq "--gpu 0,9: the present one" "gpu0" "$(ls "$TMP/pick"/gpu*-*.csv | xargs -n1 basename | cut -d- -f1 | paste -sd,)"
check "--gpu 0,9: the absent one named" grep -q 'GPU 9 not present (NVML sees 8): skipped' "$TMP/pick.err"

VIGIL_NVML_SIM_LOG="$TMP/none-calls" sim none "$SCEN/healthy-1gpu" 3 --gpu none
check_eq "--gpu none: exits 0" 0 $?
check "--gpu none: no GPU file" bash -c "! ls '$TMP/none'/gpu* 2>/dev/null | grep -q ."
check "--gpu none: NVML never loaded" test ! -e "$TMP/none-calls"
check_eq "--gpu none: host rows" 4 "$(wc -l <"$(ls "$TMP/none"/host-*.csv)")"

# --- no library, no driver: one line, the host keeps sampling ------------------------
"$VIGIL" --nvml "$TMP/nonexistent/libnvidia-ml.so.1" --interval 0.05 --count 3 --log-dir "$TMP/nolib" \
	--quiet 2>"$TMP/nolib.err"
check_eq "no library: exits 0" 0 $?
check_eq "no library: one line" 1 "$(grep -c 'NVIDIA\|NVML\|nvml' "$TMP/nolib.err")"
check "no library: says so" grep -q "no NVIDIA library ($TMP/nonexistent/libnvidia-ml.so.1): GPU sampling off" "$TMP/nolib.err"
check_eq "no library: host rows" 4 "$(wc -l <"$(ls "$TMP/nolib"/host-*.csv)")"
check "no library: no GPU file" bash -c "! ls '$TMP/nolib'/gpu* 2>/dev/null | grep -q ."

env -u VIGIL_NVML_SCENARIO "$VIGIL" --nvml "$NVML_SIM" --interval 0.05 --count 2 --log-dir "$TMP/nodrv" \
	--quiet 2>"$TMP/nodrv.err"
check_eq "driver not loaded: exits 0" 0 $?
check "driver not loaded: one line" grep -q 'NVML: Driver Not Loaded: GPU sampling off' "$TMP/nodrv.err"
check_eq "driver not loaded: host rows" 3 "$(wc -l <"$(ls "$TMP/nodrv"/host-*.csv)")"

# --- status and live view with a GPU -------------------------------------------------
VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" --gpu-interval 0.01 \
	--interval 0.05 --log-dir "$TMP/status" --quiet 2>"$TMP/status.err" &
pid=$!
sleep 1
out=$("$VIGIL" status --log-dir "$TMP/status" 2>&1)
kill -TERM "$pid"
wait "$pid"
check "status: the GPU's Status line" grep -Eq '^gpu0: Status: 0h0m \| [0-9]+ samples \| 0 spk \| 0 crash \| pwr 0 \(\+0/5m\) \| inv 0 \(\+0/5m\) \| spur 0 \(\+0/5m\) \| tdp_chg 0 \| peak: 45C/85W$' <<<"$out"

VIGIL_NVML_SCENARIO="$SCEN/temp-fan-inversion" "$VIGIL" --nvml "$NVML_SIM" --gpu-interval 0.01 \
	--interval 0.2 --count 5 --no-log --live >"$TMP/live.out" 2>/dev/null
check "live: a GPU line per host line" test "$(grep -c '^  gpu0 ' "$TMP/live.out")" -eq 5
check "live: worst temperature and the flag" grep -Eq '^  gpu0    8[5-8]C   450/600W   2400MHz  fans  40%  40%  GpuIdle  TEMP_FAN_INV\(8[5-8]C@40%\)$' "$TMP/live.out"

# --- /metrics: the GPU's readings and the counters the rules keep -------------------
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VIGIL_NVML_SCENARIO="$SCEN/power-breach" "$VIGIL" --nvml "$NVML_SIM" --gpu-interval 0.01 \
	--interval 0.05 --log-dir "$TMP/metrics" --quiet --listen "127.0.0.1:$PORT" 2>"$TMP/metrics.err" &
pid=$!
m=
for _ in $(seq 100); do
	sleep 0.1
	m=$(curl -s "http://127.0.0.1:$PORT/metrics") && grep -q 'type="power_breach"' <<<"$m" && break
done
kill -TERM "$pid"
wait "$pid"
base='gpu="0",uuid="GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a1"'
check "metrics: GPU temperature" grep -qx "vigil_gpu_temperature_celsius{$base} 45" <<<"$m"
check "metrics: power breaches counted" grep -Eqx "vigil_gpu_anomalies_total\{$base,type=\"power_breach\"\} [1-9][0-9]*" <<<"$m"
check "metrics: seconds idle" grep -Eqx "vigil_gpu_clocks_event_reason_seconds_total\{$base,reason=\"gpu_idle\"\} 0\.[0-9]+" <<<"$m"
check "metrics: no NVML failures" grep -qx "vigil_gpu_nvml_failures_total{$base} 0" <<<"$m"
if command -v promtool >/dev/null; then
	check_eq "metrics: promtool finds nothing to say" "0 " "$(promtool check metrics <<<"$m" 2>&1; echo "$? ")"
fi

# --- vigil xid ---------------------------------------------------------------------------
check_eq "xid 79" "Xid 79: GPU has fallen off the bus. Action: reboot the machine; if it repeats, check the PCIe slot and riser, the power supply and cooling.
NVIDIA's immediate action: RESTART_BM (restart the bare-metal machine). Severity: critical (reboot)." "$("$VIGIL" xid 79)"
check "xid 119" grep -q '^Xid 119: GSP RPC timeout. Action: reset the GPU' <<<"$("$VIGIL" xid 119)"
# NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html):
# 46 RESET_GPU, 151 RESTART_VM, 155 RESET_GPU, 63 IGNORE.
check "xid 46: reset, critical" grep -q "^NVIDIA's immediate action: RESET_GPU (reset the GPU). Severity: critical (reset).$" <<<"$("$VIGIL" xid 46)"
check "xid 151: restart the VM" grep -q "^NVIDIA's immediate action: RESTART_VM (.*). Severity: critical (reboot).$" <<<"$("$VIGIL" xid 151)"
check "xid 155: not watch" grep -q "^NVIDIA's immediate action: RESET_GPU .* Severity: critical (reset).$" <<<"$("$VIGIL" xid 155)"
check "xid 63: info" grep -q "^NVIDIA's immediate action: IGNORE (no action required). Severity: info (info).$" <<<"$("$VIGIL" xid 63)"
listed=0
for c in $(seq 1 172); do "$VIGIL" xid "$c" >/dev/null 2>&1 && listed=$((listed + 1)); done
check_eq "xid: every code of NVIDIA's catalog answered" 172 "$listed"
err=$("$VIGIL" xid 173 2>&1 >/dev/null); rc=$?
check_eq "xid unknown: exit 1" 1 "$rc"
check_eq "xid unknown: one line" "Xid 173: not in NVIDIA's Xid catalog (it lists 1-172); see NVIDIA's Xid documentation" "$err"
"$VIGIL" xid 0 >/dev/null 2>&1; check_eq "xid 0: not listed" 1 $?
"$VIGIL" xid 79x 2>/dev/null; check_eq "xid not a number: exit 2" 2 $?
"$VIGIL" xid 2>/dev/null; check_eq "xid without a code: exit 2" 2 $?
