#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVLink and the fabric end to end on the simulated NVML, one scenario each:
#  nvlink-recovery-climb: link 3's recovery counter climbs, then Xid 149: NVLINK errors
#    lines, gpu0.nvlink degraded before the Xid, the counters on /metrics, the CSV cells,
#    the crash snapshot's NVLink section;
#  nvlink-down: link 5 goes down: an NVLINK down line, gpu0.nvlink unhealthy, its
#    vigil_gpu_nvlink_up 0; a PCIe GPU beside it: no NVLink or fabric series, empty
#    cells (missing, never 0);
#  fabric-stuck: a probe in progress on a host up for days: a FABRIC incomplete line,
#    gpu0.fabric unhealthy, vigil_gpu_fabric_state 2.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "nvlink" "$SCEN/nvlink-down"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "fake $0 $*"\n' >"$TMP/bin/nvidia-smi"
cp "$TMP/bin/nvidia-smi" "$TMP/bin/lspci"
chmod +x "$TMP/bin/nvidia-smi" "$TMP/bin/lspci"

# run NAME SCENARIO UNTIL-GREP: vigil at 100 ms samples, slow fields every 0.5 s, until
# events.log has a line matching UNTIL-GREP (or 30 s); /metrics and /health kept.
run() {
	local name=$1 scenario=$2 until=$3 port pid
	port=$(free_port)
	mkdir -p "$TMP/$name"
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SIM_LOG="$TMP/$name/calls" VIGIL_NVML_SCENARIO="$SCEN/$scenario" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$FIXTURES/x86-server" --gpu-interval 0.1 --gpu-slow-interval 0.5 --interval 0.5 \
		--log-dir "$TMP/$name/log" --quiet --listen "127.0.0.1:$port" 2>"$TMP/$name/err" &
	pid=$!
	for _ in $(seq 300); do
		sleep 0.1
		grep -q "$until" "$TMP/$name/log/events.log" 2>/dev/null && break
	done
	sleep 1.5 # the health watch's next host tick, a slow read after the change
	curl -s "http://127.0.0.1:$port/metrics" >"$TMP/$name/metrics"
	curl -s "http://127.0.0.1:$port/health" >"$TMP/$name/health.json"
	kill -TERM "$pid"
	wait "$pid"
	check_eq "$name: vigil exits 0" 0 $?
}
# component NAME PART: "state action" of PART in /health.
component() {
	python3 - "$TMP/$1/health.json" "$2" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
for c in h["components"]:
    if c["component"] == sys.argv[2]:
        print(c["state"], c.get("action", ""))
PY
}
metric() { awk -v k="$2" 'index($0, k) == 1 { print $2 }' "$TMP/$1/metrics"; }

# --- link 3's recovery counter climbs, then Xid 149 ----------------------------------
run climb nvlink-recovery-climb 'xid=149'
EV="$TMP/climb/log/events.log"
check "climb: an NVLINK errors line for link 3's recovery_events" \
	grep -q 'type=NVLINK gpu=0 link=3 state=errors counter=recovery_events delta=[0-9]* total=' "$EV"
check "climb: ... and for recovery_successful" \
	grep -q 'type=NVLINK gpu=0 link=3 state=errors counter=recovery_successful' "$EV"
check_eq "climb: one errors line per counter in the minute (rate-limited)" 2 \
	"$(grep -c 'type=NVLINK .*state=errors' "$EV")"
first_degraded=$(grep -n 'type=HEALTH component=gpu0.nvlink state=degraded' "$EV" | head -1 | cut -d: -f1)
first_xid=$(grep -n 'type=NVML_EVENT gpu=0 .*xid=149' "$EV" | head -1 | cut -d: -f1)
check "climb: gpu0.nvlink degraded ($first_degraded) before the Xid 149 line ($first_xid)" \
	test -n "$first_degraded" -a -n "$first_xid" -a "${first_degraded:-0}" -lt "${first_xid:-0}"
check "climb: link 3 down at the failed recovery" grep -q 'type=NVLINK gpu=0 link=3 state=down' "$EV"
check_eq "climb: gpu0.nvlink unhealthy at the end" "unhealthy" "$(component climb gpu0.nvlink | cut -d' ' -f1)"
check_eq "climb: /metrics recovery_events of link 3" 10 \
	"$(metric climb 'vigil_gpu_nvlink_errors_total{gpu="0",uuid="GPU-7a1e0c55-3d2b-4f6e-9a81-0b5c2d4e6f70",link="3",type="recovery_events"}')"
check_eq "climb: /metrics recovery_failed of link 3" 1 \
	"$(metric climb 'vigil_gpu_nvlink_errors_total{gpu="0",uuid="GPU-7a1e0c55-3d2b-4f6e-9a81-0b5c2d4e6f70",link="3",type="recovery_failed"}')"
