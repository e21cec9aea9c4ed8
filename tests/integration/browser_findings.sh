#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# "What happened" in a real browser (headless Chromium, as browser.sh): the dashboard of
# a simulated GPU server after an Xid 79 and a lost GPU (the findings first, events as
# sentences, legends, threshold lines, the VRAM chart, the link to the day's report),
# the day's report it serves at /report?day= (and 400/404 for bad days), the report of
# a Pi on a weak supply whose Chromium leaks, and the dashboard at a phone's width.
# Screenshots: tests/out/browser-findings-*.png.
. "$(dirname "$0")/../lib.sh"

[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	not_ok "browser findings: chromium is installed (scripts/packages.test)"
	exit 0
fi
need_nvml_sim "browser findings"
OUT="$TOP/tests/out"
mkdir -p "$OUT"
DOM_CHECK="$TOP/tests/integration/dom_check.py"
chrome() {
	local profile
	profile=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$profile" "$@" 2>>"$TMP/chromium.log"
}
# load NAME URL WIDTH HEIGHT: the DOM into $TMP/NAME.dom, a screenshot into tests/out.
load() {
	chrome --dump-dom --window-size="$3,$4" "$2" >"$TMP/$1.dom"
	check "browser findings $1: Chromium rendered the page" grep -q '</html>' "$TMP/$1.dom"
	rm -f "$OUT/browser-findings-$1.png"
	chrome --screenshot="$OUT/browser-findings-$1.png" --window-size="$3,$4" "$2" >/dev/null
	check "browser findings $1: screenshot" test -s "$OUT/browser-findings-$1.png"
}
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# ---- a GPU server after Xid 79: the GPU lost, back after a moment ----
ROOT="$TMP/root"
mkdir -p "$ROOT" "$TMP/bin"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
printf '#!/bin/sh\necho fake\n' >"$TMP/bin/lspci"
cp "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/lspci" "$TMP/bin/nvidia-smi"
sed 's/step 60/step 34/' "$TOP/tests/nvml-sim/scenarios/xid-79-lost-recovered" >"$TMP/xid79.scen"
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$TMP/xid79.scen" "$VIGIL" --root "$ROOT" \
	--nvml "$NVML_SIM" --gpu-interval 0.01 --interval 0.1 --log-dir "$TMP/log" --quiet \
	--listen "127.0.0.1:$PORT" --duration 120 2>"$TMP/gpu.err" &
PID=$!
wait_for 30 grep -qs 'type=GPU_RECOVERED' "$TMP/log/events.log"
check "browser findings gpu: the GPU came back" test $? -eq 0
# A record is about 0.9 s at this interval (core/history.h: 15 minutes in its ring):
# wait for more than five after the recovery, so every chart has a line of 5+ points.
sleep 6
load gpu "$URL/" 1280 3200
python3 "$DOM_CHECK" "browser findings gpu" "$TMP/gpu.dom" --min-points 5 \
	--sections "What happened=1" --sections "GPU =1" --section-svgs "GPU =6" \
	--text "Xid 79" --text "GPU has fallen off the bus. Action: reboot the machine" \
	--text "GPU lost for" --text "crash snapshot" \
	--text "GPU 0: Xid 79: GPU has fallen off the bus" --text "GPU 0: stopped answering (GPU is lost)" \
	--text "GPU 0: answers again" --text "GPU LOST: NVML answered nothing" \
	--text "slowdown 95°C" --text "max 90°C" --text "GPU 0 memory (VRAM)" \
	--text "today's report" --title "GPU LOST: NVML answered nothing" --one-unit-axes \
	--absent-tag script
check "browser findings gpu: the findings come before the charts" python3 - "$TMP/gpu.dom" <<'PY'
import sys
d = open(sys.argv[1], encoding="utf-8").read()
sys.exit(0 if -1 < d.find('class="findings alarm"') < d.find("<svg") else 1)
PY
# The health verdict heads the page, above what happened: the GPU answers again, but an
# Xid 79 asks for a reboot and stays until a later boot has proved it.
check "browser findings gpu: the health panel first, then the findings" python3 - "$TMP/gpu.dom" <<'PY'
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
h1, panel, found = d.find("</h1>"), d.find('<div class="health unhealthy" id="health">'), d.find('class="findings alarm"')
first = re.search(r'<div class="health unhealthy" id="health">.*?<li class="unhealthy">([^<]*)</li>', d, re.S)
ok = -1 < h1 < panel < found and first and re.match(r"unhealthy gpu0\.pcie: reboot the machine; since [0-9:]+; GPU 0: Xid 79", first.group(1))
sys.exit(0 if ok else 1)
PY
# Threshold lines: flat lines across the chart at the driver's temperatures.
check "browser findings gpu: a slowdown line on the temperature chart" grep -q '<title>slowdown 95°C</title>' "$TMP/gpu.dom"

# The day's report, served by the daemon.
DAY=$(date +%F)
check "browser findings gpu: the page links to the day's report" grep -q "href=\"/report?day=$DAY\"" "$TMP/gpu.dom"
load report-day "$URL/report?day=$DAY" 1280 3000
python3 "$DOM_CHECK" "browser findings report-day" "$TMP/report-day.dom" --min-svgs 5 \
	--sections "What happened=1" --sections "GPU =1" --text "vigil report" --text "Xid 79" \
	--text "GPU lost for" --one-unit-axes --absent-tag script
code() { curl -s -o /dev/null -w '%{http_code}' "$URL/report?$1"; }
check_eq "report?day: a day without logs is 404" 404 "$(code day=2001-01-01)"
check_eq "report?day: a malformed day is 400" 400 "$(code day=yesterday)"
check_eq "report?day: a path is 400" 400 "$(code 'day=..%2F..%2Fetc%2Fpasswd')"
check_eq "report?day: no day is 400" 400 "$(code '')"
check_eq "report?day: month 13 is 400" 400 "$(code day=2026-13-01)"

# A phone's width: the page measures itself in a copy with a script added (the page
# itself has none), then Chromium lays it out 390 px wide.
curl -s "$URL/" | sed 's/<meta http-equiv="refresh"[^>]*>//' |
	sed 's|</body>|<script>document.body.setAttribute("data-sw", document.documentElement.scrollWidth); document.body.setAttribute("data-iw", window.innerWidth)</script></body>|' >"$TMP/phone.html"
load phone "file://$TMP/phone.html" 390 2400
sw=$(grep -o 'data-sw="[0-9]*"' "$TMP/phone.dom" | grep -o '[0-9]*')
iw=$(grep -o 'data-iw="[0-9]*"' "$TMP/phone.dom" | grep -o '[0-9]*')
# (headless Chromium may keep its window at least 500 px wide: still a phone's layout)
check "browser findings phone: a narrow window (${iw:-?} px)" test "${iw:-9999}" -le 500
check "browser findings phone: nothing wider than the window (${sw:-?} of ${iw:-?} px)" \
	test "${sw:-9999}" -le "${iw:-0}"
kill -TERM "$PID"
wait "$PID"

# ---- a power limit that moves: the enforced limit drawn through time ----
# tdp-change at a sample per 0.1 s: the limit 600 -> 450 W at 2 s, 452 W at 3 s, back to
# 600 W at 4 s, the enforced one alone down to 300 W at 6 s; a record is about a second.
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/tdp-change" \
	"$VIGIL" --root "$ROOT" --nvml "$NVML_SIM" --gpu-interval 0.1 --gpu-slow-interval 0.1 \
	--interval 0.1 --log-dir "$TMP/tdplog" --quiet --listen "127.0.0.1:$PORT" --duration 120 \
	2>"$TMP/tdp.err" &
PID=$!
wait_for 30 grep -qs 'type=ENFORCED_LIMIT_CHANGE' "$TMP/tdplog/events.log"
check "browser findings tdp: the enforced limit changed" test $? -eq 0
sleep 3
load tdp "$URL/" 1280 2000
python3 "$DOM_CHECK" "browser findings tdp" "$TMP/tdp.dom" --sections "GPU =1" \
	--section-svgs "GPU =6" --text "GPU 0 fans" --text "power_enforced_limit (now 300W)" \
	--levels "power_enforced_limit=3" --one-unit-axes --absent-tag script
kill -TERM "$PID"
wait "$PID"

# ---- a Pi on a weak supply whose Chromium leaks: two hours, one row a minute ----
python3 - "$FIXTURES/csv/host-2026-12-02.csv" "$TMP/pi/host-2026-12-02.csv" "$TMP/pi/events.log" <<'PY'
import csv, os, sys
src, dst, ev = sys.argv[1:4]
os.makedirs(os.path.dirname(dst), exist_ok=True)
rows = list(csv.reader(open(src, newline="")))
head, row = rows[0], rows[1]
col = {n: i for i, n in enumerate(head)}
with open(dst, "w", newline="") as f, open(ev, "w") as e:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(head)
    e.write("2026-12-02T10:00:00.000001 type=START version=0.1.0 pid=1\n")
    for k in range(120):
        r = list(row)
        r[col["timestamp"]] = "2026-12-02T%02d:%02d:00.000" % (10 + k // 60, k % 60)
        r[col["chromium_procs"]] = str(6 + k // 10)          # +6 an hour
        r[col["chromium_pss_mb"]] = "%.1f" % (400 + 2.5 * k)  # +150 MB an hour
        uv = 40 <= k < 55
        r[col["throttled_raw"]] = "0x50005" if uv else ("0x50000" if k >= 40 else "0x0")
        r[col["throttle_flags"]] = ("NOW:under-voltage,NOW:currently throttled," if uv else "") + \
            ("HAS:under-voltage occurred,HAS:throttling occurred" if k >= 40 else "")
        w.writerow(r)
        if k in (40, 55):
            e.write('2026-12-02T%02d:%02d:00.000001 type=RPI_THROTTLE condition="under-voltage" state=%s throttled=0x50005\n'
                    % (10 + k // 60, k % 60, "set" if k == 40 else "cleared"))
PY
"$VIGIL" report --html "$TMP/pi.html" "$TMP/pi/host-2026-12-02.csv" >/dev/null 2>"$TMP/pi.err"
check_eq "browser findings pi: report exit 0" 0 $?
"$VIGIL" report "$TMP/pi/host-2026-12-02.csv" >"$TMP/pi.txt" 2>>"$TMP/pi.err"
check "browser findings pi: the text names the leak" grep -q '^    (warning) host: rising chromium_procs' "$TMP/pi.txt"
load pi "file://$TMP/pi.html" 1280 3600
python3 "$DOM_CHECK" "browser findings pi" "$TMP/pi.dom" --min-svgs 5 --min-points 20 \
	--sections "What happened=1" --sections "Host=1" \
	--text "rising chromium_procs" --text "rising chromium_pss_mb" --text "Pi under-voltage" \
	--title "Pi: under-voltage" --title "Pi: currently throttled" --text "Pi: under-voltage" \
	--one-unit-axes --absent-tag script
check_eq "browser findings pi: no GPU section on a Pi" 0 "$(grep -c '<h2>GPU' "$TMP/pi.dom")"
