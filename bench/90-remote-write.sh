#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Remote-write cost: the same vigil (x86-server fixture, a frame every 50 ms, each queued
# and pushed: push_interval 50ms) with and without --remote-write, side by side in one
# run: CPU (vigil's own getrusage total from its exit line) and peak RSS (VmHWM) per
# pushed sample; and the queue's bytes per sample with the receiver down. The receiver
# is a minimal python server answering 204 (its own CPU is not counted).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
SECS=${RW_SECONDS:-20}
out=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
python3 - "$port" <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(204); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
sleep 1
printf 'push_interval: 50ms\n' >"$out/rw.yml"
# run NAME ARGS...: vigil for SECS; prints "cpu_s hwm_kb" and keeps stderr in $out/NAME.err
run() {
	local name=$1
	shift
	"$B/vigil" --root tests/fixtures/x86-server --interval 0.05 --quiet --log-dir "$out/$name" \
		"$@" 2>"$out/$name.err" &
	local pid=$!
	pids+=("$pid")
	sleep "$SECS"
	local hwm
	hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
	kill -TERM "$pid"
	wait "$pid" || true
	echo "$(sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p' "$out/$name.err") $hwm"
}
read -r cpu0 hwm0 < <(run plain)
read -r cpu1 hwm1 < <(run push --remote-write "http://127.0.0.1:$port/api/v1/write" \
	--remote-write-config "$out/rw.yml")
sent=$(sed -n 's/.*remote-write: \([0-9]*\) samples sent.*/\1/p' "$out/push.err")
read -r cpu2 hwm2 < <(run down --remote-write "http://127.0.0.1:$(free_port)/api/v1/write" \
	--remote-write-config "$out/rw.yml")
qs=$(sed -n 's/.*; \([0-9]*\) samples (\([0-9]*\) bytes) stay queued.*/\1 \2/p' "$out/down.err")
read -r qsamples qbytes <<<"$qs"
python3 - "$cpu0" "$hwm0" "$cpu1" "$hwm1" "$sent" "$cpu2" "$qsamples" "$qbytes" "$SECS" <<'PY'
import sys
cpu0, hwm0, cpu1, hwm1, sent, cpu2, qs, qb, secs = sys.argv[1:]
cpu0, cpu1, cpu2 = float(cpu0), float(cpu1), float(cpu2)
sent, qs, qb = int(sent), int(qs), int(qb)
print("frames every 50 ms for %s s; samples pushed: %d" % (secs, sent))
print("vigil without push: cpu %.3f s, peak RSS %s kB" % (cpu0, hwm0))
print("vigil pushing:      cpu %.3f s, peak RSS %s kB" % (cpu1, hwm1))
print("push cost: %.2f us CPU per pushed sample (render, queue, read back, encode, "
      "compress, send); peak RSS +%d kB (libcurl, OpenSSL, snappy, buffers)"
      % ((cpu1 - cpu0) / sent * 1e6, int(hwm1) - int(hwm0)))
print("receiver down: cpu %.3f s; queue %d bytes for %d samples: %.2f bytes per sample"
      % (cpu2, qb, qs, qb / qs))
PY
