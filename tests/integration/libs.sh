#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Shared libraries in memory: a run without --listen maps none of the HTTP stack
# (libmicrohttpd and the GnuTLS libraries behind it, zlib, libcrypt) nor libsystemd;
# --listen without TLS maps neither libmicrohttpd nor GnuTLS (vigil serves plain HTTP
# itself), a web config with users opens libcrypt, the first response worth compressing
# zlib, and only a web config with TLS opens libmicrohttpd; --remote-write opens libcurl
# and snappy; --alertmanager libcurl alone.
. "$(dirname "$0")/../lib.sh"

HASH='$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG' # "secret", cost 4
ROOT_ARGS=()
[ -d "$FIXTURES/x86-server" ] && ROOT_ARGS=(--root "$FIXTURES/x86-server")

# mapped PID NAME: true when the process maps a library whose file name starts NAME.
mapped() {
	grep -q "/$2[.-]" "/proc/$1/maps"
}

"$VIGIL" --no-log --quiet --interval 0.1 --duration 30 2>"$TMP/plain.err" &
pid=$!
sleep 0.5
for lib in libmicrohttpd libgnutls libsystemd libz libcrypt libcurl libsnappy libssl; do
	check "without --listen: $lib not mapped" bash -c "! grep -q '/$lib[.-]' /proc/$pid/maps"
done
kill -TERM "$pid"
wait "$pid"
check_eq "without --listen: exits 0" 0 $?

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'basic_auth_users:\n  prometheus: %s\n' "$HASH" >"$TMP/web.yml"
"$VIGIL" --no-log --quiet --interval 0.1 --duration 60 "${ROOT_ARGS[@]}" \
	--listen "127.0.0.1:$port" --web-config "$TMP/web.yml" 2>"$TMP/listen.err" &
pid=$!
for _ in $(seq 100); do
	grep -q serving "$TMP/listen.err" && break
	sleep 0.1
done
for lib in libmicrohttpd libgnutls; do
	check "--listen without TLS: $lib not mapped" bash -c "! grep -q '/$lib[.-]' /proc/$pid/maps"
done
check "--listen with users: libcrypt mapped" mapped "$pid" libcrypt
check "--listen: zlib not mapped before a gzip response" bash -c "! grep -q '/libz[.-]' /proc/$pid/maps"
check "--listen: libsystemd not mapped" bash -c "! grep -q '/libsystemd[.-]' /proc/$pid/maps"
code=$(curl -s -u prometheus:secret -H 'Accept-Encoding: gzip' -D "$TMP/h" -o "$TMP/b" \
	-w '%{http_code}' "http://127.0.0.1:$port/metrics")
check_eq "--listen: authenticated scrape" 200 "$code"
if grep -qi '^Content-Encoding: gzip' "$TMP/h"; then
	check "gzip response: zlib mapped" mapped "$pid" libz
	check "gzip response inflates" bash -c "gzip -dc '$TMP/b' | grep -q '^vigil_build_info'"
else
	check "small response: zlib still not mapped" bash -c "! grep -q '/libz[.-]' /proc/$pid/maps"
fi
kill -TERM "$pid"
wait "$pid"
check_eq "--listen: exits 0" 0 $?

# --listen with TLS: libmicrohttpd, and GnuTLS behind it.
if [ -r "$TOP/tests/fixtures/tls/cert.pem" ]; then
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$TOP/tests/fixtures/tls/cert.pem" "$TOP/tests/fixtures/tls/key.pem" >"$TMP/tls.yml"
	"$VIGIL" --no-log --quiet --interval 0.1 --duration 60 "${ROOT_ARGS[@]}" \
		--listen "127.0.0.1:$port" --web-config "$TMP/tls.yml" 2>"$TMP/tls.err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q serving "$TMP/tls.err" && break
		sleep 0.1
	done
	check "--listen with TLS: libmicrohttpd mapped" mapped "$pid" libmicrohttpd
	check "--listen with TLS: libgnutls mapped" mapped "$pid" libgnutls
	check_eq "--listen with TLS: scrape over HTTPS" 200 \
		"$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/metrics")"
	kill -TERM "$pid"
	wait "$pid"
	check_eq "--listen with TLS: exits 0" 0 $?
fi

# --remote-write: libcurl and snappy, and only then (the receiver need not exist).
"$VIGIL" --quiet --interval 0.1 --duration 60 --log-dir "$TMP/rw" "${ROOT_ARGS[@]}" \
	--remote-write "http://127.0.0.1:$port/api/v1/write" 2>"$TMP/rw.err" &
pid=$!
for _ in $(seq 100); do
	grep -q 'remote-write: pushing' "$TMP/rw.err" && break
	sleep 0.1
done
check "--remote-write: libcurl mapped" mapped "$pid" libcurl
check "--remote-write: libsnappy mapped" mapped "$pid" libsnappy
check "--remote-write: libmicrohttpd not mapped" bash -c "! grep -q '/libmicrohttpd[.-]' /proc/$pid/maps"
kill -TERM "$pid"
wait "$pid"
check_eq "--remote-write: exits 0" 0 $?

# --alertmanager: libcurl, not snappy (the Alertmanager need not exist).
"$VIGIL" --quiet --interval 0.1 --duration 60 --log-dir "$TMP/am" "${ROOT_ARGS[@]}" \
	--alertmanager "http://127.0.0.1:$port" 2>"$TMP/am.err" &
pid=$!
for _ in $(seq 100); do
	grep -q 'alertmanager: alerts to' "$TMP/am.err" && break
	sleep 0.1
done
check "--alertmanager: libcurl mapped" mapped "$pid" libcurl
check "--alertmanager: libsnappy not mapped" bash -c "! grep -q '/libsnappy[.-]' /proc/$pid/maps"
kill -TERM "$pid"
wait "$pid"
check_eq "--alertmanager: exits 0" 0 $?
