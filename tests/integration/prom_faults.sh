#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Remote-write faults against a receiver the test controls (tests/prometheus/
# fake_receiver.py): 500s, 429 with Retry-After, a 400, a receiver that stalls in the
# middle of a request, wrong credentials, TLS that does not verify, an unreachable URL,
# a full disk and a read-only directory under the queue. Each time: one clear message,
# sampling and local logging go on, and what the receiver finally accepts is every host
# sample once (or the refused batch, counted).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"
. "$TOP/tests/faults/helpers.sh"

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi
RQ="$TOP/tests/prometheus/requests.py"
TLS="$FIXTURES/tls"
MOUNTS=()
cleanup_mounts() { for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done; }

# recv NAME [CERT KEY CA]: start a receiver in $TMP/NAME.r; sets RPORT, RDIR.
recv() {
	local name=$1
	shift
	RDIR="$TMP/$name.r"
	RPORT=$(free_port)
	mkdir -p "$RDIR"
	echo ok >"$RDIR/mode"
	python3 "$TOP/tests/prometheus/fake_receiver.py" "$RPORT" "$RDIR" "$@" 2>"$RDIR/err" &
	PROM_PIDS+=($!)
	disown $! # killed by the EXIT trap without a "Killed" line
	for _ in $(seq 100); do [ -e "$RDIR/ready" ] && return 0; sleep 0.1; done
	return 1
}
mode() { echo "$1" >"$RDIR/mode"; }
nreq() { [ -e "$RDIR/requests.log" ] && python3 "$RQ" "$RDIR/requests.log" count "$@" || echo 0; }

# vig NAME URL CONFIG_TEXT [ARGS...]: vigil pushing every host sample (0.2 s) with
# /metrics on a free port; sets VPID, VPORT, LOG.
vig() {
	local name=$1 url=$2
	printf '%b' "$3" >"$TMP/$name.yml"
	shift 3
	VPORT=$(free_port)
	LOG="$TMP/$name.log"
	mkdir -p "$LOG"
	"$VIGIL" --root "$FIXTURES/x86-server" --interval 0.2 --quiet --log-dir "$LOG" \
		--listen "127.0.0.1:$VPORT" --remote-write "$url" --remote-write-config "$TMP/$name.yml" \
		"$@" 2>"$TMP/$name.err" &
	VPID=$!
}
# metric NAME_AND_LABELS: its value on vigil's /metrics (empty when absent).
metric() { curl -s "http://127.0.0.1:$VPORT/metrics" | awk -v s="$1" '$1 == s {print $2}'; }
wait_for() { local t=$1; shift; for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done; return 1; }
# stop_v NAME: SIGTERM, wait; sets N to the host samples vigil says it took.
stop_v() {
	kill -TERM "$VPID"
	wait "$VPID"
	N=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/$1.err")
}
# has_req STATUS MIN: at least MIN requests with STATUS so far.
has_req() { [ "$(nreq "$1")" -ge "$2" ]; }
gt0() { [ -n "$1" ] && python3 -c "import sys; sys.exit(0 if float('$1') > 0 else 1)"; }
BASE='push_interval: 0.2s\ntimeout: 1s\n'

# ---- 500s: backoff, then everything once ----
recv e500
mode 500
vig e500 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
sleep 3
n=$(nreq 500)
check "500: retried, with backoff ($n requests in 3 s, 15 samples queued)" test "$n" -ge 2 -a "$n" -le 8
check "500: counted as retried" gt0 "$(metric vigil_remote_write_samples_retried_total)"
check "500: counted as failed requests" gt0 "$(metric vigil_remote_write_failed_requests_total)"
check "500: one message" test "$(grep -c 'remote-write: cannot push.*HTTP 500' "$TMP/e500.err")" -eq 1
mode ok
check "500: accepted once the receiver recovers" wait_for 20 has_req 204 1
sleep 1
stop_v e500
check_eq "500: every host sample once, in order" "$N" "$(python3 "$RQ" "$RDIR/requests.log" runs)"
check "500: the remote-write headers on every request" \
	test "$(python3 "$RQ" "$RDIR/requests.log" headers)" = 1
labels=$(python3 "$RQ" "$RDIR/requests.log" labels | tr ',' '\n')
check "500: the /metrics labels with instance and job added" \
	bash -c 'for l in __name__ chip cpu instance job source; do grep -qx "$l" <<<"$0" || exit 1; done' "$labels"

