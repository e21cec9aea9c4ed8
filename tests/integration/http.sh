#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# /metrics over HTTP, end to end against the daemon: headers, gzip, HEAD, refused
# methods and paths, hostile clients (huge headers, idle and slow connections), basic
# auth, TLS, listen addresses, bad web configs. Ports are picked free at run time.
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi

# Test-only bcrypt hash (cost 4) of the password "secret".
HASH='$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG'
ROOT_ARGS=()
[ -d "$FIXTURES/x86-server" ] && ROOT_ARGS=(--root "$FIXTURES/x86-server")

# start_vigil NAME URL_BASE VIGIL_ARGS...: start vigil in the background and wait until
# URL_BASE/metrics answers (any status). Sets PID.
start_vigil() {
	local name=$1 base=$2
	shift 2
	"$VIGIL" --no-log --quiet --interval 0.1 --duration 120 "${ROOT_ARGS[@]}" "$@" \
		2>"$TMP/$name.err" &
	PID=$!
	for _ in $(seq 100); do
		code=$(curl -sk -o /dev/null -w '%{http_code}' "$base/metrics" 2>/dev/null)
		[ "$code" != "000" ] && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_vigil() {
	kill -TERM "$PID" 2>/dev/null
	wait "$PID"
}

# ---- plain HTTP ----
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
if ! start_vigil plain "$URL" --listen "127.0.0.1:$PORT"; then
	not_ok "http: vigil serves on 127.0.0.1:$PORT"
	cat "$TMP/plain.err"
	exit 0
fi
ok "http: vigil serves on 127.0.0.1:$PORT"

# A slow client that sends nothing: the server closes it after its idle timeout.
python3 - "$PORT" >"$TMP/idle.out" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(30)
t = time.monotonic()
try:
    s.recv(1)
except OSError:
    pass
print(int(time.monotonic() - t))
PY
IDLE_PID=$!

out=$(curl -s -D "$TMP/h1" -o "$TMP/b1" -w '%{http_code} %{content_type}' "$URL/metrics")
check_eq "GET /metrics status and content type" "200 text/plain; version=0.0.4; charset=utf-8" "$out"
check "GET /metrics has build_info" grep -qx "vigil_build_info{version=\"$(cat "$TOP/VERSION")\"} 1" "$TMP/b1"
check "GET /metrics has HELP and TYPE" grep -qx '# TYPE vigil_samples_total counter' "$TMP/b1"
s1=$(sed -n 's/^vigil_samples_total{source="host"} //p' "$TMP/b1")
sleep 0.5
s2=$(curl -s "$URL/metrics" | sed -n 's/^vigil_samples_total{source="host"} //p')
check "scrapes show the published frame moving on ($s1 -> $s2)" test "${s2:-0}" -gt "${s1:-0}"

# gzip when accepted and the body is large enough to gain (HTTP_GZIP_MIN_BYTES).
curl -s -H 'Accept-Encoding: gzip' -D "$TMP/h2" -o "$TMP/b2" "$URL/metrics"
check "gzip: Vary: Accept-Encoding" grep -qi '^Vary: Accept-Encoding' "$TMP/h2"
if grep -qi '^Content-Encoding: gzip' "$TMP/h2"; then
	check "gzip: body inflates to metrics" bash -c "gzip -dc '$TMP/b2' | grep -q '^vigil_build_info'"
else
	check "gzip: a small body is sent as it is" test "$(wc -c <"$TMP/b2")" -lt 12288 -a \
		"$(grep -c '^vigil_build_info' "$TMP/b2")" = 1
fi
check "curl --compressed reads it" bash -c "curl -s --compressed '$URL/metrics' | grep -q '^vigil_build_info'"

curl -sI "$URL/metrics" >"$TMP/h3"
check "HEAD: 200" grep -q '^HTTP/1.1 200' "$TMP/h3"
check "HEAD: Content-Length" grep -qi '^Content-Length: [1-9]' "$TMP/h3"

out=$(curl -s -X POST -d x -D "$TMP/h4" -o /dev/null -w '%{http_code}' "$URL/metrics")
check_eq "POST: 405" 405 "$out"
check "POST: Allow header" grep -qi '^Allow: GET, HEAD' "$TMP/h4"
check_eq "PUT: 405" 405 "$(curl -s -X PUT -o /dev/null -w '%{http_code}' "$URL/")"
check_eq "unknown path: 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope")"
check_eq "no file access: 404" 404 \
	"$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$URL/../../etc/passwd")"

