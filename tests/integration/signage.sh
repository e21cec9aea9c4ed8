#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The signage player's screens, network and SD card end to end on copies of the Pi 4
# and Pi 5 trees: /metrics from the fixture files, then the files rewritten while the
# daemon runs (a screen unplugged and another plugged in, DPMS off, the TV to standby
# over CEC, the Wi-Fi link lost twice): the events.log lines, and the exit summary's
# findings ("HDMI-A-1 disconnected HH:MM-HH:MM", "offline 2 times, longest ..."). Then
# damaged files: one message each, the rest still measured.
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
has_event() { grep -q -- "$2" "$TMP/$1.log/events.log" 2>/dev/null; }
# put FILE TEXT: FILE's new value, written into the same inode as the kernel changes an
# attribute that vigil keeps open (put_in_place in tests/lib.sh says why and how).
put() { put_in_place "$@"; }
# scrape NAME PORT: /metrics into $TMP/NAME.prom once a sample is published (the card's
# counter is there).
scrape() {
	curl -sf -o "$TMP/$1.prom" "http://127.0.0.1:$2/metrics" &&
		grep -q '^vigil_sd_written_bytes_total' "$TMP/$1.prom"
}

# --- Pi 4: the fixture's values --------------------------------------------------------
cp -r "$FIXTURES/pi4" "$TMP/pi4"
R="$TMP/pi4"
port=$(free_port)
"$VIGIL" --root "$R" --interval 0.05 --log-dir "$TMP/pi4.log" --duration 12 \
	--sd-endurance-tbw 0.01 --listen "127.0.0.1:$port" >"$TMP/pi4.out" 2>"$TMP/pi4.err" &
pid=$!
wait_for scrape pi4 "$port"
P="$TMP/pi4.prom"
check "display: HDMI-A-1 connected" grep -qx 'vigil_display_connected{connector="HDMI-A-1",card="card1"} 1' "$P"
check "display: HDMI-A-2 disconnected" grep -qx 'vigil_display_connected{connector="HDMI-A-2",card="card1"} 0' "$P"
check "display: no writeback connector" test "$(grep -c Writeback "$P")" -eq 0
check "display: HDMI-A-2 dpms Off" grep -qx 'vigil_display_dpms{connector="HDMI-A-2",card="card1"} 3' "$P"
check "display: the monitor's EDID name, serial and id" grep -qx \
	'vigil_display_monitor_info{connector="HDMI-A-1",card="card1",monitor="DELL U3818DW",serial="5KC03043090L",edid="DEL-A0F3"} 1' "$P"
check "display: the TV on (CEC)" grep -qx 'vigil_display_cec_power_status 0' "$P"
check "network: wlan0 up" grep -qx 'vigil_network_up{interface="wlan0"} 1' "$P"
check "network: eth0 without a cable" grep -qx 'vigil_network_carrier{interface="eth0"} 0' "$P"
check "network: no virtual docker0" test "$(grep -c docker0 "$P")" -eq 0
check "network: Wi-Fi signal in dBm" grep -qx 'vigil_network_wifi_signal_dbm{interface="wlan0"} -52' "$P"
check "network: Wi-Fi link quality" grep -qx 'vigil_network_wifi_link_quality{interface="wlan0"} 58' "$P"
check "network: carrier changes" grep -qx 'vigil_network_carrier_changes_total{interface="wlan0"} 2' "$P"
check "network: a default route" grep -qx 'vigil_network_default_route 1' "$P"
check "network: no push, no reachability" test "$(grep -c push_reachable "$P")" -eq 0
check "sd: identity" grep -qx \
	'vigil_sd_info{device="mmcblk0",name="SN64G",manfid="0x000003",oemid="0x5344",date="06/2021",serial="0x9a8b7c6d",type="SD"} 1' "$P"
# 1046528 sectors of 512 bytes.
check "sd: bytes written since boot" grep -qx 'vigil_sd_written_bytes_total{device="mmcblk0"} 535822336' "$P"
check "sd: vigil's own writes" grep -qx 'vigil_self_written_bytes_total{device="mmcblk0"} 2084864' "$P"
check "sd: no eMMC wear on an SD card" test "$(grep -c life_time "$P")" -eq 0
# 0.01 TB at 535822336 bytes over the tree's uptime (4.06 days): 75.8 days.
check "sd: endurance left at this rate" grep -Eq '^vigil_sd_endurance_seconds\{device="mmcblk0"\} 65[0-9]{5}(\.[0-9]+)?$' "$P"
check "sd: 0.01 TB at this rate is worn" wait_for has_event pi4 'type=SD_WEAR state=worn device=mmcblk0 endurance_days=7'
if command -v promtool >/dev/null; then
	check "metrics: promtool lint" promtool check metrics <"$P"