check_eq "climb: no DL counter on NVLink5 (missing, not 0)" 0 \
	"$(grep -c 'type="crc_flit"' "$TMP/climb/metrics")"
check_eq "climb: 18 links on /metrics" 18 "$(grep -c '^vigil_gpu_nvlink_up{' "$TMP/climb/metrics")"
check_eq "climb: fabric completed" 3 "$(metric climb 'vigil_gpu_fabric_state{')"
check_eq "climb: fabric health mask 0x11aa" 4522 "$(metric climb 'vigil_gpu_fabric_health_mask{')"
csv=$(ls "$TMP/climb/log"/gpu0-*.csv | head -1)
python3 - "$csv" >"$TMP/climb/cells" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
last = rows[-1]
print("links_up", last["nvlink_links_up"])
print("errors", last["nvlink_errors"])
print("fabric", last["fabric_state"], last["fabric_health_mask"])
PY
check_eq "climb: CSV nvlink_links_up after link 3 went down" "links_up 17" "$(sed -n 1p "$TMP/climb/cells")"
check_eq "climb: CSV nvlink_errors (10 events, 9 recovered, 1 failed)" "errors 20" "$(sed -n 2p "$TMP/climb/cells")"
check_eq "climb: CSV fabric cells" "fabric 3 4522" "$(sed -n 3p "$TMP/climb/cells")"
snap=$(grep -l "GPU CRASH DETECTED" "$TMP/climb/log"/crashes/* 2>/dev/null | head -1)
check "climb: a crash snapshot" test -n "$snap"
check "climb: ... with the NVLink section" grep -q '^link 3: .*recovery_events=' "${snap:-/dev/null}"
check "climb: ... and the fabric" grep -q '^fabric: completed status=0 clique=1 health_mask=0x11aa faults=none' "${snap:-/dev/null}"

# --- link 5 down; a GPU without NVLink beside it ------------------------------------
run down nvlink-down 'counter=replay'
EV="$TMP/down/log/events.log"
check "down: an NVLINK down line for link 5" grep -q 'type=NVLINK gpu=0 link=5 state=down' "$EV"
check_eq "down: one down line (not one per sample)" 1 "$(grep -c 'state=down' "$EV")"
check "down: the replay counter of link 7" \
	grep -q 'type=NVLINK gpu=0 link=7 state=errors counter=replay delta=4 total=4' "$EV"
check_eq "down: gpu0.nvlink unhealthy, reset the GPU" "unhealthy reset the GPU" "$(component down gpu0.nvlink)"
check_eq "down: link 5 0 on /metrics" 0 \
	"$(metric down 'vigil_gpu_nvlink_up{gpu="0",uuid="GPU-5f0a2b3c-4d5e-4f60-8a71-9b0c1d2e3f40",link="5"}')"
check_eq "down: no NVLink or fabric series for the PCIe GPU" 0 \
	"$(grep -E '^vigil_gpu_(nvlink|fabric)' "$TMP/down/metrics" | grep -c 'gpu="1"')"
check "down: no NVLINK or FABRIC line for gpu1" bash -c "! grep -Eq 'type=(NVLINK|FABRIC) gpu=1' '$EV'"
csv1=$(ls "$TMP/down/log"/gpu1-*.csv | head -1)
check_eq "down: gpu1's NVLink and fabric cells empty in every row" "" \
	"$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print("".join(r[c] for r in rows for c in ("nvlink_links_up", "nvlink_errors", "fabric_state", "fabric_health_mask")))
' "$csv1")"
check_eq "down: gpu1 asked link 0 once (NOT_SUPPORTED), not every sample" 1 \
	"$(grep -c '^nvmlDeviceGetNvLinkState 1$' "$TMP/down/calls")"
check "down: the link counters in the one field-values call (no per-counter calls)" \
	bash -c "! grep -q '^nvmlDeviceGetNvLinkErrorCounter' '$TMP/down/calls'"

# --- the fabric stuck in progress -------------------------------------------------
run stuck fabric-stuck 'type=FABRIC'
EV="$TMP/stuck/log/events.log"
check "stuck: a FABRIC incomplete line" grep -q 'type=FABRIC gpu=0 state=incomplete fabric=in_progress' "$EV"
check_eq "stuck: one line" 1 "$(grep -c 'type=FABRIC' "$EV")"
check_eq "stuck: gpu0.fabric unhealthy" unhealthy "$(component stuck gpu0.fabric | cut -d' ' -f1)"
check_eq "stuck: vigil_gpu_fabric_state 2" 2 "$(metric stuck 'vigil_gpu_fabric_state{')"
check "stuck: no Xid" bash -c "! grep -q 'xid=' '$EV'"

