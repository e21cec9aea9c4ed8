#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The health verdict end to end on the simulated NVML: a GPU that falls off the bus
# (Xid 79) and stays lost makes `vigil health` exit 1 with one line, /health and
# /metrics say the same, HEALTH lines in events.log; a person's clear through the running
# daemon and without one (HEALTH_CLEARED); the verdict kept over a restart; the exit
# codes of node-problem-detector's convention (0 OK, 1 a problem, 2 unknown).
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "health" "$SCEN/xid-79-lost-recovered"
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "fake $0 $*"\n' >"$TMP/bin/lspci"
cp "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
# The GPU falls off the bus at step 30 and stays lost; a quiet GPU for the restart.
grep -v 'step 60' "$SCEN/xid-79-lost-recovered" >"$TMP/lost.scen"
grep -v 'step 30' "$TMP/lost.scen" >"$TMP/quiet.scen"

start() {
	local name=$1 scenario=$2
	PORT=$(free_port)
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$scenario" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/$name" --quiet \
		--listen "127.0.0.1:$PORT" 2>"$TMP/$name.err" &
	PID=$!
}
stop() {
	kill -TERM "$PID"
	wait "$PID"
	check_eq "exit status 0 after SIGTERM (pid $PID)" 0 $?
}
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
# health DIR [ARGS...]: `vigil health`'s stdout in $OUT, its status in $RC.
health() {
	local dir=$1
	shift
	OUT=$("$VIGIL" health --log-dir "$dir" "$@" 2>"$TMP/health.err")
	RC=$?
}
unhealthy() { health "$1"; [ "$RC" = 1 ]; }
ev_has() { grep -q "$2" "$1/events.log"; }

# --- no verdict kept: unknown -------------------------------------------------------
mkdir -p "$TMP/none"
health "$TMP/none"
check_eq "no verdict: exit 2 (unknown)" 2 "$RC"
check "no verdict: one line saying so" grep -q '^unknown: no health verdict kept here yet' <<<"$OUT"
check_eq "no verdict: one line" 1 "$(wc -l <<<"$OUT")"

# --- a GPU off the bus: unhealthy everywhere ---------------------------------------
start lost "$TMP/lost.scen"
wait_for 30 unhealthy "$TMP/lost"
check_eq "lost: exit 1 (a problem)" 1 "$RC"
check_eq "lost: one line on stdout" 1 "$(wc -l <<<"$OUT")"
check "lost: the line names the part and its action" \
	grep -Eq '^unhealthy: gpu0\.(pcie|driver): (reboot the machine|reset the GPU): GPU 0: ' <<<"$OUT"
check "lost: the table on stderr" grep -q '^gpu0 *unhealthy' "$TMP/health.err"
json=$(curl -s "http://127.0.0.1:$PORT/health")
check_eq "lost: /health state" unhealthy "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' <<<"$json")"
check_eq "lost: /health gpu0.pcie" "unhealthy reboot the machine" "$(python3 -c '
import json, sys
c = {x["component"]: x for x in json.load(sys.stdin)["components"]}
print(c["gpu0.pcie"]["state"], c["gpu0.pcie"]["action"])' <<<"$json")"
check_eq "lost: /health content type" "application/json" \
	"$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$PORT/health")"
health "$TMP/lost" --json
check_eq "lost: --json is /health's" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["components"][0])' <<<"$json")" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["components"][0])' <<<"$OUT")"
m=$(curl -s "http://127.0.0.1:$PORT/metrics")
check_eq "lost: vigil_health_state gpu0" 2 "$(awk '$1 == "vigil_health_state{component=\"gpu0\"}" { print $2 }' <<<"$m")"
check_eq "lost: vigil_health_state host.storage" 0 "$(awk '$1 == "vigil_health_state{component=\"host.storage\"}" { print $2 }' <<<"$m")"
check "lost: HEALTH line" ev_has "$TMP/lost" 'type=HEALTH component=gpu0.pcie state=unhealthy from=healthy action="reboot the machine"'

# --- a person's clear through the running daemon --------------------------------------
"$VIGIL" health clear gpu0.bogus "x" --log-dir "$TMP/lost" 2>/dev/null
check_eq "clear: a bad component is exit 2" 2 $?
"$VIGIL" health clear gpu0 --log-dir "$TMP/lost" 2>/dev/null
check_eq "clear: no reason is exit 2" 2 $?
"$VIGIL" health clear gpu0 reseated the riser --log-dir "$TMP/lost" >"$TMP/clear.out"
check_eq "clear: exit 0" 0 $?
check "clear: recorded" ev_has "$TMP/lost" 'type=HEALTH_CLEARED component=gpu0 reason="reseated the riser"'
check "clear: the change announced" ev_has "$TMP/lost" 'type=HEALTH component=gpu0.pcie state=healthy from=unhealthy'
health "$TMP/lost"
check_eq "clear: the GPU is still missing from the count: exit 1" 1 "$RC"
check "clear: gpu0 cleared, the count left" grep -q '^unhealthy: gpu.pcie: reboot the machine: GPUs missing: 0 of 1' <<<"$OUT"
"$VIGIL" health clear gpu.pcie "known, RMA open" --log-dir "$TMP/lost" >/dev/null
health "$TMP/lost"
check_eq "clear: exit 0 after" 0 "$RC"
check_eq "clear: healthy" healthy "$OUT"
stop
health "$TMP/lost"
check_eq "stopped: exit 2 (unknown: nobody keeps the verdict)" 2 "$RC"
check "stopped: says so" grep -q '^unknown: vigil is not running' <<<"$OUT"

# --- kept over a restart, cleared without a daemon --------------------------------------
start kept "$TMP/lost.scen"
wait_for 30 unhealthy "$TMP/kept"
stop
start kept "$TMP/quiet.scen"
wait_for 10 bash -c "curl -s 'http://127.0.0.1:$PORT/health' | grep -q '\"state\": \"unhealthy\"'"
check "restart: still unhealthy on /health" test $? -eq 0
health "$TMP/kept"
check_eq "restart: still exit 1" 1 "$RC"
stop
"$VIGIL" health clear all "new board" --log-dir "$TMP/kept" >"$TMP/clear.out"
check_eq "offline clear: exit 0" 0 $?
check "offline clear: says what it cleared" grep -Eq '^all: [0-9]+ states? cleared \(new board\)' "$TMP/clear.out"
check "offline clear: recorded" ev_has "$TMP/kept" 'type=HEALTH_CLEARED component=all reason="new board"'
check_eq "offline clear: nothing left in the state file" "" \
	"$(awk -F'\t' '$1 == "entry" && $3 != 0' "$TMP/kept/health.state")"

# --- a Pi under-voltage: degraded is not a problem, unless --strict --------------------
PORT=$(free_port)
"$VIGIL" --root "$FIXTURES/pi4-undervolt" --gpu none --interval 0.05 --log-dir "$TMP/pi" --quiet \
	--listen "127.0.0.1:$PORT" 2>"$TMP/pi.err" &
PID=$!
degraded() { health "$TMP/pi"; grep -q '^degraded: pi\.power: ' <<<"$OUT"; }
wait_for 30 degraded
check_eq "pi: degraded is exit 0" 0 "$RC"
check "pi: the line names the supply" grep -q '^degraded: pi\.power: ' <<<"$OUT"
health "$TMP/pi" --strict
check_eq "pi: --strict makes degraded exit 1" 1 "$RC"
check "pi: the table lists the Pi's parts" grep -q '^pi\.display *healthy' "$TMP/health.err"
stop
