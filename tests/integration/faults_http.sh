#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input: HTTP clients against --listen, beyond what http.sh covers (405 for
# POST/PUT, 40 KiB of headers, 110 held connections): malformed request lines, 1 MB of
# headers, random bytes, every other method, path tricks and a 100 KB URL, 200 idle
# connections, slowloris at a byte a second. Each gets an error status or a closed
# connection, never a file and never a hang; a real scrape still answers 200 after
# each round, and the daemon exits 0 at the end.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
"$VIGIL" --no-log --quiet --interval 0.1 --duration 300 --root "$FIXTURES/x86-server" \
	--nvml /nonexistent --listen "127.0.0.1:$PORT" 2>"$TMP/err" &
PID=$!
scrape() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$URL/metrics"; }
wait_until 20 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 '$URL/metrics')\" = 200 ]"

# raw NAME: send stdin's bytes on one connection, print the status code or "closed".
cat >"$TMP/raw.py" <<'PY'
import socket, sys
port, data = int(sys.argv[1]), sys.stdin.buffer.read()
s = socket.create_connection(("127.0.0.1", port), timeout=15)
try:
    s.sendall(data)
except OSError:
    pass
buf = b""
try:
    while b"\r\n\r\n" not in buf and len(buf) < 1 << 20:
        b = s.recv(65536)
        if not b:
            break
        buf += b
    head, _, body = buf.partition(b"\r\n\r\n")
    clen = [l.split(b":", 1)[1] for l in head.lower().split(b"\r\n") if l.startswith(b"content-length:")]
    want = len(head) + 4 + int(clen[0]) if clen else 1 << 20
    while len(buf) < want:  # the body too, to look for leaked files
        b = s.recv(65536)
        if not b:
            break
        buf += b
except socket.timeout:
    print("hang"); sys.exit()
except OSError:
    pass
line = buf.split(b"\r\n", 1)[0].split()
print(line[1].decode() if len(line) > 1 and buf.startswith(b"HTTP/") else "closed")
if b"root:" in buf or b"/bin/" in buf:
    print("LEAK")
PY
raw() { python3 "$TMP/raw.py" "$PORT"; }
# expect NAME REGEX: the status printed by raw (stdin: the request) matches REGEX, and
# no file content (a passwd line) came back.
expect() {
	local out
	out=$(raw | tr '\n' ' ')
	if grep -Eqx "($2) " <<<"$out"; then ok "$1 ($out)"; else not_ok "$1: got '$out', want /$2/"; fi
}

printf 'GARBAGE\r\n\r\n' | expect "request line without method or path" '400|closed'
printf 'GET\r\n\r\n' | expect "request line without a path" '400|closed'
printf 'GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n' | expect "HTTP/9.9" '400|505|closed'
printf 'GET /metrics\r\n\r\n' | expect "HTTP/0.9 request" '400|505|closed'
printf 'GET /metrics HTTP/1.1\r\n\r\n' | expect "HTTP/1.1 without Host" '400|closed'
printf '\r\n\r\n\r\n' | expect "empty lines" '400|closed'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n' | expect "header without colon" '400|closed'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n' | expect "negative Content-Length" '400|closed'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' | expect "bad chunk" '400|closed|200'
python3 -c 'import sys; sys.stdout.buffer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX: " + b"a" * (1 << 20) + b"\r\n\r\n")' |
	expect "1 MB header" '431|413|400|closed'
python3 -c 'import sys; sys.stdout.buffer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X: y\r\n" * 100000 + b"\r\n")' |
	expect "100000 headers" '431|413|400|closed'
head -c 65536 /dev/urandom | expect "64 KB of random bytes" '400|closed'
for m in DELETE OPTIONS TRACE PATCH PROPFIND FOO; do
	printf '%s /metrics HTTP/1.1\r\nHost: x\r\n\r\n' "$m" | expect "method $m" '405|400|501'
