#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The remote-write queue across restarts and on a damaged or full disk, against a
# receiver the test controls (tests/prometheus/fake_receiver.py, which commits as
# Prometheus does: a request with one sample older than one stored is refused whole).
# Each case counts the host frames the run took, those the receiver stored, stored twice
# or missing, and those vigil counted as dropped: nothing may go missing uncounted.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"
. "$TOP/tests/faults/helpers.sh"

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi
RQ="$TOP/tests/prometheus/requests.py"
MOUNTS=()

# recv NAME: start a receiver in $TMP/NAME.r; sets RPORT, RDIR, URL.
recv() {
	RDIR="$TMP/$1.r"
	RPORT=$(free_port)
	URL="http://127.0.0.1:$RPORT/api/v1/write"
	mkdir -p "$RDIR"
	echo ok >"$RDIR/mode"
	python3 "$TOP/tests/prometheus/fake_receiver.py" "$RPORT" "$RDIR" 2>"$RDIR/err" &
	PROM_PIDS+=($!)
	disown $!
	for _ in $(seq 100); do [ -e "$RDIR/ready" ] && return 0; sleep 0.1; done
	return 1
}
mode() { printf '%b' "$1" >"$RDIR/mode"; }
nreq() { [ -e "$RDIR/requests.log" ] && python3 "$RQ" "$RDIR/requests.log" count "$@" || echo 0; }
has_req() { [ "$(nreq "$1")" -ge "$2" ]; }
wait_for() { local t=$1; shift; for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done; return 1; }
# frames: "STORED TWICE MISSING RUNS" of the host frames the receiver stored.
frames() { python3 "$RQ" "$RDIR/requests.log" frames; }

# vig NAME LOGDIR [ARGS...]: vigil pushing every host sample (0.2 s, timeout 1 s) with
# /metrics on a free port; sets VPID, VPORT.
vig() {
	local name=$1 log=$2
	shift 2
	printf 'push_interval: 0.2s\ntimeout: 1s\n' >"$TMP/rw.yml"
	VPORT=$(free_port)
	mkdir -p "$log"
	"$VIGIL" --root "$FIXTURES/x86-server" --interval 0.2 --quiet --log-dir "$log" \
		--listen "127.0.0.1:$VPORT" --remote-write "$URL" --remote-write-config "$TMP/rw.yml" \
		"$@" 2>>"$TMP/$name.err" &
	VPID=$!
}
metric() { curl -s "http://127.0.0.1:$VPORT/metrics" | awk -v s="$1" '$1 == s {print $2}'; }
# stop_v NAME: SIGTERM, wait (at most 20 s); sets N (host samples taken) and D (samples
# vigil counted as dropped) from its last lines. 1 when it did not stop.
stop_v() {
	kill -TERM "$VPID"
	for _ in $(seq 200); do kill -0 "$VPID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$VPID" 2>/dev/null; then
		kill -9 "$VPID"
		wait "$VPID" 2>/dev/null
		return 1
	fi
	wait "$VPID"
	N=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/$1.err" | tail -1)
	D=$(sed -n 's/.*remote-write: [0-9]* samples sent, [0-9]* retried, \([0-9]*\) dropped.*/\1/p' \
		"$TMP/$1.err" | tail -1)
}
kill9() { kill -9 "$VPID"; wait "$VPID" 2>/dev/null; }
# note CASE: the figures of the case, for bench/RESULTS.md.
note() { echo "# figures $1: frames stored/twice/missing/runs $(frames); requests $(nreq) (400: $(nreq 400)); dropped samples ${D:-?}"; }