# ---- 429 with Retry-After ----
recv e429
mode 429:3
vig e429 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
wait_for 20 has_req 429 1
mode ok
wait_for 20 has_req 204 1
gap=$(python3 "$RQ" "$RDIR/requests.log" gap_after 429)
check "429: the next request waits out Retry-After: 3 (${gap} s)" \
	python3 -c "import sys; sys.exit(0 if float('$gap') >= 2.9 else 1)"
stop_v e429
check_eq "429: every host sample once, in order" "$N" "$(python3 "$RQ" "$RDIR/requests.log" runs)"

# ---- 400: the batch is dropped, counted, said once then summed up ----
recv e400
mode 400
vig e400 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
wait_for 20 has_req 400 1
sleep 0.5
mode ok
check "400: later batches accepted" wait_for 20 has_req 204 1
check "400: samples counted as refused" \
	gt0 "$(metric 'vigil_remote_write_samples_dropped_total{reason="rejected"}')"
stop_v e400
check "400: the first refusal said, the others summed up ($(nreq 400) refused)" \
	test "$(grep -c 'refused .* for good.*HTTP 400' "$TMP/e400.err")" -le 2

# ---- a receiver that stalls in the middle of a request ----
recv stall
mode stall
vig stall "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
wait_for 20 has_req 0 1
r1=$(data_rows "$LOG"/host-*.csv)
sleep 2.5
r2=$(data_rows "$LOG"/host-*.csv)
check "stall: sampling and logging go on ($r1 -> $r2 rows)" test "$r2" -gt "$r1"
check "stall: the request times out, one message" \
	test "$(grep -c 'remote-write: cannot push.*[Tt]imeout\|timed out' "$TMP/stall.err")" -eq 1
mode ok
check "stall: accepted once the receiver answers" wait_for 20 has_req 204 1
sleep 1
stop_v stall
check_eq "stall: every host sample once, in order" "$N" "$(python3 "$RQ" "$RDIR/requests.log" runs)"

# ---- a receiver that takes a batch but answers after the timeout ----
# Frames gather while it answers 500 (the first frame's request), then it takes that
# one and the next, a batch of several frames, late. It refuses, as Prometheus does,
# any request with a sample older than one it stored: a retry that mixes new frames
# into the batch it took is refused whole and loses the new frames; the same request
# again is refused too, and then sent one frame a request, since a refusal proves
# nothing about the rest of a request (tests/integration/prom_queue.sh: across a
# restart).
recv late
printf '500\n500\n500\nok\nlate:2.5\n' >"$RDIR/mode"
vig late "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
wait_for 20 has_req 204 2
sleep 3
mode ok
# Stopped once the sender is back to one frame a push: how many late answers and
# backoffs that takes depends on the machine's pace, not on what is checked.
caught_up() { [ "$(python3 "$RQ" "$RDIR/requests.log" caught_up late:2.5)" = 1 ]; }
wait_for 30 caught_up
sleep 1
stop_v late
check_eq "late answer: every host sample once, in order" "$N" \
	"$(python3 "$RQ" "$RDIR/requests.log" runs)"
check_eq "late answer: the same request sent again, unchanged" 1 \
	"$(python3 "$RQ" "$RDIR/requests.log" same_after late:2.5)"
check "late answer: the batch refused again is sent one frame a request" \
	grep -q 'refused a batch of [0-9]* frames (HTTP 400.*sending them one by one' "$TMP/late.err"
check "late answer: the frames refused one by one are counted" \
	grep -q 'sent one by one: [0-9]* frames refused and dropped' "$TMP/late.err"

# ---- 500 with Retry-After: honoured as for a 429 ----
recv r500
mode 500:3
vig r500 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
wait_for 20 has_req 500 1
mode ok
wait_for 20 has_req 204 1
gap=$(python3 "$RQ" "$RDIR/requests.log" gap_after 500)
check "500 + Retry-After: the next request waits it out (${gap} s)" \
	python3 -c "import sys; sys.exit(0 if float('$gap') >= 2.9 else 1)"
stop_v r500
check_eq "500 + Retry-After: every host sample once, in order" "$N" \
	"$(python3 "$RQ" "$RDIR/requests.log" runs)"

# ---- 404: the URL is wrong, not the data: kept, backed off, said once ----
recv e404
mode 404
vig e404 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
sleep 3
n=$(nreq 404)
check "404: backed off ($n requests in 3 s, 15 samples queued)" test "$n" -ge 2 -a "$n" -le 8
check "404: one message" test "$(grep -c 'remote-write: cannot push.*HTTP 404' "$TMP/e404.err")" -eq 1
check "404: nothing dropped" \
	test "$(metric 'vigil_remote_write_samples_dropped_total{reason="rejected"}')" = 0