done
printf 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n' | expect "CONNECT" '405|400|501|closed'
for p in /../etc/passwd /../../../../etc/passwd //metrics /%2e%2e/etc/passwd /%2e%2e%2f%2e%2e/etc/passwd \
	'/..%2fetc/passwd' /metrics%00 '/metrics/../../etc/passwd' '/?../../etc/passwd' '/\\..\\etc\\passwd' \
	/etc/passwd '/metrics?x=%ZZ' '*' 'http://evil/metrics' '/%'; do
	printf 'GET %s HTTP/1.1\r\nHost: x\r\n\r\n' "$p" | expect "path $p" '404|400|200'
done
# An escaped NUL is not the end of the path: /metrics%00 is not /metrics. Other escapes
# are decoded as usual.
printf 'GET %s HTTP/1.1\r\nHost: x\r\n\r\n' '/metrics%00' | expect "path /metrics%00 is a path of its own" '404'
printf 'GET %s HTTP/1.1\r\nHost: x\r\n\r\n' '/metric%73' | expect "path /metric%73 is /metrics" '200'
python3 -c 'import sys; sys.stdout.buffer.write(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")' |
	expect "100 KB URL" '414|431|413|400|closed'
check_eq "scrape after the malformed requests" 200 "$(scrape)"

# 200 idle connections from 127.0.0.1 (the server keeps 16 per address) and 5 slowloris
# clients at a byte a second; meanwhile scrapes from another address answer.
python3 - "$PORT" <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
idle = []
for i in range(200):
    try:
        idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        pass
slow = []
for i in range(5):
    try:
        slow.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        pass
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
for i in range(6):
    for s in slow:
        try:
            s.send(req[i:i + 1])
        except OSError:
            pass
    time.sleep(1)
PY
HOLD=$!
sleep 1.5
check_eq "scrape from 127.0.0.2 during 200 idle + 5 slowloris connections" 200 "$(scrape --interface 127.0.0.2)"
sleep 1
check_eq "second scrape from 127.0.0.2 during them" 200 "$(scrape --interface 127.0.0.2)"
wait "$HOLD"
check_eq "scrape from 127.0.0.1 after they closed" 200 "$(scrape)"

# Slowloris from 8 addresses (127.0.0.2 .. 127.0.0.9): each holds as many connections as
# the server lets it, sends a byte of a head every second and opens a new connection
# whenever one is closed; meanwhile 30 scrapes from 127.0.0.1 must all be answered.
python3 - "$PORT" 12 <<'PY' &
import socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
PER_ADDR = 20
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
conns = {}  # (addr, slot) -> [socket, bytes sent]
def connect(addr):
    s = socket.socket()
    s.settimeout(1)
    try:
        s.bind((addr, 0))
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        return s
    except OSError:
        s.close()
        return None
end = time.monotonic() + secs
while time.monotonic() < end:
    for a in range(2, 10):
        addr = "127.0.0.%d" % a
        for slot in range(PER_ADDR):
            c = conns.get((addr, slot))
            if c is None:
                s = connect(addr)
                if s is None:
                    continue
                c = conns[(addr, slot)] = [s, 0]
            try:
                c[0].send(req[c[1] % len(req):c[1] % len(req) + 1])
                c[1] += 1
                if c[0].recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    raise OSError
            except BlockingIOError:
                pass
            except OSError:
                c[0].close()
                del conns[(addr, slot)]
    time.sleep(0.2)
for c in conns.values():
    c[0].close()
PY
LORIS=$!
sleep 2
answered=0
for i in $(seq 30); do
	[ "$(scrape)" = 200 ] && answered=$((answered + 1))
	sleep 0.2
done
wait "$LORIS"
check_eq "30 scrapes from 127.0.0.1 during slowloris from 8 addresses" 30 "$answered"
check_eq "scrape after the slowloris" 200 "$(scrape)"
check "still running" kill -0 "$PID"
kill -0 "$PID" 2>/dev/null || tail -20 "$TMP/err"
kill -TERM "$PID"
wait "$PID"
check_eq "stops cleanly on SIGTERM" 0 $?
check "no sanitizer report" bash -c "! grep -q 'Sanitizer' '$TMP/err'"