fi
check "sd: no share before the card took anything" test "$(grep -c self_write_ratio "$P")" -eq 0
# The card takes 1000000 sectors (512000000 bytes) more, vigil 128000000 bytes of them:
# a quarter. Both files are kept open (pread), so they are rewritten in place.
sed 's/ 1046528 / 2046528 /g' "$R/proc/diskstats" >"$TMP/diskstats"
sed 's/^write_bytes: 2084864$/write_bytes: 130084864/' "$R/proc/self/io" >"$TMP/self_io"
copy_in_place "$TMP/diskstats" "$R/proc/diskstats"
copy_in_place "$TMP/self_io" "$R/proc/self/io"
share() { scrape pi4 "$port" && grep -qx 'vigil_sd_self_write_ratio{device="mmcblk0"} 0.25' "$TMP/pi4.prom"; }
check "sd: vigil's share of the card's writes since it started" wait_for share
check "nothing said of a connector unused from the start" test "$(grep -c 'type=DISPLAY ' "$TMP/pi4.log/events.log")" -eq 0

# --- Pi 4: changes over time -----------------------------------------------------------
C="$R/sys/class/drm/card1-HDMI-A-1"
put "$C/status" 'disconnected\n'
put "$C/edid" ""
check "screen unplugged: an event" wait_for has_event pi4 'type=DISPLAY connector=HDMI-A-1 state=disconnected'
copy_in_place "$FIXTURES/pi5/sys/class/drm/card1-HDMI-A-1/edid" "$C/edid"
put "$C/status" 'connected\n'
check "another screen plugged in: an event naming it" \
	wait_for has_event pi4 'type=DISPLAY connector=HDMI-A-1 state=connected monitor="C49RG9x" serial="HNKNC00549"'
check "a different monitor: an event" \
	wait_for has_event pi4 'type=DISPLAY_MONITOR connector=HDMI-A-1 from="DELL U3818DW 5KC03043090L" to="C49RG9x HNKNC00549"'
put "$C/dpms" 'Off\n'
check "DPMS off: an event" wait_for has_event pi4 'type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off'
put "$R/dev/cec0" 'power 1\n'
check "the TV to standby: an event" wait_for has_event pi4 'type=DISPLAY_CEC power=standby'
W="$R/sys/class/net/wlan0"
# lines PATTERN N: events.log has N lines matching PATTERN.
lines() { test "$(grep -c -- "$1" "$TMP/pi4.log/events.log")" -eq "$2"; }
for i in 1 2; do
	put "$W/operstate" 'down\n'
	put "$W/carrier" '0\n'
	check "link lost ($i): an event" wait_for lines 'type=NETWORK_LINK interface=wlan0 state=down' "$i"
	check "offline ($i): an event" wait_for lines 'type=NETWORK state=offline reason="no interface has a link"' "$i"
	sleep 0.3
	put "$W/operstate" 'up\n'
	put "$W/carrier" '1\n'
	check "online again ($i)" wait_for lines 'type=NETWORK state=online' "$i"
done
check "offline twice, no more" lines 'type=NETWORK state=offline' 2
wait "$pid"
check_eq "pi4: exit 0" 0 "$?"
out="$TMP/pi4.out"
check "summary: screen disconnected FROM-TO" \
	grep -Eq '^    (\(warning\) )?host: screen HDMI-A-1 \(.*\): disconnected [0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$' "$out"
check "summary: a different monitor" grep -Eq '^    (\(warning\) )?host: screen HDMI-A-1 monitor \(.*\): a different monitor, DELL U3818DW 5KC03043090L' "$out"
check "summary: display power Off" grep -Eq '^    (\(warning\) )?host: screen HDMI-A-1 dpms \(.*\): display power Off at [0-2][0-9]:[0-5][0-9]$' "$out"
check "summary: the TV in standby" grep -q 'the TV went to standby at [0-2][0-9]:[0-5][0-9] (HDMI-CEC)' "$out"
check "summary: offline twice, the longest" grep -Eq '^    (\(warning\) )?host: network \(2x, .*\): offline 2 times, longest [0-9]+ s$' "$out"
check "summary: the card's wear, a storage finding" grep -Eq '^    (\(warning\) )?host: storage wear \(.*\): mmcblk0 wearing out, rated endurance written in 7[0-9] days at this rate$' "$out"
check "report: the screen's finding read back from events.log" grep -Eq \
	'^    (\(warning\) )?host: screen HDMI-A-1 \(.*\): disconnected [0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$' \
	<<<"$("$VIGIL" report "$TMP"/pi4.log/host-*.csv 2>/dev/null)"
check "no warnings from the fixture's files" test "$(grep -c 'display:\|network:\|sd card:' "$TMP/pi4.err")" -eq 0

