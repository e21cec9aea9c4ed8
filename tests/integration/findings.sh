#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# "What happened" end to end: the exit summary, `vigil status` and `vigil report` on
# what the daemon wrote (a round trip on a simulated GPU that loses itself after an
# Xid 79), a clean run that says so, the enforced power-limit change, and the defects
# found on the way (requested snapshot, nan and permissions in `vigil status`, a
# missing --root, a port in use, an Xid the crash snapshot must name).
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "findings" "$SCEN"
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "fake $0 $*"\n' >"$TMP/bin/lspci"
cp "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
# run NAME SCENARIO ARGS...: vigil in the foreground (GPU at 10 ms, host at 50 ms), its
# stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, logs in $TMP/NAME; status in $RC.
run() {
	local name=$1 scenario=$2
	shift 2
	PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$scenario" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/$name" \
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
}

# --- Xid 79, the GPU lost and back: exit summary, crash snapshot, report ------------
sed 's/step 60/step 34/' "$SCEN/xid-79-lost-recovered" >"$TMP/xid79.scen"
run xid79 "$TMP/xid79.scen" --duration 3
check_eq "xid79: exit 0" 0 "$RC"
out="$TMP/xid79.out"
# What happened ends the summary (its last block), so the last screen tells it.
check "xid79: the summary ends with what happened" grep -qx '  What happened:' \
	<<<"$(grep -v '^$' "$out" | grep -v '^    ' | tail -1)"
check "xid79: ... after the GPUs' figures" test "$(grep -n '^  What happened:' "$out" | cut -d: -f1)" -gt \
	"$(grep -n '^  GPUs over this run' "$out" | cut -d: -f1)"
check "xid79: summary names Xid 79, its meaning and action" \
	grep -q '^    (critical) gpu0: Xid 79 (.*): GPU has fallen off the bus. Action: reboot the machine' "$out"
check "xid79: summary says the GPU was lost and is back" grep -q '^    (critical) gpu0: GPU lost for [0-9.]* s in all, back (' "$out"
check "xid79: summary names the crash snapshot" grep -q '^    (critical) gpu0: crash snapshot (.*): crashes/crash-.*\.log, NVML_FAILED: GPU is lost' "$out"
check "xid79: summary never says clean" test "$(grep -c 'clean' "$out")" -eq 0
check "xid79: no Pi rows on a GPU server" test "$(grep -c 'no data\|volt_core_v\|arm_mhz\|Throttle / power events' "$out")" -eq 0
crash=$(ls "$TMP"/xid79/crashes/crash-*.log | grep -v -- '-followup-\|-programs' | head -1)
check "xid79: the crash snapshot names the Xid" grep -q '^Xid 79: GPU has fallen off the bus' "$crash"
if grep -q 'type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash' "$TMP/xid79/events.log"; then
	check "xid79: the held-back Xid is noted in the snapshot" \
		grep -q "type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash number=2 cooldown=60s noted_in=crashes/$(basename "$crash")" "$TMP/xid79/events.log"
fi