# 40 KiB of headers: refused (431) or dropped; then the server still answers.
out=$(python3 - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
pad = b"".join(b"X-Pad-%03d: %s\r\n" % (i, b"0" * 90) for i in range(400))
try:
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + pad + b"\r\n")
except OSError:
    pass
try:
    print(s.recv(64).split(b"\r\n")[0].decode() or "closed")
except OSError:
    print("closed")
PY
)
check "huge headers refused ($out)" grep -Eq '^(HTTP/1.1 431|HTTP/1.1 413|HTTP/1.1 400|closed)' <<<"$out"
check_eq "still answering after huge headers" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")"

# 100 idle connections and 10 slowloris clients from 127.0.0.1 do not keep a scraper at
# another address out.
python3 - "$PORT" <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
held = []
for i in range(100):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        pass
slow = []
for i in range(10):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        slow.append(s)
    except OSError:
        pass
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
for i in range(8):
    for s in slow:
        try:
            s.send(req[i:i + 1])
        except OSError:
            pass
    time.sleep(0.5)
PY
HOLD_PID=$!
sleep 1
out=$(curl -s --interface 127.0.0.2 -o /dev/null -w '%{http_code}' --max-time 5 "$URL/metrics")
check_eq "scrape from another address while 110 connections are held" 200 "$out"
wait "$HOLD_PID"
check_eq "scrape after the held connections" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")"

wait "$IDLE_PID"
idle=$(cat "$TMP/idle.out")
check "idle connection closed by the server after its timeout (${idle}s)" \
	test "${idle:-99}" -ge 5 -a "${idle:-99}" -le 20

stop_vigil
check_eq "stops cleanly on SIGTERM" 0 $?
check "no error or warning logged" bash -c "! grep -Eq 'error:|warning:' '$TMP/plain.err'"

# ---- a bare :PORT listens on loopback only ----
PORT=$(free_port)
if start_vigil bare "http://127.0.0.1:$PORT" --listen ":$PORT"; then
	hex=$(printf '%04X' "$PORT")
	check "bare :PORT binds 127.0.0.1" grep -q " 0100007F:$hex 00000000:0000 0A " /proc/net/tcp
	check "bare :PORT binds nothing else" bash -c "! grep ' 00000000:$hex 00000000:0000 0A ' /proc/net/tcp"
	stop_vigil
else
	not_ok "bare :PORT starts"
fi

# ---- IPv6 ----
if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
	PORT=$(free_port)
	if start_vigil v6 "http://[::1]:$PORT" --listen "[::1]:$PORT"; then
		check_eq "IPv6 [::1]: 200" 200 "$(curl -sg -o /dev/null -w '%{http_code}' "http://[::1]:$PORT/metrics")"
		stop_vigil
	else
		not_ok "IPv6 [::1] starts"
	fi
else
	echo "# skip: no IPv6 loopback"
fi

# ---- basic auth ----
printf 'basic_auth_users:\n  prometheus: %s\n' "$HASH" >"$TMP/auth.yml"
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
if start_vigil auth "$URL" --listen "127.0.0.1:$PORT" --web-config "$TMP/auth.yml"; then
	out=$(curl -s -D "$TMP/h5" -o /dev/null -w '%{http_code}' "$URL/metrics")
	check_eq "auth: no credentials 401" 401 "$out"
	check "auth: WWW-Authenticate" grep -qi '^WWW-Authenticate: Basic realm="vigil"' "$TMP/h5"
	check_eq "auth: wrong password 401" 401 \
		"$(curl -s -u prometheus:wrong -o /dev/null -w '%{http_code}' "$URL/metrics")"
	check_eq "auth: unknown user 401" 401 \
		"$(curl -s -u nobody:secret -o /dev/null -w '%{http_code}' "$URL/metrics")"
	check_eq "auth: right password 200" 200 \
		"$(curl -s -u prometheus:secret -o /dev/null -w '%{http_code}' "$URL/metrics")"
	stop_vigil
