#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Alerts pushed to a real Alertmanager (Debian's prometheus-alertmanager, on a free
# loopback port, its data in $TMP), whose one receiver is a webhook to a small HTTP
# server of this test that writes each notification down. A simulated GPU falls off the
# bus (Xid 79) while the Alertmanager is down: the alerts wait on disk, arrive once it
# starts, the GPU-lost alert resolves when the GPU comes back, and neither the resends
# nor a restart of vigil make a second alert or a second notification. Then the
# failures: a refused connection, an HTTP 400, a bad URL, a bad config.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"

AM_BIN=$(command -v prometheus-alertmanager || command -v alertmanager || true)
if [ -z "$AM_BIN" ] || [ ! -x "$VIGIL" ]; then
	echo "# skip: prometheus-alertmanager or $VIGIL missing"
	exit 0
fi
SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "alertmanager" "$SCEN/xid-79-lost-recovered" "$SCEN/healthy-1gpu"

ROOT="$TMP/root"
mkdir -p "$ROOT" "$TMP/bin"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
printf '#!/bin/sh\necho "fake $0 $*"\n' >"$TMP/bin/lspci"
cp "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# A webhook receiver (and, with a status, a fake Alertmanager that answers every POST
# with it): each request body is one line of FILE.
cat >"$TMP/hook.py" <<'PY'
import http.server, sys
port, out, status = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(out, "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        reply = b"" if status == 200 else b"bad alert: startsAt must be before endsAt"
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
# notes NAME STATUS: the webhook notifications that carry alert NAME with STATUS.
notes() {
	python3 - "$TMP/hook.jsonl" "$1" "$2" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]) if __import__("os").path.exists(sys.argv[1]) else []:
    m = json.loads(line)
    n += any(a["labels"].get("alertname") == sys.argv[2] and a["status"] == sys.argv[3]
             for a in m["alerts"])