# The report on what the daemon wrote: failures found in the flags column by name.
csv=$(ls "$TMP"/xid79/gpu0-*.csv)
failed=$(grep -c ',NVML_FAILED:' "$csv")
check "xid79: the CSV holds failure rows" test "$failed" -ge 1
"$VIGIL" report "$TMP"/xid79/host-*.csv "$csv" >"$TMP/report.out" 2>"$TMP/report.err"
check_eq "report: exit 0" 0 $?
"$VIGIL" report --html "$TMP/xid79.html" "$TMP"/xid79/host-*.csv "$csv" >/dev/null 2>&1
check_eq "report html: exit 0" 0 $?
rep="$TMP/report.out"
check "report: NVML failures counted (the round trip)" grep -q "^  NVML failures: $failed rows (first at .*: NVML_FAILED:GPU is lost)" "$rep"
check "report: no NVML_FAILED among the anomaly flags" test "$(sed -n '/Anomaly flags:/,/NVML failures/p' "$rep" | grep -c '^    NVML_FAILED')" -eq 0
check "report: leads with the health verdict" grep -qx 'Health: unhealthy' <<<"$(head -1 "$rep")"
check "report: then what happened" grep -qx '  What happened:' <<<"$(awk '!/^(Health: |  (unhealthy|degraded) )/ { print; exit }' "$rep")"
check "report: Xid 79 with its meaning" grep -q '^    (critical) gpu0: Xid 79 (.*): GPU has fallen off the bus' "$rep"
check "report: GPU lost and back" grep -q '^    (critical) gpu0: GPU lost for [0-9.]* s in all, back' "$rep"
check "report: NVML failures as a finding" grep -q "^    (warning) gpu0: NVML failures ($failed" "$rep"
check "report: no Pi rows" test "$(grep -c 'no data\|Throttle / power events' "$rep")" -eq 0
check "report: never clean" test "$(grep -c 'clean' "$rep")" -eq 0
check "report html: findings block first" grep -q '<h1>vigil report</h1>.*<section class="findings alarm"><h2>What happened</h2>' <<<"$(tr -d '\n' <"$TMP/xid79.html")"
check "report html: Xid 79 listed" grep -q '<li class="finding xid critical alarm"><span class="sev">critical</span> <b>gpu0</b> Xid 79' "$TMP/xid79.html"

# --- a healthy GPU: clean, and GpuIdle is no alarm ------------------------------------
# (A busy machine may make a tick late: that is a finding too, and the only one allowed.)
run healthy "$SCEN/healthy-1gpu" --count 4 --interval 0.2 --gpu-interval 0.05
check_eq "healthy: exit 0" 0 "$RC"
if grep -q '^    (warning) host: missed deadlines' "$TMP/healthy.out"; then
	check_eq "healthy: nothing but late ticks" 0 "$(grep -c '^    [^(]' "$TMP/healthy.out" | awk '{print $1 - 1}')"
else
	check "healthy: clean, naming what was watched" grep -qx '  What happened: nothing — clean (watched: host, gpu0)' "$TMP/healthy.out"
fi
# A GPU server's exit summary: its GPUs' figures, not the Pi player's leak rows.
check "healthy: the GPU's figures at exit" grep -q '^  gpu0: .*, [0-9]* samples, 0 failed$' "$TMP/healthy.out"
check "healthy: its temperature with its maximum" grep -Eq '^    temperature +min +[0-9.]+C +avg +[0-9.]+C +max +[0-9.]+C +\(max operating [0-9]+C\)$' "$TMP/healthy.out"
check "healthy: its power with its limit" grep -Eq '^    power +min .*\(limit [0-9]+W\)$' "$TMP/healthy.out"
check "healthy: its clock-event time, Xids, anomalies" test "$(grep -cE '^    (clock events +GpuIdle|Xids +none|anomalies +none)' "$TMP/healthy.out")" -eq 3
check_eq "healthy: no Pi leak rows" 0 "$(grep -c 'Trend (the leak check)\|player_pss_mb\|chromium' "$TMP/healthy.out")"
check_eq "healthy: no slope or projection from seconds of data" 0 "$(grep -c 'MB/h\|reaches 0' "$TMP/healthy.out")"
check "healthy: GpuIdle listed, not an alarm" grep -q '^    (fyi) gpu0: throttle reason GpuIdle' "$TMP/healthy.out"
"$VIGIL" report "$TMP"/healthy/gpu0-*.csv >"$TMP/healthy.rep" 2>/dev/null
check "healthy report: clean" grep -qx '  What happened: nothing — clean (watched: gpu0)' "$TMP/healthy.rep"

