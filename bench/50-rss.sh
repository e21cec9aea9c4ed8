#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Peak resident memory (VmHWM of /proc/PID/status, read just before the process is
# stopped) of vigil in its configurations, of the reference Pi monitor running its own
# main loop, and of node_exporter, all measured the same way in one run. Each runs
# RSS_SECONDS; the HTTP servers are scraped 20 times first. RssAnon/RssFile (current,
# not peak) show what the peak is made of: file pages are mostly shared libraries.
#
# --listen: plain HTTP is served by vigil's own transport (src/web/http_plain.c), so it
# maps no TLS library. With TLS, libmicrohttpd links GnuTLS, and its library constructor
# MHD_init calls gnutls_global_init() (libmicrohttpd 0.9.75, src/microhttpd/daemon.c:
# MHD_init and _SET_INIT_AND_DEINIT_FUNCS (MHD_init, MHD_fini)). The script prints where
# the --listen difference lies, mapping by mapping.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
SECS=${RSS_SECONDS:-4}
NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter || true)}
out=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT
scrape() { # PORT N [https]: N scrapes once /metrics answers
	"$PY" - "$1" "$2" "${3:-http}" <<'PY'
import base64, http.client, ssl, sys, time
port, n, scheme = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hdr = {'Accept-Encoding': 'gzip'}
if scheme == 'https':
    hdr['Authorization'] = 'Basic ' + base64.b64encode(b'prometheus:secret').decode()
for _ in range(100):
    try:
        if scheme == 'https':
            c = http.client.HTTPSConnection('127.0.0.1', port, timeout=2,
                                            context=ssl._create_unverified_context())
        else:
            c = http.client.HTTPConnection('127.0.0.1', port, timeout=2)
        for _ in range(n):
            c.request('GET', '/metrics', headers=hdr)
            r = c.getresponse()
            r.read()
            if r.status != 200:
                sys.exit(1)
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
}
# measure LABEL PORT|- COMMAND...: run, scrape PORT if given (SCHEME=https: over TLS),
# read VmHWM, stop. Each mapping's resident kB goes to $out/maps/LABEL.
measure() {
	local label=$1 port=$2
	shift 2
	"$@" >/dev/null 2>"$out/err" &
	local pid=$!
	pids+=("$pid")
	sleep "$SECS"
	[ "$port" = - ] || scrape "$port" 20 "${SCHEME:-http}" ||
		bench_fail "$label: no /metrics answer"
	if [ ! -r "/proc/$pid/status" ]; then
		bench_fail "$label exited early: $(tail -1 "$out/err")"
	fi
	awk -v l="$label" '/^VmHWM/ {h = $2} /^RssAnon/ {a = $2} /^RssFile/ {f = $2}
		/^RssShmem/ {s = $2} END {
		printf "  %-44s %6.2f MB peak  (now: anon %.2f, file %.2f, shmem %.2f MB)\n",
			l, h / 1024, a / 1024, f / 1024, s / 1024 }' "/proc/$pid/status"
	awk -v l="$label" '/^VmHWM/ {print l "|" $2}' "/proc/$pid/status" >>"$out/peaks"
	mkdir -p "$out/maps"
	awk '/^[0-9a-f]+-[0-9a-f]+ / {n = $6 == "" ? "[anon]" : $6; sub(".*/", "", n)}
		/^Rss:/ {r[n] += $2} END {for (n in r) print n, r[n]}' "/proc/$pid/smaps" \
		>"$out/maps/$label"
	if [ -n "${BREAKDOWN:-}" ]; then # the largest mappings by resident size
		awk '/^[0-9a-f]+-[0-9a-f]+ / {n = $6 == "" ? "[anon]" : $6; sub(".*/", "", n)}
			/^Rss:/ {r[n] += $2} END {for (n in r) if (r[n] >= 64) print r[n], n}' \
			"/proc/$pid/smaps" | sort -rn | head -12 |
			awk '{s = s sprintf("%s %d, ", $2, $1)} END {print "      kB: " s}'
		BREAKDOWN=
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

V=("$B/vigil" --no-log --quiet --interval 0.1)
pi=(--root "$PWD/tests/fixtures/pi4-healthy")
echo "-- vigil (sampling at 100 ms)"
BREAKDOWN=1 measure "vigil host" - "${V[@]}"
p=$(bench_free_port)
measure "vigil host --listen" "$p" "${V[@]}" --listen "127.0.0.1:$p"
# TLS and basic auth: the test-only bcrypt hash (cost 4) of "secret" that
# tests/integration/http.sh uses.
# shellcheck disable=SC2016 # a literal hash
HASH='$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG'
cp tests/fixtures/tls/cert.pem tests/fixtures/tls/key.pem "$out/"
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prometheus: "%s"\n' \
	"$out/cert.pem" "$out/key.pem" "$HASH" >"$out/web.yml"
p=$(bench_free_port)
SCHEME=https measure "vigil host --listen, TLS + basic auth" "$p" "${V[@]}" \
	--listen "127.0.0.1:$p" --web-config "$out/web.yml"
[ -x "$B/bench/tls_rss" ] || bench_fail "$B/bench/tls_rss is not built (make bench)"
"$B/bench/tls_rss" >"$out/tls_rss" || bench_fail "$B/bench/tls_rss failed"
awk '{kb[$1] = $2} END {
		printf "  libmicrohttpd in a bare process (%s), VmRSS growth: %d kB mapping GnuTLS and what it links, %d kB its gnutls_global_init() (called by libmicrohttpd\047s constructor, TLS or not), %d kB libmicrohttpd itself\n",
		       "bench/tls_rss.c", kb["gnutls_map_kb"], kb["gnutls_init_kb"], kb["mhd_kb"] }' "$out/tls_rss"
