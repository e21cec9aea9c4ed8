#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Raspberry Pi incident snapshots (incidents/incident-*.log) end to end on the fixture
# trees with the fake firmware: under-voltage now, /dev/shm full, a critical
# temperature; the sections they hold; one per 60 s cooldown; none on a healthy Pi.
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

# tree NAME FROM: a copy of fixture FROM as $TMP/NAME, with a kernel log (dev/kmsg):
# two voltage/thermal lines and one that is neither.
tree() {
	cp -r "$FIXTURES/$2" "$TMP/$1"
	cat >"$TMP/$1/dev/kmsg" <<'KMSG'
6,1,500000,-;Booting Linux on physical CPU 0x0000000000 [0x410fd083]
2,2,9000000,-;hwmon hwmon1: Undervoltage detected!
6,3,9500000,-;usb 1-1.3: new full-speed USB device number 4 using xhci_hcd
4,4,12000000,-;thermal thermal_zone0: critical temperature reached, shutting down
KMSG
}
# one NAME ARGS...: run vigil on $TMP/NAME into $TMP/NAME.log, stderr to $TMP/NAME.err.
one() {
	local name=$1
	shift
	"$VIGIL" --root "$TMP/$name" --interval 0.05 --log-dir "$TMP/$name.log" --quiet "$@" \
		2>"$TMP/$name.err"
}
incidents() { ls "$TMP/$1.log"/incidents/incident-*.log 2>/dev/null; }
# section FILE TITLE: the body of section "=== TITLE ===" (up to the next section).
section() {
	awk -v t="=== $2 ===" '$0 == t {on = 1; next} /^=== .* ===$/ {on = 0} on && NF' "$1"
}

# --- under-voltage now: every section ------------------------------------------------
tree uv pi4-undervolt
one uv --count 5 --watch player=run_linux.py
check_eq "under-voltage: exits 0" 0 $?
check_eq "under-voltage: one incident" 1 "$(incidents uv | wc -l)"
f=$(incidents uv | head -1)
check "under-voltage: header" grep -qx '=== RASPBERRY PI INCIDENT ===' "$f"
check "under-voltage: the reason" grep -qx 'Error: under-voltage now' "$f"
check "under-voltage: no GPU lines" bash -c "! grep -q '^GPU:\|^Peaks:\|^Pwr breach' '$f'"
check "under-voltage: throttled word in the header" grep -q '^Throttled: 0x50005 NOW:under-voltage' "$f"
rows=$(section "$f" 'Recent host samples (last 50)')
check "under-voltage: host CSV header" grep -q '^timestamp,uptime_s,cpu_total_pct,' <<<"$rows"
check "under-voltage: a host row with the word" grep -q ',0x50005,"NOW:under-voltage' <<<"$rows"
kl=$(section "$f" 'dmesg (voltage/thermal)')
check "kernel log: the under-voltage line" grep -q 'hwmon hwmon1: Undervoltage detected!' <<<"$kl"
check "kernel log: the thermal line" grep -q 'critical temperature reached' <<<"$kl"
check "kernel log: nothing else" bash -c "! grep -q 'usb 1-1.3\|Booting Linux' <<<'$kl'"
check_eq "throttle history: the word at start" "start -> 0x50005 NOW:under-voltage,NOW:currently throttled,HAS:under-voltage occurred,HAS:throttling occurred" \
	"$(section "$f" 'Throttle history' | cut -d' ' -f2-)"
check_eq "watched processes" "player: count=0 pss_mb=n/a cpu_pct=n/a threads=n/a oldest_age_s=n/a" \
	"$(section "$f" 'Watched processes')"
check "under-voltage: events.log" grep -q 'type=INCIDENT reason="under-voltage now" snapshot=.*/incidents/incident-' "$TMP/uv.log/events.log"
check "under-voltage: said" grep -q 'Incident snapshot: .*incidents/incident-.*\.log (under-voltage now)' "$TMP/uv.err"

# --- /dev/shm full ---------------------------------------------------------------------
tree shm pi4-shm-full
one shm --count 3
check_eq "shm full: one incident" 1 "$(incidents shm | wc -l)"
check "shm full: the reason" grep -qx 'Error: /dev/shm 95.1% full >= 90%' "$(incidents shm | head -1)"