# --- the enforced power limit: an event of its own, not a TDP change -----------------
# The enforced limit is a slow field: at its shortest cadence, so that 2 s hold its
# changes; following the configured limit a slow read later is not an event.
run tdp "$SCEN/tdp-change" --duration 2 --gpu-slow-interval 0.1
check_eq "enforced: exit 0" 0 "$RC"
ev="$TMP/tdp/events.log"
check "enforced: 600 W -> 300 W is an events.log line" grep -q 'type=ENFORCED_LIMIT_CHANGE gpu=0 from=600W to=300W delta=-300W' "$ev"
check_eq "enforced: only that one (the others follow the configured limit)" 1 "$(grep -c 'type=ENFORCED_LIMIT_CHANGE' "$ev")"
check "enforced: on stderr" grep -q 'ENFORCED POWER LIMIT: 600W → 300W (-300W)' "$TMP/tdp.err"
check "enforced: in the summary" grep -q '^    (warning) gpu0: enforced power limit changed (.*): 600W → 300W' "$TMP/tdp.out"
check "enforced: no CSV flag for it" test "$(grep -c 'ENFORCED' "$TMP"/tdp/gpu0-*.csv)" -eq 0

# --- a power cap below the configured limit, a GPU above its own maximum temperature ----
# power-capped-hot: 700 W configured, 350 W enforced by another limiter; the temperature
# passes the GPU_MAX threshold (87 C) at step 17 and is back at step 40.
run hot "$SCEN/power-capped-hot" --count 12 --gpu-slow-interval 0.1 --live
check_eq "over max: exit 0" 0 "$RC"
ev="$TMP/hot/events.log"
check "over max: an events.log line when it goes above" grep -q 'type=TEMP_OVER_MAX gpu=0 state=above temp=88C max=87C' "$ev"
check "over max: and one when it is back" grep -q 'type=TEMP_OVER_MAX gpu=0 state=back temp=84C max=87C' "$ev"
check_eq "over max: one line per change, not per sample" 2 "$(grep -c 'type=TEMP_OVER_MAX' "$ev")"
check "over max: on stderr" grep -q "TEMPERATURE 88C above the GPU's maximum operating 87C" "$TMP/hot.err"
check "over max: in the exit summary" grep -q '^    (warning) gpu0: anomaly TEMP_OVER_MAX (.*): 88C, above its maximum operating temperature 87C' "$TMP/hot.out"
check "over max: no CSV flag (the reference's flags stay)" test "$(grep -c 'TEMP_OVER_MAX' "$TMP"/hot/gpu0-*.csv)" -eq 0
check "over max: on the live GPU line" grep -Eq '^  gpu0 .*TEMP_OVER_MAX\(9[01]C>87C\)' "$TMP/hot.out"
check "enforced below configured: the live GPU line shows both" grep -Eq '^  gpu0 +[0-9]+C +300/350W \(limit 700W\) ' "$TMP/hot.out"
# The enforced limit in vigil status and drawn in the dashboard's power chart.
PORT=$(free_port)
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN/power-capped-hot" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/hot2" --quiet \
	--gpu-slow-interval 0.1 --listen "127.0.0.1:$PORT" 2>/dev/null &
PID=$!
wait_for 10 test -s "$TMP/hot2/vigil.pid"
sleep 1
"$VIGIL" status --log-dir "$TMP/hot2" >"$TMP/hot2-status.txt" 2>&1
grep '^gpu0 ' "$TMP/hot2-status.txt" | sed 's/^/    /'
check "enforced below configured: vigil status shows the enforced limit" \
	grep -Eq '^gpu0 .*, limit 700 W, enforced limit 350 W' "$TMP/hot2-status.txt"
curl -s "http://127.0.0.1:$PORT/" >"$TMP/hot2-dash.html"
check "enforced below configured: the dashboard's power chart draws it" \
	grep -q 'power_enforced_limit (now 350W)' "$TMP/hot2-dash.html"