# ---- a receiver that stores a batch but answers after the timeout, then a restart ----
# Run 1: frames gather while the receiver answers 500, then it stores that batch of
# several frames but answers late; while vigil retries it (each retry refused, late, as
# out of order) new frames queue behind it; vigil is stopped (TERM, or killed). Run 2
# sends the batch with the new frames: refused whole (its old part is stored), late,
# then at once. That refusal proves nothing about the new frames: sent one by one they
# are stored, the old ones refused and counted. Before, the refusal after a timeout was
# taken as "stored before" and the new frames were lost, uncounted.
has_late() { [ -e "$RDIR/requests.log" ] && grep -q '"mode": "late:3", "headers_ok": true, "sha": "[0-9a-f]*", "dups"' "$RDIR/requests.log"; }
for how in kill term; do
	recv "late-$how"
	LOG="$TMP/late-$how.log"
	vig "late-$how-1" "$LOG"
	wait_for 20 has_req 204 3
	mode '500\n500\n500\nok\nlate:3\n'
	wait_for 30 has_late # stored (logged before its answer)
	sleep 4
	if [ "$how" = kill ]; then kill9; else stop_v "late-$how-1"; fi
	# The frames of run 1 (its CSV rows: after kill -9 the last one may not have been
	# queued yet).
	n1=$(data_rows "$LOG"/host-*.csv)
	mode 'late:3\nok\n'
	vig "late-$how-2" "$LOG"
	n=$(nreq 204)
	wait_for 30 has_req 204 $((n + 8))
	sleep 1
	stop_v "late-$how-2"
	read -r stored twice missing runs <<<"$(frames)"
	note "late answer + $how (run 1: $n1 frames, run 2: $N)"
	check "late answer, $how between attempts: run 1's $n1 frames all stored ($runs)" \
		test "${runs%%,*}" -ge $((n1 - 1)) -a "$missing" = 0
	check_eq "late answer, $how between attempts: none stored twice" 0 "$twice"
	check "late answer, $how between attempts: the second run's $N frames all stored" \
		test "${runs##*,}" = "$N"
	check "late answer, $how: the refused batch sent one by one" \
		grep -q 'sending them one by one' "$TMP/late-$how-2.err"
	check "late answer, $how: the frames refused one by one are counted as dropped" \
		grep -q 'sent one by one: [0-9]* frames refused and dropped' "$TMP/late-$how-2.err"
	check "late answer, $how: never 'taken' on a refusal" \
		bash -c "! grep -q 'had been taken' '$TMP/late-$how-2.err'"
done

# ---- refusals: a summary, not a line each ----
recv refuse
LOG="$TMP/refuse.log"
mode '400\n'
vig refuse "$LOG"
wait_for 20 has_req 400 8
mode 'ok\n'
wait_for 20 has_req 204 2
stop_v refuse
n400=$(nreq 400)
lines=$(grep -c 'refused .* for good' "$TMP/refuse.err")
check "400s: $n400 refused requests, $lines lines (the first, then a summary)" \
	test "$lines" -le 2 -a "$n400" -ge 8
check "400s: the summary counts them" \
	grep -q "refused [0-9]* requests ([0-9]* samples) for good since the last such line" "$TMP/refuse.err"
recv big
mode '500\n500\n413\n'
vig big "$TMP/big.log"
wait_for 20 has_req 413 4
stop_v big
check "413 of one frame: said as the receiver's limit" \
	grep -q 'one frame is too large for the receiver.s limit' "$TMP/big.err"
check "413 of one frame: not said as taken before a restart" \
	bash -c "! grep -q 'taken before a restart' '$TMP/big.err'"

# ---- damage on disk ----
# A stray segment far below an empty one (and a cursor on the empty one): the first
# sample is pushed at once and SIGTERM is honoured. Before, the start counted through
# 4 billion segment numbers.
recv stray
LOG="$TMP/stray.log"
mkdir -p "$LOG/remote-write"
head -c 300 /dev/urandom >"$LOG/remote-write/seg-0000000000000001.q"
: >"$LOG/remote-write/seg-0000004294967296.q"
echo "4294967296 0" >"$LOG/remote-write/cursor"
vig stray "$LOG"
check "stray segment: the first frames are pushed" wait_for 20 has_req 204 2
check "stray segment: SIGTERM is honoured" stop_v stray