mode ok
check "404: accepted once the receiver is there" wait_for 20 has_req 204 1
sleep 1
stop_v e404
check_eq "404: every host sample once, in order" "$N" "$(python3 "$RQ" "$RDIR/requests.log" runs)"

# ---- the machine's identity: machine_id from /etc/machine-id, none before first boot ----
for kind in uninit good; do
	recv "id-$kind"
	cp -a "$FIXTURES/x86-server" "$TMP/$kind-root"
	mkdir -p "$TMP/$kind-root/etc"
	if [ "$kind" = good ]; then
		echo 0123456789abcdef0123456789abcdef >"$TMP/$kind-root/etc/machine-id"
	else
		echo uninitialized >"$TMP/$kind-root/etc/machine-id"
	fi
	vig "id-$kind" "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --root "$TMP/$kind-root"
	wait_for 20 has_req 204 1
	stop_v "id-$kind"
	labels=$(python3 "$RQ" "$RDIR/requests.log" labels)
	if [ "$kind" = good ]; then
		check "machine-id: pushed series carry machine_id" grep -q ',machine_id,' <<<"$labels"
		check "machine-id: no warning when it is there" \
			bash -c "! grep -q 'no machine ID' '$TMP/id-$kind.err'"
	else
		check "machine-id uninitialized: no machine_id label" bash -c "! grep -q machine_id <<<'$labels'"
		check "machine-id uninitialized: one warning saying why" test "$(grep -c \
			'remote-write: no machine ID in /etc/machine-id (empty or uninitialized' "$TMP/id-$kind.err")" -eq 1
	fi
done

# ---- the cursor: made durable every sync, rewritten after a failure ----
# A directory in the way of cursor.tmp makes every cursor write fail, as a full disk
# does. (1) The receiver down meanwhile, so no batch commits: once the way is clear
# the sync writes the cursor, and a restart after kill -9 sends nothing twice.
recv cursor
vig cur1 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
QD="$LOG/remote-write"
wait_for 20 has_req 204 3
mkdir "$QD/cursor.tmp"
check "cursor: one message when it cannot be written" \
	wait_for 10 grep -q 'remote-write: cannot make the queue in .* durable' "$TMP/cur1.err"
mode 500
wait_for 20 has_req 500 1
rmdir "$QD/cursor.tmp"
check "cursor: written again once it can be, without a commit" \
	wait_for 10 grep -q 'remote-write: the queue in .* is durable again' "$TMP/cur1.err"
kill -9 "$VPID"
wait "$VPID" 2>/dev/null
n0=$(nreq)
mode ok
vig cur2 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --log-dir "$LOG"
wait_for 20 has_req 204 $(($(nreq 204) + 3))
stop_v cur2
check_eq "cursor: after the restart, no sample sent twice" 0 "$(python3 "$RQ" "$RDIR/requests.log" dups)"
check_eq "cursor: after the restart, no request refused" 0 "$(nreq 400)"
check "cursor: what waited under the 500s arrives, then the new run" \
	bash -c "python3 '$RQ' '$RDIR/requests.log' runs | grep -Eq '^[0-9]+ $N\$'"
# (2) Killed while the cursor is stale: the restart sends delivered frames again. The
# receiver refuses them (Prometheus: out of order); sent one by one, only those are
# dropped, not the frames of the new run in the same batch.
recv stale
vig cur3 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
QD="$LOG/remote-write"
wait_for 20 has_req 204 3
mkdir "$QD/cursor.tmp"
wait_for 20 has_req 204 $(($(nreq 204) + 5))
kill -9 "$VPID"
wait "$VPID" 2>/dev/null
rmdir "$QD/cursor.tmp"
printf '500\nok\n' >"$RDIR/mode"
vig cur4 "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --log-dir "$LOG"
wait_for 20 has_req 204 $(($(nreq 204) + 5))
sleep 1
stop_v cur4
check "stale cursor: every frame of both runs once, in order" \
	bash -c "python3 '$RQ' '$RDIR/requests.log' runs | grep -Eq '^[0-9]+ $N\$'"
check "stale cursor: said so once" \
	test "$(grep -c 'sending them one by one' "$TMP/cur4.err")" -eq 1

# ---- the fsync cadence: the queue synced every --sync-interval, not every frame ----
if build_shim 2>/dev/null; then
	recv sync
	FAULT_MATCH=remote-write FAULT_LOG="$TMP/sync.faults" LD_PRELOAD="$TMP/shim.so" \
		vig sync "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --sync-interval 1
	sleep 4
	stop_v sync
	touch "$TMP/sync.faults"
	segs=$(grep -c '^fdatasync .*/seg-' "$TMP/sync.faults")
	curs=$(grep -c '^fdatasync .*/cursor.tmp' "$TMP/sync.faults")
	check "sync: the segment is fdatasync'ed (${segs}x in ~4 s, $N frames)" test "$segs" -ge 2 -a "$segs" -le 7
	check "sync: the cursor is fdatasync'ed (${curs}x in ~4 s)" test "$curs" -ge 2 -a "$curs" -le 7