print(n)
PY
}
# am_alerts NAME: the alerts named NAME the Alertmanager holds, one line each: the
# state and the labels gpu, key, severity, instance.
am_alerts() {
	curl -sf "http://127.0.0.1:$AMPORT/api/v2/alerts?filter=alertname%3D%22$1%22" | python3 -c '
import json, sys
for a in json.load(sys.stdin):
    l = a["labels"]
    print(a["status"]["state"], l.get("gpu", "-"), l.get("key", "-"), l.get("severity"), l.get("job"), a["annotations"].get("summary", "")[:40])'
}
# wait_notes SECONDS NAME STATUS: until at least one such notification came.
wait_notes() {
	for _ in $(seq $(($1 * 5))); do
		[ "$(notes "$2" "$3")" -ge 1 ] && return 0
		sleep 0.2
	done
	return 1
}
# wait_metric SECONDS NAME OP VALUE: until the vigil metric NAME compares so (test's OP).
wait_metric() {
	for _ in $(seq $(($1 * 5))); do
		[ "$(metric "$2")" "$3" "$4" ] 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
metric() { curl -sf "http://127.0.0.1:$LPORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

AMPORT=$(free_port)
WHPORT=$(free_port)
LPORT=$(free_port)
python3 "$TMP/hook.py" "$WHPORT" "$TMP/hook.jsonl" 200 &
PROM_PIDS+=($!)
cat >"$TMP/am.yml" <<EOF2
route:
  receiver: hook
  group_by: ['alertname']
  group_wait: 100ms
  group_interval: 500ms
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$WHPORT/
        send_resolved: true
EOF2
am_start() {
	"$AM_BIN" --config.file="$TMP/am.yml" --storage.path="$TMP/am-data" \
		--web.listen-address="127.0.0.1:$AMPORT" --cluster.listen-address= \
		>>"$TMP/am.log" 2>&1 &
	AM_PID=$!
	PROM_PIDS+=("$AM_PID")
	wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$AMPORT/-/ready"
}

# The GPU is lost at its 30th sample (3 s at 0.1 s) and back at its 36th attempt: the
# 6th failure comes after the 30 s backoff, so about 33 s later.
sed 's/step 60/step 36/' "$SCEN/xid-79-lost-recovered" >"$TMP/lost.scen"
printf 'evaluation_interval: 200ms\nresend_delay: 2s\nkeep_firing_for: 10m\ntimeout: 2s\nexternal_labels:\n  site: "lobby \\"east\\""\n' >"$TMP/vigil-am.yml"
# start_v NAME SCENARIO [ARGS...]: vigil in the background, logs in $TMP/log; sets VPID.
start_v() {
	local name=$1 scen=$2
	shift 2
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$scen" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$ROOT" --gpu-interval 0.1 --interval 0.5 --quiet --log-dir "$TMP/log" \
		--listen "127.0.0.1:$LPORT" --alertmanager "http://127.0.0.1:$AMPORT/" \
		--alertmanager-config "$TMP/vigil-am.yml" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	VPID=$!
}

# --- raised while the Alertmanager is down --------------------------------------------
start_v run1 "$TMP/lost.scen" --duration 120
STORE="$TMP/log/alertmanager/alerts"
check "down: the lost GPU's alert waits in the store" \
	wait_for 20 grep -qs $'alertname\tVigilGpuLost' "$STORE"
check "down: the refused connection is said, with what is kept" \
	wait_for 10 grep -q "alertmanager: cannot deliver alerts to http://127.0.0.1:$AMPORT/api/v2/alerts: .*Couldn't connect.* alerts kept in $STORE" "$TMP/run1.err"
check "down: vigil_alertmanager_errors_total counts the failures" \
	wait_metric 10 vigil_alertmanager_errors_total -ge 1
check "down: vigil_alertmanager_alerts_pending > 0" test "$(metric vigil_alertmanager_alerts_pending)" -ge 1
"$VIGIL" status --log-dir "$TMP/log" >"$TMP/status-down.out" 2>&1
check "down: vigil status says what waits" \
	grep -Eq '^alertmanager: 0 alerts delivered, [1-9][0-9]* failed requests, [1-9][0-9]* alerts not delivered yet$' "$TMP/status-down.out"
check_eq "down: said once, not once per attempt" 1 "$(grep -c 'alertmanager: cannot deliver' "$TMP/run1.err")"

# --- the Alertmanager starts: the alerts arrive -----------------------------------------
if ! am_start; then
	not_ok "alertmanager starts on 127.0.0.1:$AMPORT"
	tail -5 "$TMP/am.log"
	exit 0
fi
check "up: the GPU-lost alert reaches the webhook" wait_notes 15 VigilGpuLost firing
check "up: the Xid alert reaches the webhook" wait_notes 5 VigilXid firing
check "up: delivering again is said" grep -q "alertmanager: delivering to http://127.0.0.1:$AMPORT/api/v2/alerts again after [0-9]* failed attempts" "$TMP/run1.err"
check_eq "up: one GPU-lost alert in the Alertmanager, firing, its labels" \
	"active 0 - critical vigil GPU lost, still lost (" "$(am_alerts VigilGpuLost | cut -c1-48)"
check "up: the GPU-lost alert carries its runbook" bash -c "curl -sf 'http://127.0.0.1:$AMPORT/api/v2/alerts?filter=alertname%3D%22VigilGpuLost%22' | grep -q '\"runbook\":\"Stop the GPU'"
check_eq "up: one Xid alert, key 79" "active 0 79 critical vigil Xid 79 (" "$(am_alerts VigilXid | cut -c1-35)"
labels=$(curl -sf "http://127.0.0.1:$AMPORT/api/v2/alerts?filter=alertname%3D%22VigilXid%22" | python3 -c 'import json,sys; a=json.load(sys.stdin)[0]; print(a["labels"]["site"], a["labels"]["instance"] != "", a["startsAt"] < a["endsAt"])')
check_eq "up: external label with quotes, instance, startsAt before endsAt" 'lobby "east" True True' "$labels"
check "up: nothing pending" wait_metric 5 vigil_alertmanager_alerts_pending -eq 0

# --- the GPU comes back: resolved --------------------------------------------------------
check "clears: the GPU-lost alert is resolved at the webhook" \
	wait_notes 50 VigilGpuLost resolved
check "clears: GPU_RECOVERED was written before" grep -q 'type=GPU_RECOVERED gpu=0' "$TMP/log/events.log"
check_eq "clears: the Alertmanager shows no GPU-lost alert firing" "" "$(am_alerts VigilGpuLost)"
check "clears: the resolution leaves the store" bash -c "! grep -q $'alertname\tVigilGpuLost' '$STORE'"
sleep 5 # two resends of the firing Xid alert
check_eq "no duplicates: one GPU-lost notification firing" 1 "$(notes VigilGpuLost firing)"
check_eq "no duplicates: one GPU-lost notification resolved" 1 "$(notes VigilGpuLost resolved)"
check_eq "no duplicates: the Xid alert, re-sent every 2 s, notified once" 1 "$(notes VigilXid firing)"
check_eq "no duplicates: the Xid still one alert, firing" "active 0 79" "$(am_alerts VigilXid | cut -c1-11)"
sent=$(metric vigil_alertmanager_alerts_sent_total)
check "metrics: vigil_alertmanager_alerts_sent_total counts the resends" test "${sent:-0}" -ge 8
kill -TERM "$VPID"
wait "$VPID"
check_eq "run1: exit 0" 0 $?

# --- vigil restarts: the Xid alert from before stays one alert ---------------------------
start_v run2 "$SCEN/healthy-1gpu" --duration 4
wait "$VPID"
check_eq "restart: exit 0" 0 $?
check "restart: the alerts kept from before are said" grep -q 'alertmanager: [0-9]* alerts kept from before' "$TMP/run2.err"
check_eq "restart: the Xid alert still one, firing" "active 0 79" "$(am_alerts VigilXid | cut -c1-11)"
check_eq "restart: still one Xid notification" 1 "$(notes VigilXid firing)"

# --- an Alertmanager that answers 400: a clear error, nothing lost ----------------------
BADPORT=$(free_port)
python3 "$TMP/hook.py" "$BADPORT" "$TMP/bad.jsonl" 400 &
PROM_PIDS+=($!)
wait_for 10 bash -c "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $BADPORT))' 2>/dev/null"
rm -rf "$TMP/log400"
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$TMP/lost.scen" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$ROOT" --gpu-interval 0.1 --interval 0.5 --quiet --log-dir "$TMP/log400" \
	--alertmanager "http://127.0.0.1:$BADPORT" --alertmanager-config "$TMP/vigil-am.yml" \
	--duration 6 >"$TMP/r400.out" 2>"$TMP/r400.err"
check_eq "400: exit 0" 0 $?
check "400: the answer is said with its text" \
	grep -q "alertmanager: cannot deliver alerts to http://127.0.0.1:$BADPORT/api/v2/alerts: HTTP 400: bad alert: startsAt must be before endsAt; [0-9]* alerts kept in" "$TMP/r400.err"
check "400: the request was JSON with the Xid alert" \
	python3 -c 'import json,sys; a=[x for l in open(sys.argv[1]) for x in json.loads(l)]; sys.exit(0 if any(x["labels"]["alertname"]=="VigilXid" for x in a) else 1)' "$TMP/bad.jsonl"
check "400: the alerts stay in the store, undelivered" \
	grep -q $'^A\t[0-9]*\t0\t0\t[0-9]*\talertname\tVigilXid' "$TMP/log400/alertmanager/alerts"
check "400: the exit says what stays" grep -q 'alertmanager: 0 alerts delivered, [1-9][0-9]* failed requests; [1-9][0-9]* alerts not delivered stay in' "$TMP/r400.err"

# --- bad URL, bad config -------------------------------------------------------------------
"$VIGIL" --root "$ROOT" --gpu none --quiet --log-dir "$TMP/logbad" --alertmanager "ftp://x" \
	--count 1 >"$TMP/url.out" 2>"$TMP/url.err"
check "bad URL: vigil stops" test $? -ne 0
check "bad URL: says why" grep -q "alertmanager: 'ftp://x' is not an http:// or https:// URL" "$TMP/url.err"
printf 'resend_delay: 1s\npush_interval: 1s\n' >"$TMP/bad.yml"
"$VIGIL" --root "$ROOT" --gpu none --quiet --log-dir "$TMP/logbad" --alertmanager "http://127.0.0.1:$AMPORT" \
	--alertmanager-config "$TMP/bad.yml" --count 1 >"$TMP/cfg.out" 2>"$TMP/cfg.err"
check "bad config: vigil stops" test $? -ne 0
check "bad config: names the file, line and key" \
	grep -q "alertmanager config $TMP/bad.yml: line 2: unsupported key 'push_interval' (supported: timeout, bearer_token_file, basic_auth, tls_config, external_labels, url, resend_delay, evaluation_interval, keep_firing_for)" "$TMP/cfg.err"
printf 'timeout: 2s\n' >"$TMP/nourl.yml"
"$VIGIL" --root "$ROOT" --gpu none --quiet --log-dir "$TMP/logbad" \
	--alertmanager-config "$TMP/nourl.yml" --count 1 >"$TMP/nourl.out" 2>"$TMP/nourl.err"
check "config without url: vigil stops" test $? -ne 0
check "config without url: says so" grep -q "alertmanager config $TMP/nourl.yml has no url, and --alertmanager is not given" "$TMP/nourl.err"