# A damaged record in the middle of the queue: skipped, counted, said; the rest and the
# new frames are sent.
recv damage
LOG="$TMP/damage.log"
mode '500\n'
vig damage-1 "$LOG"
sleep 3
stop_v damage-1
n1=$N
seg=$(ls "$LOG"/remote-write/seg-*.q | head -1)
size=$(stat -c %s "$seg")
printf '\xff\xff\xff\xff' | dd of="$seg" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
mode 'ok\n'
vig damage-2 "$LOG"
wait_for 20 has_req 204 5
check "damaged record: the repair on /metrics" test "$(metric vigil_remote_write_queue_repairs_total)" = 1
stop_v damage-2
read -r stored twice missing runs <<<"$(frames)"
note "damaged record"
check "damaged record: one line saying it" test "$(grep -c 'a damaged record; skipped' "$TMP/damage-2.err")" -eq 1
check "damaged record: one or two frames lost ($missing), the rest of the $n1 sent" \
	test "$missing" -ge 1 -a "$missing" -le 2 -a "${runs%%,*}" -ge $((n1 - 1))
check "damaged record: the new run's $N frames all sent" test "${runs##*,}" = "$N"

# A segment of a later format: kept aside, not destroyed; one that cannot be opened
# (a dangling link): a new segment starts and nothing new is dropped.
recv future
LOG="$TMP/future.log"
mkdir -p "$LOG/remote-write"
{ printf 'VRW2'; head -c 3000 /dev/urandom; } >"$LOG/remote-write/seg-0000000000000001.q"
ln -s /nonexistent/vigil-seg "$LOG/remote-write/seg-0000000000000002.q"
vig future "$LOG"
wait_for 20 has_req 204 5
check_eq "unopenable segment: nothing dropped" 0 \
	"$(metric 'vigil_remote_write_samples_dropped_total{reason="queue_write_error"}')"
stop_v future
check "later format: kept as .unreadable" test -s "$LOG/remote-write/seg-0000000000000001.q.unreadable"
check "later format: said" grep -q 'has a format this vigil cannot read' "$TMP/future.err"
check "unopenable segment: said, a new one starts" grep -q 'cannot open seg-0000000000000002.q' "$TMP/future.err"
check "unopenable segment: every frame sent" test "$(frames | cut -d' ' -f4)" = "$N"

# ---- a full file system under the queue (root: a tmpfs) ----
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: a full queue file system needs root (tmpfs mount)"
	exit 0
fi
trap 'for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done; for p in "${PROM_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
recv full
LOG="$TMP/full.log"
mkdir -p "$LOG/remote-write"
if mount -t tmpfs -o size=512k vigil-rwq-full "$LOG/remote-write"; then
	MOUNTS+=("$LOG/remote-write")
	# The queue fills what is left of its file system while the receiver is down...
	dd if=/dev/zero of="$LOG/remote-write/filler" bs=4k count=112 2>/dev/null
	mode '500\n'
	vig full-1 "$LOG"
	check "full: the oldest frames dropped, counted" wait_for 60 bash -c \
		"curl -s http://127.0.0.1:$VPORT/metrics | grep -q '^vigil_remote_write_samples_dropped_total{reason=\"queue_full\"} [1-9]'"
	# ... and stays full while it comes back: vigil recovers on its own.
	mode 'ok\n'
	n=$(nreq 204)
	check "full: the push goes on while the file system stays full" wait_for 30 has_req 204 $((n + 10))
	D=$(metric 'vigil_remote_write_samples_dropped_total{reason="queue_full"}')
	note "full file system, run 1 (killed)"
	kill9
	n=$(nreq 204)
	vig full-2 "$LOG"
	check "full: after kill -9, the next run pushes" wait_for 30 has_req 204 $((n + 5))
	sleep 1
	stop_v full-2
	read -r stored twice missing runs <<<"$(frames)"
	note "full file system"
	check_eq "full: nothing acknowledged sent again after the restart" 0 "$(nreq 400)"
	check_eq "full: none stored twice" 0 "$twice"
	check "full: the second run's frames all stored" test "${runs##*,}" = "$N"
	check "full: not one line per frame" test "$(grep -c 'cannot queue' "$TMP/full-1.err")" -le 1
	check "full: the hole given back is no damage at the restart" \
		bash -c "! grep -q 'remote-write: queue .*seg-' '$TMP/full-2.err'"
else
	not_ok "full: mount a tmpfs"
fi