else
	not_ok "sync: build the fault shim"
fi

# ---- credentials ----
recv auth
mode "auth:Basic $(printf 'player:right' | base64)"
echo wrong >"$TMP/wrong.pw"
vig authbad "http://127.0.0.1:$RPORT/api/v1/write" "${BASE}basic_auth:\n  username: player\n  password_file: $TMP/wrong.pw\n"
wait_for 20 has_req 401 2
sleep 1
check "auth: a wrong password, one clear message" \
	test "$(grep -c 'refused the credentials' "$TMP/authbad.err")" -eq 1
check "auth: the samples stay queued, not dropped" \
	gt0 "$(metric vigil_remote_write_queue_samples)"
stop_v authbad
echo right >"$TMP/right.pw"
vig authok "http://127.0.0.1:$RPORT/api/v1/write" "${BASE}basic_auth:\n  username: player\n  password_file: $TMP/right.pw\n" \
	--log-dir "$TMP/authbad.log"
check "auth: the right password is accepted" wait_for 20 has_req 204 1
sleep 0.5
stop_v authok
# The queue of the refused run goes first: both runs arrive whole.
check "auth: what waited under the wrong password arrives" \
	bash -c "python3 '$RQ' '$RDIR/requests.log' runs | grep -Eq '^[0-9]+ $N\$'"
mode "auth:Bearer tok-123"
printf 'tok-123\n' >"$TMP/token"
vig bearer "http://127.0.0.1:$RPORT/api/v1/write" "${BASE}bearer_token_file: $TMP/token\n"
n0=$(nreq 204)
check "auth: a bearer token is accepted" wait_for 20 has_req 204 $((n0 + 1))
stop_v bearer

# ---- TLS ----
recv tls "$TLS/cert.pem" "$TLS/key.pem" "$TLS/cert.pem"
vig tlsbad "https://127.0.0.1:$RPORT/api/v1/write" 'push_interval: 0.2s\ntimeout: 5s\n'
check "tls: a certificate that does not verify, one clear message" \
	wait_for 20 grep -q 'remote-write: cannot push.*certificate' "$TMP/tlsbad.err"
sleep 1
check "tls: ... and only one" test "$(grep -c 'remote-write: cannot push.*certificate' "$TMP/tlsbad.err")" -eq 1
stop_v tlsbad
vig tlsok "https://127.0.0.1:$RPORT/api/v1/write" \
	"${BASE}tls_config:\n  ca_file: $TLS/cert.pem\n  cert_file: $TLS/cert.pem\n  key_file: $TLS/key.pem\n"
check "tls: with the CA file and a client certificate, accepted" wait_for 20 has_req 204 1
stop_v tlsok

# ---- an unreachable URL and bad settings ----
vig unreach "http://127.0.0.1:$(free_port)/api/v1/write" "$BASE"
sleep 2
check "unreachable: one clear message" \
	test "$(grep -c 'remote-write: cannot push.*Failed to connect' "$TMP/unreach.err")" -eq 1
check "unreachable: sampling goes on" test "$(data_rows "$LOG"/host-*.csv)" -gt 3
stop_v unreach
"$VIGIL" --count 1 --quiet --log-dir "$TMP/bad" --remote-write ftp://x 2>"$TMP/badurl.err"
check_eq "bad URL: exit status 2" 2 $?
check "bad URL: says why" grep -q "is not an http:// or https:// URL" "$TMP/badurl.err"
printf 'bearer_token_file: /nonexistent/token\n' >"$TMP/notoken.yml"
"$VIGIL" --count 1 --quiet --log-dir "$TMP/bad" --remote-write http://127.0.0.1:1/ \
	--remote-write-config "$TMP/notoken.yml" 2>"$TMP/notoken.err"
check_eq "missing token file: exit status 2" 2 $?
check "missing token file: says which" grep -q "bearer_token_file /nonexistent/token: No such file" "$TMP/notoken.err"
printf '[vigil]\nremote-write = http://127.0.0.1:1/ini\n' >"$TMP/vigil.ini"
"$VIGIL" --config "$TMP/vigil.ini" --count 2 --interval 0.05 --quiet --log-dir "$TMP/ini" 2>"$TMP/ini.err"
check "config file: remote-write key" grep -q 'remote-write: pushing to http://127.0.0.1:1/ini' "$TMP/ini.err"
printf 'push_interval: often\n' >"$TMP/badcfg.yml"
"$VIGIL" --count 1 --quiet --log-dir "$TMP/bad" --remote-write http://127.0.0.1:1/ \
	--remote-write-config "$TMP/badcfg.yml" 2>"$TMP/badcfg.err"