kill -TERM "$PID"
wait "$PID"
run capped "$SCEN/healthy-1gpu" --count 3 --live
check "enforced equal to configured: one limit on the live GPU line" grep -Eq '^  gpu0 +[0-9]+C +[0-9]+/[0-9]+W +[0-9]+MHz' "$TMP/capped.out"
check_eq "enforced equal to configured: no second limit" 0 "$(grep -c '^  gpu0 .*(limit ' "$TMP/capped.out")"

# --- defects ---------------------------------------------------------------------------
"$VIGIL" --root /nonexistent --count 1 --no-log >/dev/null 2>"$TMP/root.err"
check_eq "--root /nonexistent: exit 2" 2 $?
check "--root /nonexistent: says why" grep -q 'root /nonexistent: No such file or directory' "$TMP/root.err"

PORT=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(30)' "$PORT" &
HOLDER=$!
wait_for 5 python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$PORT" 2>/dev/null
"$VIGIL" --nvml /nonexistent --root "$ROOT" --no-log --count 1 --listen "127.0.0.1:$PORT" 2>"$TMP/port.err" >/dev/null
check "port in use: a non-zero exit" test $? -ne 0
check "port in use: names the address and the reason" grep -q "cannot listen on 127.0.0.1:$PORT: Address already in use" "$TMP/port.err"
check "port in use: no 'port 0'" test "$(grep -c 'port 0' "$TMP/port.err")" -eq 0
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

# vigil status on a host without temperature sensors (no nan), and a requested snapshot.
NOTEMP="$TMP/notemp"
cp -a "$ROOT" "$NOTEMP"
rm -rf "$NOTEMP/sys/class/thermal" "$NOTEMP/sys/class/hwmon"
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$NOTEMP" --gpu-interval 0.01 --interval 0.05 --log-dir "$TMP/st" \
	--watch "none=no-such-process-anywhere" >"$TMP/st.out" 2>"$TMP/st.err" &
PID=$!
wait_for 10 test -s "$TMP/st/vigil.pid"
sleep 0.5
"$VIGIL" status --log-dir "$TMP/st" >"$TMP/status.txt" 2>"$TMP/status.err"
check_eq "status: exit 0" 0 $?
check "status: no nan" test "$(grep -ci 'nan' "$TMP/status.txt")" -eq 0
check "status: host line without the missing temperature" grep -Eq '^host: (cpu [0-9.]+%, )?memory available [0-9]+ MB$' "$TMP/status.txt"
# (the watch of nothing is a program not running; else late ticks on a busy machine)
check "status: what happened so far" grep -Eq '^What happened:$' "$TMP/status.txt"
check "status: the watch of nothing is not running" grep -q '^  (critical) host: watch down none, still missing' "$TMP/status.txt"
check "status: nothing but that and late ticks" test "$(grep -c '^  (critical\|warning) ' "$TMP/status.txt" | awk '{print $1}')" -eq "$(grep -c '^  (warning) host: missed deadlines\|^  (critical) host: watch down none' "$TMP/status.txt")"
"$VIGIL" snapshot --log-dir "$TMP/st" checkup >/dev/null 2>&1
wait_for 10 grep -qs 'snapshot (Requested: checkup)' "$TMP/st.err"
check "snapshot: announced as a requested snapshot" test $? -eq 0
check "snapshot: never as CRASH #0" test "$(grep -c 'CRASH #0' "$TMP/st.err")" -eq 0
kill -TERM "$PID"
wait "$PID"
check_eq "status run: exit 0 after SIGTERM" 0 $?
check "snapshot: in the exit summary, not an alarm" grep -q '^    (fyi) gpu0: snapshot on request' "$TMP/st.out"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 750 "$TMP/private"
	chmod 755 "$TMP"
	: >"$TMP/private/vigil.pid"
	chmod 640 "$TMP/private/vigil.pid"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$(reachable_by_all "$VIGIL")" status \
		--log-dir "$TMP/private" \
		>/dev/null 2>"$TMP/perm.err"
	check_eq "status, unreadable log directory: exit 1" 1 $?
	check "status, unreadable log directory: names the permission problem" \
		grep -q "cannot read $TMP/private/vigil.pid: Permission denied" "$TMP/perm.err"
	check "status, unreadable log directory: not 'no running instance'" \
		test "$(grep -c 'no running instance' "$TMP/perm.err")" -eq 0