# --- a critical temperature (the --temp-crit threshold the Pi rules use) -------------
tree hot pi4-healthy
sed -i "s/^gencmd \"measure_temp\" .*/gencmd \"measure_temp\" temp=85.0'C/" "$TMP/hot/dev/vcio"
one hot --count 3
check "hot: the reason" grep -qx 'Error: temperature 85.0C >= 80C (critical)' "$(incidents hot | head -1)"
rm -rf "$TMP/hot.log"
one hot --count 3 --temp-crit 90
check_eq "hot: none under --temp-crit 90" "" "$(incidents hot)"

# --- healthy: nothing --------------------------------------------------------------------
tree healthy pi4-healthy
one healthy --count 5
check_eq "healthy: exits 0" 0 $?
check_eq "healthy: no incident" "" "$(incidents healthy)"
check "healthy: no INCIDENT event" bash -c "! grep -q type=INCIDENT '$TMP/healthy.log/events.log'"

# --- the cooldown, and the last 50 rows: /dev/shm fills, empties, fills again --------
tree cool pi4-healthy
statvfs="$TMP/cool/dev/shm.statvfs"
normal=$(cat "$statvfs")
"$VIGIL" --root "$TMP/cool" --interval 0.05 --log-dir "$TMP/cool.log" --quiet 2>"$TMP/cool.err" &
pid=$!
# wait_for TEST...: poll up to 30 s until the test succeeds.
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
# more_rows N: the host CSV has more than N lines.
more_rows() { local c; c=$(ls "$TMP/cool.log"/host-*.csv 2>/dev/null | head -1); [ -n "$c" ] && [ "$(wc -l <"$c")" -gt "$1" ]; }
wait_for more_rows 60
printf '4096 488633 24120 24120\n' >"$statvfs"
wait_for grep -q 'type=INCIDENT' "$TMP/cool.log/events.log"
printf '%s\n' "$normal" >"$statvfs"
wait_for grep -q 'type=SHM state=ok' "$TMP/cool.log/events.log"
printf '4096 488633 24120 24120\n' >"$statvfs"
wait_for grep -q 'snapshot suppressed, one per 60s' "$TMP/cool.err"
kill -TERM "$pid"
wait "$pid"
check_eq "cooldown: exits 0" 0 $?
check_eq "cooldown: /dev/shm full twice" 2 "$(grep -c 'type=SHM state=full' "$TMP/cool.log/events.log")"
check_eq "cooldown: one incident" 1 "$(incidents cool | wc -l)"
check_eq "cooldown: the second suppressed" 1 "$(grep -c 'Incident (/dev/shm 95.1% full >= 90%): snapshot suppressed, one per 60s' "$TMP/cool.err")"
f=$(incidents cool | head -1)
check_eq "last 50: rows kept" 50 "$(section "$f" 'Recent host samples (last 50)' | grep -vc '^timestamp,')"
# (488633 - 24120) blocks of 4096 bytes used: 1814.50390625 MB.
check "last 50: the newest row is the full one" grep -q ',1814.50390625,' <<<"$(section "$f" 'Recent host samples (last 50)' | tail -1)"
check "last 50: the row before is not" bash -c "! grep -q ',1814.50390625,' <<<'$(section "$f" 'Recent host samples (last 50)' | tail -2 | head -1)'"
check_eq "throttle history: one line, the word at start" "start -> 0x0 (none)" \
	"$(section "$f" 'Throttle history' | cut -d' ' -f2-)"

# --- `vigil snapshot REASON` on a machine without GPUs: an incident-kind file ----------
tree req pi4-healthy
"$VIGIL" --root "$TMP/req" --interval 0.05 --gpu none --log-dir "$TMP/req.log" --quiet 2>"$TMP/req.err" &
pid=$!
wait_for test -s "$TMP/req.log/vigil.pid"
"$VIGIL" snapshot --log-dir "$TMP/req.log" "screen went blank" >/dev/null 2>&1
check_eq "requested: command exits 0" 0 $?
wait_for grep -q 'type=SNAPSHOT' "$TMP/req.log/events.log"
kill -TERM "$pid"
wait "$pid"
check_eq "requested: exits 0" 0 $?
f=$(incidents req | head -1)
check_eq "requested: one file" 1 "$(incidents req | wc -l)"
check "requested: titled as requested" grep -qx '=== REQUESTED SNAPSHOT ===' "$f"
check "requested: the reason" grep -qx 'Error: Requested: screen went blank' "$f"
check "requested: recent rows" grep -q '^=== Recent host samples (last 50) ===$' "$f"
check "requested: events.log names it" grep -q 'type=SNAPSHOT reason="screen went blank" snapshot=' "$TMP/req.log/events.log"