check "bad config: exit 2 naming the line" \
	bash -c "[ $? -eq 2 ] && grep -q 'badcfg.yml: line 1: push_interval' '$TMP/badcfg.err'"

# ---- the queue's disk: full, read-only (root: tmpfs mounts) ----
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: full and read-only queue disks need root (tmpfs mounts)"
	exit 0
fi
trap 'cleanup_mounts; for p in "${PROM_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
recv disk
mkdir -p "$TMP/full.log"
if mount -t tmpfs -o size=2m vigil-rw-full "$TMP/full.log"; then
	MOUNTS+=("$TMP/full.log")
	vig full "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --min-disk-mb 0 --log-dir "$TMP/full.log"
	wait_for 20 has_req 204 1
	dd if=/dev/zero of="$TMP/full.log/filler" bs=64k 2>/dev/null
	sleep 2
	s1=$(metric 'vigil_samples_total{source="host"}')
	sleep 1
	s2=$(metric 'vigil_samples_total{source="host"}')
	check "full disk: one clear message" \
		test "$(grep -c 'remote-write: cannot queue samples in .*No space left on device' "$TMP/full.err")" -eq 1
	check "full disk: sampling goes on ($s1 -> $s2)" test "${s2:-0}" -gt "${s1:-0}"
	check "full disk: samples counted as not queued" \
		gt0 "$(metric 'vigil_remote_write_samples_dropped_total{reason="queue_write_error"}')"
	rm -f "$TMP/full.log/filler"
	check "full disk: queueing again once there is room" \
		wait_for 20 grep -q 'remote-write: queueing samples in .* again' "$TMP/full.err"
	stop_v full
else
	not_ok "full disk: mount a tmpfs"
fi
mkdir -p "$TMP/ro.log/remote-write"
if mount -t tmpfs -o ro,size=1m vigil-rw-ro "$TMP/ro.log/remote-write"; then
	MOUNTS+=("$TMP/ro.log/remote-write")
	vig ro "http://127.0.0.1:$RPORT/api/v1/write" "$BASE" --log-dir "$TMP/ro.log"
	sleep 2
	check "read-only queue: one clear message" \
		test "$(grep -c 'remote-write: cannot use the queue directory .*Read-only file system' "$TMP/ro.err")" -eq 1
	check "read-only queue: local logging goes on" test "$(data_rows "$TMP/ro.log"/host-*.csv)" -gt 3
	stop_v ro
else
	not_ok "read-only queue: mount a tmpfs"
fi

# ---- upgrade: a queue written by a vigil before sample records (text lines) ----
# One record as push/rw_queue.c wrote it then: the 24-byte header (magic "VRW1", payload
# length, ts_ms, samples, FNV-1a of the payload; host byte order) and the frame's
# /metrics sample lines, snappy-compressed (block format, literals only: a valid
# encoding, github.com/google/snappy format_description.txt, section 2.1).
recv upgrade
mkdir -p "$TMP/upgrade.log/remote-write"
python3 - "$TMP/upgrade.log/remote-write/seg-0000000000000001.q" <<'PY'
import struct, sys, time
text = b'vigil_upgrade_probe{upgrade_probe="old \\"queue\\""} 42\nvigil_load1 0.5\n'
def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
assert 60 < len(text) <= 256
comp = varint(len(text)) + bytes([60 << 2, len(text) - 1]) + text  # one literal, 1-byte length
h = 2166136261
for c in comp:
    h = ((h ^ c) * 16777619) & 0xFFFFFFFF
ts = int(time.time() * 1000) - 5000
open(sys.argv[1], "wb").write(struct.pack("<IIqII", 0x31575256, len(comp), ts, 2, h) + comp)
PY
vig upgrade "http://127.0.0.1:$RPORT/api/v1/write" "$BASE"
has_label() { [ -e "$RDIR/requests.log" ] && python3 "$RQ" "$RDIR/requests.log" labels | grep -q "$1"; }
check "upgrade: the old queue's record is sent" wait_for 20 has_label upgrade_probe
check "upgrade: new frames are sent after it" wait_for 20 has_req 204 2
check "upgrade: nothing refused" test "$(grep -c 'refused\|cannot encode' "$TMP/upgrade.err")" -eq 0
stop_v upgrade