else
	not_ok "auth: starts"
	cat "$TMP/auth.err"
fi

# ---- basic auth: wrong passwords are rationed per client address ----
# One client sending wrong passwords as fast as it can (127.0.0.2) gets 429 once its own
# budget is spent; a client at another address (127.0.0.1) whose right password was
# never checked before (so it needs crypt(3) too) is let in while that goes on.
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
if start_vigil auth2 "$URL" --listen "127.0.0.1:$PORT" --web-config "$TMP/auth.yml"; then
	urls=()
	for _ in $(seq 40); do urls+=(-o /dev/null "$URL/metrics"); done
	codes=$(curl -s --interface 127.0.0.2 -u prometheus:wrong -w '%{http_code}\n' "${urls[@]}" |
		sort | uniq -c | tr -s ' \n' ' ')
	check "auth: 40 wrong passwords from one address: 401s, then 429 ($codes)" \
		grep -Eq '^ ?[0-9]+ 401 [0-9]+ 429 $' <<<"$codes"
	# The same client goes on without a pause (its budget refills and is spent again at
	# once), one request after another on a kept-alive connection, for at most 60 s.
	python3 - "$PORT" "$TMP/auth2.codes" <<'PY' &
import base64, socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
req = (b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " +
       base64.b64encode(b"prometheus:wrong") + b"\r\n\r\n")
end = time.monotonic() + 60
s = None
with open(out, "a") as f:
    while time.monotonic() < end:
        try:
            if s is None:
                s = socket.socket()
                s.settimeout(5)
                s.bind(("127.0.0.2", 0))
                s.connect(("127.0.0.1", port))
            s.sendall(req)
            buf = b""
            while b"\r\n\r\n" not in buf:
                b = s.recv(4096)
                if not b:
                    raise OSError
                buf += b
            head, _, body = buf.partition(b"\r\n\r\n")
            clen = int([l.split(b":")[1] for l in head.lower().split(b"\r\n")
                        if l.startswith(b"content-length:")][0])
            while len(body) < clen:
                body += s.recv(4096)
            f.write(head.split(b" ")[1].decode() + "\n")
            f.flush()
        except (OSError, IndexError, ValueError):
            if s:
                s.close()
            s = None
            time.sleep(0.05)
PY
	BAD=$!
	for _ in $(seq 200); do
		grep -q 429 "$TMP/auth2.codes" 2>/dev/null && break
		sleep 0.1
	done
	check_eq "auth: meanwhile another address with the right password 200" 200 \
		"$(curl -s -u prometheus:secret -o /dev/null -w '%{http_code}' "$URL/metrics")"
	kill "$BAD"
	wait "$BAD" 2>/dev/null
	stop_vigil
else
	not_ok "auth2: starts"
	cat "$TMP/auth2.err"
fi

# ---- TLS (with basic auth) ----
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 2 -nodes \
	-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prometheus: "%s"\n' \
	"$HASH" >"$TMP/tls.yml"
