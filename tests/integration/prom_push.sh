#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Remote-write push into a real Prometheus (Debian's, with its remote-write receiver) on
# a free loopback port, data in $TMP: Prometheus is stopped in the middle of the run and
# restarted on the same data directory, and then holds every host sample vigil queued,
# each once; again with vigil killed (-9) and restarted during the outage. The samples
# counted are vigil_samples_total{source="host"}: one per host sample, 1, 2, 3, ...
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"
. "$TOP/tests/faults/helpers.sh"

if ! have_prometheus || [ ! -x "$VIGIL" ]; then
	echo "# skip: prometheus or $VIGIL missing"
	exit 0
fi

PORT=$(free_port)
DATA="$TMP/prom-data"
printf 'global:\n  scrape_interval: 1s\n' >"$TMP/prom.yml"
RECV=(--web.enable-remote-write-receiver)
if ! prom_start push "$PORT" "$TMP/prom.yml" "$DATA" "${RECV[@]}"; then
	not_ok "push: prometheus starts on 127.0.0.1:$PORT"
	tail -5 "$TMP/push.prom.log"
	exit 0
fi
ok "push: prometheus starts on 127.0.0.1:$PORT"
URL="http://127.0.0.1:$PORT/api/v1/write"

# rw_config FILE SITE: push every host sample (interval 0.5 s), labelled site=SITE.
rw_config() { printf 'push_interval: 0.5s\ntimeout: 3s\nexternal_labels:\n  site: %s\n' "$2" >"$1"; }

# start_v NAME LOGDIR SITE: vigil pushing to $URL; sets VPID.
start_v() {
	rw_config "$TMP/$1.yml" "$3"
	"$VIGIL" --root "$FIXTURES/x86-server" --interval 0.5 --quiet --log-dir "$2" \
		--remote-write "$URL" --remote-write-config "$TMP/$1.yml" 2>"$TMP/$1.err" &
	VPID=$!
}

# host_series SITE: the raw samples' values of the host sample counter, oldest first.
host_values() { pq "$PORT" raw "vigil_samples_total{source=\"host\",site=\"$1\"}[1h]" | awk '{print $2}'; }

# runs VALUES...: check the values are runs 1..n (one per vigil run, in order) and print
# the run lengths, space-separated; "bad" when a value repeats or one is missing.
runs() {
	python3 -c '
import sys
v = [int(float(x)) for x in sys.argv[1:]]
runs, prev = [], 0
for x in v:
    if x == 1 and prev != 0:
        runs.append(prev)
    elif x != prev + 1:
        print("bad at", prev, x); sys.exit(1)
    prev = x
runs.append(prev)
print(" ".join(map(str, runs)))' "$@"
}

# ---- an outage of the receiver ----
SITE="outage-$$"
start_v outage "$TMP/log1" "$SITE"
check "outage: samples arrive before the outage" \
	pq_wait 30 "$PORT" count "vigil_samples_total{source=\"host\",site=\"$SITE\"}"
prom_stop "$PROM_PID"
sleep 3
check "outage: vigil keeps sampling while the receiver is down" kill -0 "$VPID"
"$VIGIL" status --log-dir "$TMP/log1" >"$TMP/status.out" 2>&1
check "outage: vigil status shows the queue holding samples" \
	grep -Eq 'remote-write: queue [1-9][0-9]* bytes, [1-9][0-9]* samples, oldest [0-9]+ s; sent [1-9]' \
	"$TMP/status.out"
check "outage: one message for the failure" \
	test "$(grep -c 'remote-write: cannot push' "$TMP/outage.err")" -eq 1
prom_start push2 "$PORT" "$TMP/prom.yml" "$DATA" "${RECV[@]}" || not_ok "outage: prometheus restarts"
sleep 3
kill -TERM "$VPID"
wait "$VPID"
N=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/outage.err")
check "outage: vigil says it pushes again" grep -q 'remote-write: pushing to .* again' "$TMP/outage.err"
sleep 1
mapfile -t V < <(host_values "$SITE")
check_eq "outage: every host sample in Prometheus, once, in order" "$N" "$(runs "${V[@]}")"

# ---- vigil killed -9 and restarted during the outage ----
SITE="kill-$$"
start_v kill1 "$TMP/log2" "$SITE"
check "kill: samples arrive before the outage" \
	pq_wait 30 "$PORT" count "vigil_samples_total{source=\"host\",site=\"$SITE\"}"
prom_stop "$PROM_PID"
sleep 2
kill -9 "$VPID"
wait "$VPID" 2>/dev/null
ROWS1=$(data_rows "$TMP/log2"/host-*.csv)
check "kill: the queue holds what was not sent" \
	bash -c "test \$(cat '$TMP/log2/remote-write/'seg-*.q | wc -c) -gt 0"