# --- the push receiver's reachability, from the push's counters ------------------------
# A receiver that accepts every push (204), then goes away.
cat >"$TMP/recv.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$TMP/recv.py" >"$TMP/recv.port" &
recv=$!
wait_for test -s "$TMP/recv.port"
printf 'push_interval: 0.2s\ntimeout: 1s\n' >"$TMP/rw.yml"
port=$(free_port)
"$VIGIL" --root "$FIXTURES/pi4" --interval 0.05 --log-dir "$TMP/push.log" --quiet \
	--remote-write "http://127.0.0.1:$(cat "$TMP/recv.port")/api/v1/write" \
	--remote-write-config "$TMP/rw.yml" --listen "127.0.0.1:$port" 2>"$TMP/push.err" &
pid=$!
reachable() { scrape push "$port" && grep -qx "vigil_network_push_reachable $1" "$TMP/push.prom"; }
check "push: the receiver reachable" wait_for reachable 1
kill "$recv"
wait "$recv" 2>/dev/null
check "push: the receiver gone, unreachable" wait_for reachable 0
kill "$pid"
wait "$pid"

# --- Pi 5: an eMMC's wear, a TV, eth0 ---------------------------------------------------
cp -r "$FIXTURES/pi5" "$TMP/pi5"
port=$(free_port)
"$VIGIL" --root "$TMP/pi5" --interval 0.05 --no-log --quiet --listen "127.0.0.1:$port" \
	2>"$TMP/pi5.err" &
pid=$!
wait_for scrape pi5 "$port"
kill "$pid"
wait "$pid"
P="$TMP/pi5.prom"
check "pi5: the TV's EDID" grep -qx \
	'vigil_display_monitor_info{connector="HDMI-A-1",card="card1",monitor="C49RG9x",serial="HNKNC00549",edid="SAM-0F99"} 1' "$P"
check "pi5: eMMC life time A" grep -qx 'vigil_sd_life_time_estimate{device="mmcblk0",type="a"} 1' "$P"
check "pi5: eMMC life time B" grep -qx 'vigil_sd_life_time_estimate{device="mmcblk0",type="b"} 2' "$P"
check "pi5: eMMC pre-EOL normal" grep -qx 'vigil_sd_pre_eol_info{device="mmcblk0"} 1' "$P"
check "pi5: no endurance without --sd-endurance-tbw" test "$(grep -c endurance "$P")" -eq 0
check "pi5: unassociated Wi-Fi has no signal" test "$(grep -c wifi_signal "$P")" -eq 0

# --- damaged files: one message each, the rest measured ----------------------------------
cp -r "$FIXTURES/pi4" "$TMP/bad"
B="$TMP/bad"
printf 'plugged\n' >"$B/sys/class/drm/card1-HDMI-A-1/status"
printf 'junk' >"$B/sys/class/drm/card1-HDMI-A-2/edid"
printf 'connected\n' >"$B/sys/class/drm/card1-HDMI-A-2/status"
printf 'many\n' >"$B/sys/class/net/wlan0/carrier_changes"
rm "$B/sys/class/net/eth0/operstate"
printf 'unconfigured\n' >"$B/dev/cec0"
printf 'garbage\n' >"$B/proc/self/io"
port=$(free_port)
"$VIGIL" --root "$B" --interval 0.05 --no-log --quiet --listen "127.0.0.1:$port" 2>"$TMP/bad.err" &
pid=$!
wait_for scrape bad "$port"
sleep 0.5
scrape bad "$port"
kill "$pid"
wait "$pid"
E="$TMP/bad.err"
P="$TMP/bad.prom"
check_eq "bad status: said once" 1 "$(grep -c 'display: card1-HDMI-A-1/status: unexpected "plugged"' "$E")"
check_eq "bad EDID: said once" 1 "$(grep -c 'display: card1-HDMI-A-2/edid: not a valid EDID base block (4 bytes)' "$E")"
check_eq "bad carrier_changes: said once" 1 "$(grep -c 'network: wlan0/carrier_changes: unexpected "many"' "$E")"
check_eq "missing operstate: said once" 1 "$(grep -c "network: cannot read .*/sys/class/net/eth0/operstate: No such file or directory" "$E")"
check_eq "CEC without a logical address: said once" 1 "$(grep -c 'display: the CEC adapter has no logical address' "$E")"
check_eq "bad /proc/self/io: said once" 1 "$(grep -c 'sd card: no write_bytes in /proc/self/io' "$E")"
check "bad: HDMI-A-1's status missing, its dpms still read" grep -qx 'vigil_display_dpms{connector="HDMI-A-1",card="card1"} 0' "$P"
check "bad: no connected series for HDMI-A-1" test "$(grep -c 'vigil_display_connected{connector="HDMI-A-1"' "$P")" -eq 0
check "bad: wlan0 still up" grep -qx 'vigil_network_up{interface="wlan0"} 1' "$P"
check "bad: the card still counted" grep -qx 'vigil_sd_written_bytes_total{device="mmcblk0"} 535822336' "$P"
check "bad: no CEC power status" test "$(grep -c cec_power "$P")" -eq 0
