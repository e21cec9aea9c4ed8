#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The dashboard and the HTML report in a real browser. Headless Chromium loads:
#   pi         the dashboard of a running vigil on the pi4-undervolt fixture, with a watch
#   gpu        the dashboard with the simulated NVML's 8 GPUs (when this build samples GPUs)
#   synthetic  the page test_dashboard renders from a hand-built history (every group,
#              a lost GPU, throttle bands, hostile names)
#   report     `vigil report --html` of the CSV fixtures
# and the DOM it built is checked (dom_check.py: charts drawn, lines with points,
# markers and bands present, no script). Screenshots: tests/out/browser-*.png.
# Not run under the sanitizers (the browser is the slow part and is not under test).
. "$(dirname "$0")/../lib.sh"

[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0
if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	not_ok "browser: chromium is installed (scripts/packages.test)"
	exit 0
fi
OUT="$TOP/tests/out"
mkdir -p "$OUT"
DOM_CHECK="$TOP/tests/integration/dom_check.py"

# chrome ARGS...: headless Chromium; its chatter (dbus and the like) goes to a log.
chrome() {
	local profile
	profile=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$profile" "$@" 2>>"$TMP/chromium.log"
}

# load NAME URL HEIGHT: the DOM Chromium built into $TMP/NAME.dom, a screenshot of the
# page 1280 px wide and HEIGHT px high into tests/out/browser-NAME.png.
load() {
	chrome --dump-dom "$2" >"$TMP/$1.dom"
	check "browser $1: Chromium rendered the page" grep -q '</html>' "$TMP/$1.dom"
	rm -f "$OUT/browser-$1.png"
	chrome --screenshot="$OUT/browser-$1.png" --window-size="1280,$3" "$2" >/dev/null
	check "browser $1: screenshot tests/out/browser-$1.png" test -s "$OUT/browser-$1.png"
}

# wait_points URL N: until the dashboard's first line has N points (N records), at most
# 30 s. Fails when vigil ($PID) exits.
wait_points() {
	local n
	for _ in $(seq 300); do
		n=$(curl -s "$1" | python3 -c '
import re, sys
m = re.search(r"<path [^>]* d=\"([^\"]*)\"", sys.stdin.read())
print(len(re.findall("[ML]", m.group(1))) if m else 0)' 2>/dev/null)
		[ "${n:-0}" -ge "$2" ] && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_vigil() {
	kill -TERM "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
}

# ---- a Raspberry Pi 4 on a weak supply, one watch ----
ROOT="$TMP/pi"
cp -a "$FIXTURES/pi4-undervolt" "$ROOT"
# /proc/stat moving on (rewritten in place: the source keeps it open), so CPU % has values.
python3 - "$ROOT/proc/stat" <<'PY' &
import sys, time
path = sys.argv[1]
lines = open(path).read().split("\n")
cpus = [ln.split() for ln in lines if ln.startswith("cpu") and not ln.startswith("cpu ")]
rest = [ln for ln in lines if not ln.startswith("cpu")]
vals = [[int(x) for x in c[1:]] for c in cpus]
k = 0
with open(path, "r+") as f:
    while True:
        k += 1
        for i, v in enumerate(vals):
            busy = 1 + (k * (i + 2)) % 9
            v[0] += busy
            v[3] += 10 - busy
        total = [sum(col) for col in zip(*vals)]
        text = "cpu  " + " ".join(map(str, total)) + "\n"
        text += "".join(f"{c[0]} " + " ".join(map(str, v)) + "\n" for c, v in zip(cpus, vals))
        text += "\n".join(rest)
        f.seek(0)
        f.write(text)
        f.truncate()
        f.flush()
        time.sleep(0.05)
PY
STAT_PID=$!
PORT=$(free_port)
URL="http://127.0.0.1:$PORT/"
"$VIGIL" --root "$ROOT" --watch chromium=chromium --listen "127.0.0.1:$PORT" --interval 0.1 \
	--no-log --quiet --duration 120 2>"$TMP/pi.err" &
PID=$!
if wait_points "$URL" 5; then
	ok "browser pi: the dashboard has 5 records"
	load pi "$URL" 1500
	# Host 4 (CPU, memory, temperature, /dev/shm), processes 1 (the count: nothing
	# matched, so no PSS), Pi 3 (temperature, ARM clock, core voltage).
	python3 "$DOM_CHECK" "browser pi" "$TMP/pi.dom" --svgs 8 --min-points 5 \
		--sections "Host=1" --sections "Processes=1" --sections "Raspberry Pi=1" \
		--section-svgs "Raspberry Pi=3" --title 'condition="under-voltage" state=set' \
		--title "Pi: under-voltage" --title "Pi: currently throttled" --title "type=START" \
		--text "vigil on " --text "Raspberry Pi 4 Model B Rev 1.4" --text "0x50005" \
		--text "Recent events" --text "What happened" --text "Pi under-voltage" \
		--text "Pi: under-voltage set" --one-unit-axes --absent-tag script
else
	not_ok "browser pi: the dashboard has 5 records"
	cat "$TMP/pi.err"
fi
stop_vigil
kill "$STAT_PID" 2>/dev/null
wait "$STAT_PID" 2>/dev/null

# ---- eight GPUs on the simulated NVML ----
if [ -f "$NVML_SIM" ]; then
	PORT=$(free_port)
	URL="http://127.0.0.1:$PORT/"
	mkdir -p "$TMP/gpulog"
	VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/healthy-8gpu" \
		"$VIGIL" --root "$FIXTURES/x86-server" --nvml "$NVML_SIM" --listen "127.0.0.1:$PORT" \
		--interval 0.1 --log-dir "$TMP/gpulog" --quiet --duration 120 2>"$TMP/gpu.err" &
	PID=$!
	if wait_points "$URL" 5 && ls "$TMP/gpulog"/gpu0-*.csv >/dev/null 2>&1; then
		load gpu "$URL" 4800
		python3 "$DOM_CHECK" "browser gpu" "$TMP/gpu.dom" --min-points 5 \
			--sections "GPU =8" --section-svgs "GPU =5" --text "NVIDIA H100 80GB HBM3" \
			--sections "All 8 GPUs=1" --section-svgs "All 8 GPUs=16" --text "What happened" \
			--title "type=START" --one-unit-axes --absent-tag script
	else
		echo "# skip: this build samples no GPU (no gpu0 CSV with the simulated NVML)"
	fi
	stop_vigil
fi

# ---- every group, from a hand-built history ----
UNIT="$BUILD_DIR/tests/test_dashboard"
if [ -x "$UNIT" ] && VIGIL_TEST_OUT="$TMP" "$UNIT" >"$TMP/unit.log" 2>&1; then
	load synthetic "file://$TMP/dashboard-synthetic.html" 2900
	python3 "$DOM_CHECK" "browser synthetic" "$TMP/synthetic.dom" --svgs 25 --min-points 25 \
		--sections "GPU =2" --section-svgs "GPU =6" --title "GPU LOST: NVML answered nothing" \
		--title "throttle: sw_power_cap" --title "type=TDP_CHANGE" --title "anomaly flags raised" \
		--text "GPU LOST: GPU is lost" --text "<script>alert(1)</script>" --one-unit-axes \
		--levels "power_enforced_limit=2" --absent-tag script
else
	echo "# skip: $UNIT is not built"
fi

# ---- vigil report --html ----
"$VIGIL" report --html "$TMP/report.html" "$FIXTURES/csv/host-2026-12-02.csv" \
	"$FIXTURES/csv/gpu0-2026-12-02.csv" >/dev/null 2>&1
check_eq "browser report: vigil report --html exit status" 0 $?
n=$(grep -o '<svg ' "$TMP/report.html" | wc -l)
load report "file://$TMP/report.html" 4400
python3 "$DOM_CHECK" "browser report" "$TMP/report.dom" --svgs "$n" --min-svgs 10 \
	--min-points 20 --sections "Host=1" --sections "GPU =1" --section-svgs "GPU =5" \
	--one-unit-axes --absent-tag script