else
	ok "status, unreadable log directory # skip needs root and setpriv"
fi

# --- a Pi whose under-voltage clears: a current state follows its clear event ------------
# (no firmware node: the under-voltage comes from the rpi_volt alarm, read every sample)
PIUV="$TMP/piuv"
cp -a "$FIXTURES/pi4-noaccess" "$PIUV"
ALARM="$PIUV/sys/class/hwmon/hwmon1/in0_lcrit_alarm"
echo 1 >"$ALARM"
PORT=$(free_port)
"$VIGIL" --root "$PIUV" --interval 0.05 --log-dir "$TMP/piuv-log" --listen "127.0.0.1:$PORT" \
	>"$TMP/piuv.out" 2>"$TMP/piuv.err" &
PID=$!
wait_for 10 grep -qs 'condition="under-voltage" state=set' "$TMP/piuv-log/events.log"
echo 0 >"$ALARM"
wait_for 10 grep -qs 'condition="under-voltage" state=cleared' "$TMP/piuv-log/events.log"
check "pi cleared: events.log says cleared" test $? -eq 0
sleep 0.3
"$VIGIL" status --log-dir "$TMP/piuv-log" >"$TMP/piuv-status.txt" 2>&1
check "pi cleared: status says it cleared" grep -q '^  (warning) pi: Pi under-voltage, cleared' "$TMP/piuv-status.txt"
curl -s "http://127.0.0.1:$PORT/" >"$TMP/piuv-dash.html"
check "pi cleared: the dashboard says it cleared" grep -q '<span class="sev">warning</span> <b>pi</b> Pi under-voltage, cleared' "$TMP/piuv-dash.html"
kill -TERM "$PID"
wait "$PID"
check "pi cleared: the exit summary says it cleared" grep -q '^    (warning) pi: Pi under-voltage, cleared' "$TMP/piuv.out"
check_eq "pi cleared: nothing says it is under-voltage now" 0 \
	"$(grep -c 'pi: Pi under-voltage (' "$TMP/piuv.out" "$TMP/piuv-status.txt" "$TMP/piuv-dash.html" | awk -F: '{ n += $NF } END { print n + 0 }')"
"$VIGIL" report "$TMP"/piuv-log/host-*.csv >"$TMP/piuv-report.txt" 2>&1
check "pi cleared: the report says it cleared" grep -q '^    (warning) pi: Pi under-voltage, cleared' "$TMP/piuv-report.txt"
# Seconds of data: the leak check gives no verdict (the reference said "falling +0.0").
for f in piuv.out piuv-report.txt; do
	check "pi seconds: $f's leak check says too short to tell" \
		grep -Eq '^  mem_avail_mb +too short to tell \([0-9]+ s, [0-9]+ samples\)$' "$TMP/$f"
	check_eq "pi seconds: no RISING / falling in $f" 0 "$(grep -c 'RISING\|falling' "$TMP/$f")"
done
# A report of rows alone (no events.log): NOW: in some rows but not the last one.
mkdir "$TMP/piuv-csv"
cp "$TMP"/piuv-log/host-*.csv "$TMP/piuv-csv/"
"$VIGIL" report "$TMP"/piuv-csv/host-*.csv >"$TMP/piuv-report2.txt" 2>&1
check "pi cleared: the report of rows alone says it cleared" grep -q '^    (warning) pi: Pi under-voltage, cleared' "$TMP/piuv-report2.txt"