start_v kill2 "$TMP/log2" "$SITE"
sleep 2
prom_start push3 "$PORT" "$TMP/prom.yml" "$DATA" "${RECV[@]}" || not_ok "kill: prometheus restarts"
sleep 3
kill -TERM "$VPID"
wait "$VPID"
ROWS2=$(($(data_rows "$TMP/log2"/host-*.csv) - ROWS1))
sleep 1
mapfile -t V < <(host_values "$SITE")
R=$(runs "${V[@]}")
# The killed run may have taken one sample it had written to its CSV but not yet queued.
check "kill: both runs in Prometheus, every sample once, in order ($R; CSV rows $ROWS1 $ROWS2)" \
	bash -c "[[ '$R' == \"$ROWS1 $ROWS2\" || '$R' == \"$((ROWS1 - 1)) $ROWS2\" ]]"
prom_stop "$PROM_PID"

# ---- a series that disappears: a staleness marker ends it at once ----
# A sensor whose file reads empty drops out of /metrics; without a marker Prometheus
# would show its last value for its 5-minute lookback.
prom_stop "$PROM_PID"
prom_start push4 "$PORT" "$TMP/prom.yml" "$DATA" "${RECV[@]}" || not_ok "stale: prometheus restarts"
SITE="stale-$$"
cp -a "$FIXTURES/x86-server" "$TMP/stale-root"
SENSOR='vigil_temperature_celsius{chip="nvme_nvme1",sensor="Composite",site="'$SITE'"}'
rw_config "$TMP/stale.yml" "$SITE"
"$VIGIL" --root "$TMP/stale-root" --interval 0.5 --quiet --log-dir "$TMP/log3" \
	--remote-write "$URL" --remote-write-config "$TMP/stale.yml" 2>"$TMP/stale.err" &
VPID=$!
check "stale: the sensor's series arrives" pq_wait 30 "$PORT" count "$SENSOR"
n_before=$(pq "$PORT" count "vigil_temperature_celsius{site=\"$SITE\"}")
: >"$TMP/stale-root/sys/class/hwmon/hwmon1/temp1_input" # nvme1's Composite
# wait_until SECONDS COMMAND...: until the command succeeds, at most SECONDS of wall time.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	while [ "$SECONDS" -lt "$end" ]; do "$@" && return 0; sleep 0.2; done
	return 1
}
gone() { ! pq "$PORT" count "$SENSOR" >/dev/null 2>&1; }
check "stale: the series ends within seconds of the sensor going, not after 5 minutes" \
	wait_until 15 gone
check_eq "stale: the other sensors stay" "$((n_before - 1))" \
	"$(pq "$PORT" count "vigil_temperature_celsius{site=\"$SITE\"}")"
# A clean stop ends every series at once (its last frame's series get markers, sent by
# the exit attempt), as a failed scrape does in Prometheus.
kill -TERM "$VPID"
wait "$VPID"
ended() { ! pq "$PORT" count "{site=\"$SITE\"}" >/dev/null 2>&1; }
check "stale: a clean stop ends every series at once, not after 5 minutes" wait_until 5 ended
prom_stop "$PROM_PID"

# ---- two machines cloned from one image: one host name, two machine IDs ----
prom_start push5 "$PORT" "$TMP/prom.yml" "$DATA" "${RECV[@]}" || not_ok "clones: prometheus restarts"
SITE="clones-$$"
IDS=(0123456789abcdef0123456789abcdef fedcba9876543210fedcba9876543210)
PIDS=()
for i in 0 1; do
	cp -a "$FIXTURES/x86-server" "$TMP/clone$i"
	mkdir -p "$TMP/clone$i/etc"
	echo "${IDS[$i]}" >"$TMP/clone$i/etc/machine-id"
	printf 'push_interval: 0.5s\ntimeout: 3s\nexternal_labels:\n  site: %s\n  instance: raspberrypi\n' \
		"$SITE" >"$TMP/clone$i.yml"
	"$VIGIL" --root "$TMP/clone$i" --interval 0.5 --quiet --log-dir "$TMP/clone$i.log" \
		--remote-write "$URL" --remote-write-config "$TMP/clone$i.yml" 2>"$TMP/clone$i.err" &
	PIDS+=($!)
done
SEL="vigil_samples_total{source=\"host\",site=\"$SITE\",instance=\"raspberrypi\"}"
two() { [ "$(pq "$PORT" count "$SEL")" = 2 ]; }
check "clones: one series per machine, told apart by machine_id" wait_until 30 two
sleep 2
for i in 0 1; do
	kill -TERM "${PIDS[$i]}"
	wait "${PIDS[$i]}"
done
sleep 1
for i in 0 1; do
	N=$(sed -n 's/.*stopped: \([0-9]*\) host samples.*/\1/p' "$TMP/clone$i.err")
	mapfile -t V < <(pq "$PORT" raw "vigil_samples_total{source=\"host\",site=\"$SITE\",machine_id=\"${IDS[$i]}\"}[1h]" | awk '{print $2}')
	check_eq "clones: machine $i's every host sample, once, in order" "$N" "$(runs "${V[@]}")"
	check "clones: machine $i warns that raspberrypi is a default host name" \
		grep -q "remote-write: the instance label 'raspberrypi' is a distribution's default host name" "$TMP/clone$i.err"
done
prom_stop "$PROM_PID"