PORT=$(free_port)
if start_vigil tls "https://127.0.0.1:$PORT" --listen "127.0.0.1:$PORT" --web-config "$TMP/tls.yml"; then
	out=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
	check "TLS: plain HTTP gets no answer ($out)" test "$out" != 200
	out=$(curl -s --cacert "$TMP/cert.pem" -u prometheus:secret -o "$TMP/b6" -w '%{http_code}' \
		"https://127.0.0.1:$PORT/metrics")
	check_eq "TLS: HTTPS with the certificate 200" 200 "$out"
	check "TLS: HTTPS body" grep -q '^vigil_build_info' "$TMP/b6"
	check_eq "TLS: HTTPS without credentials 401" 401 \
		"$(curl -s --cacert "$TMP/cert.pem" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/metrics")"
	out=$(curl -s --cacert "$TMP/cert.pem" --tls-max 1.1 -u prometheus:secret -o /dev/null \
		-w '%{http_code}' "https://127.0.0.1:$PORT/metrics")
	check "TLS: 1.1 refused ($out)" test "$out" != 200
	# TLS 1.2 offers AEAD suites only: a CBC suite with a SHA-1 MAC is refused.
	check "TLS 1.2: CBC-SHA1 suite refused" bash -c "! echo | timeout 5 openssl s_client -connect 127.0.0.1:$PORT -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA >/dev/null 2>&1"
	check "TLS 1.2: AES-GCM suite taken" bash -c "echo | timeout 5 openssl s_client -connect 127.0.0.1:$PORT -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256 >/dev/null 2>&1"
	# Two Content-Length fields that disagree: 400, as on the plain transport.
	out=$(python3 - "$PORT" "$TMP/cert.pem" <<'PY'
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5),
                    server_hostname="127.0.0.1")
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n")
print(s.recv(64).split(b" ")[1].decode())
PY
)
	check_eq "TLS: two Content-Length fields that disagree 400" 400 "$out"
	# /report is answered from its own thread: the connection is suspended, resumed
	# and answered (no logs here: 404; a bad day: 400), and the next scrape still is.
	check_eq "TLS: /report of a day with no logs 404" 404 \
		"$(curl -s --cacert "$TMP/cert.pem" -u prometheus:secret -o /dev/null -w '%{http_code}' \
			"https://127.0.0.1:$PORT/report?day=2026-01-01")"
	check_eq "TLS: /report of a bad day 400" 400 \
		"$(curl -s --cacert "$TMP/cert.pem" -u prometheus:secret -o /dev/null -w '%{http_code}' \
			"https://127.0.0.1:$PORT/report?day=yesterday")"
	check_eq "TLS: a scrape after the reports 200" 200 \
		"$(curl -s --cacert "$TMP/cert.pem" -u prometheus:secret -o /dev/null -w '%{http_code}' \
			"https://127.0.0.1:$PORT/metrics")"
	stop_vigil
else
	not_ok "TLS: starts"
	cat "$TMP/tls.err"
fi

# ---- an expired certificate: served, and said at start ----
python3 - "$TMP" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "localhost")])
end = datetime.datetime(2025, 1, 31, 12, 0, 0, tzinfo=datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(end - datetime.timedelta(days=30)).not_valid_after(end)
        .sign(key, hashes.SHA256()))
open(sys.argv[1] + "/old-cert.pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM))
open(sys.argv[1] + "/old-key.pem", "wb").write(key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
PY
printf 'tls_server_config:\n  cert_file: old-cert.pem\n  key_file: old-key.pem\n' >"$TMP/old.yml"
PORT=$(free_port)
if start_vigil old "https://127.0.0.1:$PORT" --listen "127.0.0.1:$PORT" --web-config "$TMP/old.yml"; then
	stop_vigil
	check "expired certificate: warned at start" grep -q "TLS certificate .*old-cert.pem expired on 2025-01-31 12:00:00 UTC" "$TMP/old.err"
else
	not_ok "expired certificate: vigil still serves"
	cat "$TMP/old.err"
fi

# ---- refusals at start ----
printf 'basic_auth_users:\n  prometheus: plaintext\n' >"$TMP/bad.yml"
PORT=$(free_port)
"$VIGIL" --no-log --quiet --count 2 --interval 0.05 --listen "127.0.0.1:$PORT" \
	--web-config "$TMP/bad.yml" 2>"$TMP/bad.err"
check "bad web config names file and line" \
	grep -q "$TMP/bad.yml: line 2: the password of 'prometheus' is not a crypt(3) hash" "$TMP/bad.err"
python3 - "$PORT" "$VIGIL" "$TMP/busy.err" <<'PY'
import socket, subprocess, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
with open(sys.argv[3], "w") as err:
    subprocess.run([sys.argv[2], "--no-log", "--quiet", "--count", "2", "--interval", "0.05",
                    "--listen", "127.0.0.1:" + sys.argv[1]], stderr=err)
PY
check "port in use is reported" grep -q "cannot listen on 127.0.0.1:$PORT" "$TMP/busy.err"