measure "vigil host + Pi (pi4-healthy fixture)" - "${V[@]}" "${pi[@]}"
p=$(bench_free_port)
measure "vigil host + Pi --listen" "$p" "${V[@]}" "${pi[@]}" --listen "127.0.0.1:$p"
bench_need_gpu_source
for scn in healthy-1gpu healthy-8gpu; do
	export VIGIL_NVML_SCENARIO=$PWD/tests/nvml-sim/scenarios/$scn
	g=(--nvml "$PWD/$B/nvml-sim/libnvidia-ml.so.1")
	measure "vigil host + $scn (simulated NVML)" - "${V[@]}" "${g[@]}"
	p=$(bench_free_port)
	measure "vigil host + $scn --listen" "$p" "${V[@]}" "${g[@]}" --listen "127.0.0.1:$p"
done
unset VIGIL_NVML_SCENARIO

echo "-- the others"
bench_find_seed
if [ -n "$seed" ] && "$PY" -c 'import psutil' 2>/dev/null; then
	bench_monitor_script "$seed" "$out/monitor_player.py"
	PATH="$PWD/tests/fixtures/bin:$PATH" measure "reference monitor_player.py (0.2 s loop)" - \
		"$PY" "$out/monitor_player.py" --interval 0.2 --quiet
else
	bench_fail "the reference monitor: seeds/004_*.txt (set SEEDS=DIR) or python3-psutil missing"
fi
if [ -n "$NE" ]; then
	p=$(bench_free_port)
	measure "node_exporter, the 6 host collectors" "$p" "$NE" --web.listen-address="127.0.0.1:$p" \
		--collector.disable-defaults --collector.cpu --collector.meminfo --collector.loadavg \
		--collector.hwmon --collector.thermal_zone --collector.cpufreq
	p=$(bench_free_port)
	measure "node_exporter, default collectors" "$p" "$NE" --web.listen-address="127.0.0.1:$p"
else
	bench_fail "node_exporter is not installed (Debian package prometheus-node-exporter)"
fi
"$PY" - "$out/peaks" "$out/maps" <<'PY'
import os, sys
try:
    peak = dict(line.rstrip('\n').split('|') for line in open(sys.argv[1]))
except FileNotFoundError:
    sys.exit('nothing was measured')
mb = {k: int(v) / 1024 for k, v in peak.items()}
gpu = mb.get('vigil host + healthy-1gpu (simulated NVML)')
gpu_l = mb.get('vigil host + healthy-1gpu --listen')
if gpu is not None:
    print(f"target: vigil host + 1 GPU under 4 MB: {gpu:.2f} MB "
          f"({'met' if gpu < 4 else 'MISSED'}); with --listen {gpu_l:.2f} MB "
          f"({'met' if gpu_l < 4 else 'MISSED'})")
elif 'vigil host' in mb:
    print(f"target: vigil host + 1 GPU under 4 MB: not measured (no GPU source); "
          f"host alone {mb['vigil host']:.2f} MB ({'under' if mb['vigil host'] < 4 else 'OVER'} 4 MB)")
# --listen without TLS against the same run without it, mapping by mapping.
def maps(label):
    try:
        return {n: int(kb) for n, kb in (l.rsplit(' ', 1) for l in open(os.path.join(sys.argv[2], label)))}
    except FileNotFoundError:
        return None
TLS_STACK = ('libgnutls', 'libp11-kit', 'libnettle', 'libhogweed', 'libgmp', 'libtasn1',
             'libidn2', 'libunistring', 'libffi')
def group(name):
    if name.startswith(TLS_STACK):
        return 'GnuTLS and what it links'
    if name.startswith('libmicrohttpd'):
        return 'libmicrohttpd'
    if name in ('[heap]', '[anon]'):
        return name
    return 'the rest'
base, lis, tls = (maps(l) for l in ('vigil host', 'vigil host --listen',
                                    'vigil host --listen, TLS + basic auth'))
if base is not None and lis is not None:
    h, hl = mb['vigil host'], mb['vigil host --listen']
    print(f"target: vigil host --listen without TLS under 4 MB: {hl:.2f} MB "
          f"({'met' if hl < 4 else 'MISSED'}); without --listen {h:.2f} MB"
          + (f"; with TLS + basic auth {mb['vigil host --listen, TLS + basic auth']:.2f} MB"
             if tls is not None else ''))
    diff = {}
    for n in set(base) | set(lis):
        g = group(n)
        diff[g] = diff.get(g, 0) + lis.get(n, 0) - base.get(n, 0)
    print('  --listen adds (resident kB): ' +
          ', '.join(f'{g} {kb:+d}' for g, kb in sorted(diff.items(), key=lambda x: -x[1])))
    stack = sorted(((lis[n], n) for n in lis if n.startswith(TLS_STACK)), reverse=True)
    print('  GnuTLS and what it links (kB): ' + ', '.join(f'{n} {kb}' for kb, n in stack))
for other in ('reference monitor_player.py (0.2 s loop)', 'node_exporter, the 6 host collectors'):
    if other in mb and 'vigil host' in mb and 'vigil host + Pi --listen' in mb:
        print(f"  {other}: {mb[other]:.2f} MB = {mb[other] / mb['vigil host']:.1f}x vigil host, "
              f"{mb[other] / mb['vigil host + Pi --listen']:.1f}x vigil host + Pi --listen")
PY
