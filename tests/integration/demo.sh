#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a newcomer runs without hardware: `make demo` (scripts/demo.sh: the NVML
# simulator's 8-GPU emergency, or a Pi fixture whose supply sags and recovers), and
# `make run` (scripts/run-here.sh), which as root keeps out of the packaged service's
# /var/log/vigil and, when its port 9101 is taken, uses another one, saying so.
. "$(dirname "$0")/../lib.sh"
need_nvml_sim "demo"

# --- the GPU emergency ------------------------------------------------------------------
DEMO_DIR="$TMP/demo" "$TOP/scripts/demo.sh" gpu "$BUILD_DIR" --duration 5 >"$TMP/gpu.out" 2>&1
check_eq "demo gpu: exit 0" 0 $?
check "demo gpu: says where the logs and the dashboard are" \
	grep -q "^vigil demo (gpu): logs in $TMP/demo/gpu\..*, dashboard at http://127.0.0.1:[0-9]*/" "$TMP/gpu.out"
ev=$(ls "$TMP"/demo/gpu.*/log/events.log)
check "demo gpu: gpu3 falls off the bus (Xid 79)" grep -q 'type=NVML_EVENT gpu=3 .*xid=79' "$ev"
check_eq "demo gpu: eight GPUs logged" 8 "$(ls "$TMP"/demo/gpu.*/log/gpu[0-7]-*.csv | wc -l)"
check "demo gpu: the exit summary ends with what happened" grep -q '^    (critical) gpu3: Xid 79' "$TMP/gpu.out"

# --- the Pi whose supply sags -------------------------------------------------------------
DEMO_DIR="$TMP/demo" DEMO_UV_AT=1 DEMO_UV_FOR=1.5 "$TOP/scripts/demo.sh" pi "$BUILD_DIR" \
	--duration 4 --interval 0.1 >"$TMP/pi.out" 2>&1
check_eq "demo pi: exit 0" 0 $?
ev=$(ls "$TMP"/demo/pi.*/log/events.log)
check "demo pi: under-voltage set" grep -q 'type=RPI_THROTTLE condition="under-voltage" state=set' "$ev"
check "demo pi: then cleared" grep -q 'type=RPI_THROTTLE condition="under-voltage" state=cleared' "$ev"
check "demo pi: the summary says it cleared" grep -q '^    (warning) pi: Pi under-voltage, cleared' "$TMP/pi.out"

# --- make run: out of the packaged service's way ------------------------------------------
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(30)' 9101 2>/dev/null &
HOLDER=$!
sleep 0.5
RUN_LOGS="$TMP/run-logs" ARGS="--count 2 --interval 0.05 --nvml /nonexistent" \
	"$TOP/scripts/run-here.sh" "$VIGIL" >"$TMP/run.out" 2>&1
rc=$?
if kill -0 "$HOLDER" 2>/dev/null; then
	check_eq "run: exit 0 with the service's port taken" 0 "$rc"
	check "run: says the port is taken and which it uses" \
		grep -q '^vigil: port 9101 is taken (the packaged service.s?): using [0-9]* ' "$TMP/run.out"
else
	ok "run: port 9101 taken # skip something else holds 9101 here"
	ok "run: says the port is taken # skip"
fi
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
if [ "$(id -u)" = 0 ]; then
	check "run as root: says where the logs go instead of /var/log/vigil" \
		grep -q "^vigil: as root: logs in $TMP/run-logs, not the packaged service's /var/log/vigil" "$TMP/run.out"
	check "run as root: the rows went there" test -n "$(ls "$TMP"/run-logs/host-*.csv 2>/dev/null)"
else
	ok "run as root # skip not root"
	ok "run as root: rows # skip not root"
fi
check "run: make run builds in parallel" grep -q -- '-j\$(JOBS) all' <<<"$(sed -n '/^run:/,/^$/p' "$TOP/Makefile")"
