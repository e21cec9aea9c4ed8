#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The live view on a terminal, driven in tmux: a full screen redrawn in place with its
# header always on the first line, fitted to 80x24 and to 200x50, columns for what the
# machine has (8 simulated GPUs; a Pi fixture), the alternate screen left on exit,
# SIGTERM and SIGINT (the exit summary stays on the terminal), colour only without
# NO_COLOR, and plain scrolling rows into a pipe.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
need_tmux "live"
need_nvml_sim "live"
ROOT="$TMP/root"
mkdir -p "$ROOT"
cp -a "$FIXTURES/x86-server/." "$ROOT/"
tmux_keep
SIM="VIGIL_NVML_SCENARIO=$TOP/tests/nvml-sim/scenarios/healthy-8gpu"

# --- 8 GPUs at 80x24 -------------------------------------------------------------------
term g8 80x24 -u NO_COLOR "$SIM" -- --nvml "$NVML_SIM" --interval 0.5 --gpu-interval 0.1 --duration 30
wait_for 20 has_line g8 '^gpu7 '
check "80x24: the eighth GPU is drawn" test $? -eq 0
s1=$(screen_of g8)
check "80x24: header on the first line" grep -q '^ vigil [0-9.]* | [0-9:]* | up 0h00m | host | 8 GPUs' <<<"$(head -1 <<<"$s1")"
check_eq "80x24: the health verdict under it" "health: healthy: every component" "$(sed -n 2p <<<"$s1")"
check_eq "80x24: one line per GPU" 8 "$(grep -c '^gpu[0-7] ' <<<"$s1")"
check "80x24: a GPU line has temperature, power/limit, clocks, util, VRAM, reasons" \
	grep -Eq '^gpu0 +30C +70/700W +345/2619 +0% +0\.5/79\.6 .*GpuIdle' <<<"$s1"
check "80x24: host columns, no Pi columns" grep -q '^host .*load .*mem used' <<<"$s1"
check_eq "80x24: no Pi table" 0 "$(grep -c 'V3D\|volt' <<<"$s1")"
check "80x24: the findings at the bottom" grep -q '^What happened' <<<"$s1"
check "80x24: nothing wider than the terminal" test "$(awk '{ if (length($0) > 80) n++ } END { print n + 0 }' <<<"$s1")" -eq 0
check "80x24: within 24 lines" test "$(wc -l <<<"$s1")" -le 24
sleep 2.5
s2=$(screen_of g8)
check "80x24: still the header on the first line after refreshes" grep -q '^ vigil ' <<<"$(head -1 <<<"$s2")"
check "80x24: refreshed in place (the clock moved)" test "$(head -1 <<<"$s1")" != "$(head -1 <<<"$s2")"
check_eq "80x24: still one line per GPU" 8 "$(grep -c '^gpu[0-7] ' <<<"$s2")"
check "80x24: colour on a terminal (reverse title)" grep -q $'\033\\[7m vigil' <<<"$(T capture-pane -e -p -t g8)"
# SIGTERM: the alternate screen is left, the summary stays on the terminal.
kill -TERM "$(cat "$TMP/g8/vigil.pid")"
wait_for 10 has_line g8 '^EXIT='
s3=$(T capture-pane -p -S - -t g8)
check "SIGTERM: exit 0" grep -qx 'EXIT=0' <<<"$s3"
check "SIGTERM: the full screen is gone" test "$(grep -c '^ vigil [0-9.]* |' <<<"$s3")" -eq 0
check "SIGTERM: the exit summary is on the terminal" grep -q '^  What happened' <<<"$s3"
T kill-session -t g8

# --- SIGINT and NO_COLOR -----------------------------------------------------------------
term nc 80x24 "$SIM" NO_COLOR=1 -- --nvml "$NVML_SIM" --interval 0.5 --duration 30
wait_for 20 has_line nc '^gpu7 '
check "NO_COLOR: drawn" test $? -eq 0
check_eq "NO_COLOR: no colour" 0 "$(T capture-pane -e -p -t nc | grep -c $'\033\\[[0-9;]*m')"
kill -INT "$(cat "$TMP/nc/vigil.pid")"
wait_for 10 has_line nc '^EXIT='
s=$(screen_of nc)
check "SIGINT: exit 0" grep -qx 'EXIT=0' <<<"$s"
check "SIGINT: the full screen is gone" test "$(grep -c '^ vigil [0-9.]* |' <<<"$s")" -eq 0
T kill-session -t nc

# --- 8 GPUs at 200x50: more columns ------------------------------------------------------
term wide 200x50 "$SIM" -- --nvml "$NVML_SIM" --interval 0.5 --duration 30
wait_for 20 has_line wide '^gpu7 .* P0 '
s=$(screen_of wide)
check "200x50: header" grep -q '^ vigil ' <<<"$(head -1 <<<"$s")"
check "200x50: the wide GPU columns" grep -Eq '^gpu .*mem +P pcie' <<<"$s"
check "200x50: pstate and PCIe on a GPU line" grep -Eq '^gpu3 .* P0 +5x16 ' <<<"$s"
check "200x50: nothing wider than the terminal" test "$(awk '{ if (length($0) > 200) n++ } END { print n + 0 }' <<<"$s")" -eq 0
check "200x50: within 50 lines" test "$(wc -l <<<"$s")" -le 50
kill -TERM "$(cat "$TMP/wide/vigil.pid")"
T kill-session -t wide

# --- a Pi: the reference's table, rows kept on screen --------------------------------
ROOT_OF="$FIXTURES/pi4-undervolt" term pi 80x24 -- --interval 0.3 --duration 30
wait_for 20 has_line pi 'What happened'
sleep 1.5
s=$(screen_of pi)
check "Pi: header" grep -q '^ vigil .*Raspberry Pi 4' <<<"$(head -1 <<<"$s")"
check "Pi: several recent rows" test "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' <<<"$s")" -ge 3
check "Pi: under-voltage among the findings" grep -q '^  (warning) pi: Pi under-voltage' <<<"$s"
# The reference's row is 82 columns before its flags: at 80 the narrow table keeps them.
check "Pi: the flags column at 80 columns" grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2} .*M UV,THR had:UV,THR$' <<<"$s"
check "Pi: the narrow table's header names the flags" grep -qE '^   time  CPU%.* flags$' <<<"$s"
check_eq "Pi: no GPU part" 0 "$(grep -c '^gpu' <<<"$s")"
check "Pi: nothing wider than the terminal" test "$(awk '{ if (length($0) > 80) n++ } END { print n + 0 }' <<<"$s")" -eq 0
kill -TERM "$(cat "$TMP/pi/vigil.pid")"
T kill-session -t pi

# --- a Pi on a terminal wide enough for the reference's own row -------------------------
ROOT_OF="$FIXTURES/pi4-undervolt" term piw 200x30 -- --interval 0.3 --duration 30
wait_for 20 has_line piw "NOW:under-voltage"
s=$(screen_of piw)
check "Pi 200 columns: the reference's table header" grep -q '^   time    CPU%  cores(0-3)   temp    ARM    V3D  volt' <<<"$s"
check "Pi 200 columns: the reference's flags" grep -qE '^  [0-9]{2}:[0-9]{2}:[0-9]{2} .*NOW:under-voltage,NOW:currently throttled,had:under-voltage occurred' <<<"$s"
kill -TERM "$(cat "$TMP/piw/vigil.pid")"
T kill-session -t piw

# --- into a pipe: today's plain rows ---------------------------------------------------
"$VIGIL" --root "$FIXTURES/pi4-undervolt" --no-log --live --interval 0.05 --count 3 2>/dev/null | cat >"$TMP/pipe.out"
check "pipe: the reference's header" grep -q '^   time    CPU%  cores' "$TMP/pipe.out"
check_eq "pipe: one row per sample" 3 "$(grep -cE '^  [0-9]{2}:[0-9]{2}:[0-9]{2} ' "$TMP/pipe.out")"
check_eq "pipe: no screen control" 0 "$(grep -c $'\033' "$TMP/pipe.out")"

# --- an 8-GPU emergency (gpu3 falls off the bus), as a person sees it -----------------
# While the screen is shown, the daemon's messages (stderr, the same terminal) would be
# drawn over it, wrap, and mark rows as wrapped (capture-pane -J joins those): they are
# held until the screen is left. After Ctrl+C the last screen tells what happened.
EMERG="VIGIL_NVML_SCENARIO=$TOP/tests/nvml-sim/scenarios/emergency-8gpu"
for size in 80x24 60x20 100x30; do
	n=em${size%x*}
	term "$n" "$size" -u NO_COLOR "$EMERG" -- --nvml "$NVML_SIM" --interval 0.3 --gpu-interval 0.1 --duration 60
	wait_for 20 has_line "$n" 'gpu3: Xid 79'
	check "emergency $size: the Xid 79 on the screen" test $? -eq 0
	sleep 1
	check "emergency $size: the verdict under the title, the lost GPU's action first" \
		grep -Eq '^unhealthy gpu3?\.pcie: reboot the machine; since ' <<<"$(screen_of "$n" | sed -n 2p)"
	check_eq "emergency $size: no row wider than the terminal, none wrapped" 0 \
		"$(T capture-pane -p -J -t "$n" | awk -v w="${size%x*}" 'length($0) > w' | wc -l)"
	check_eq "emergency $size: none of the daemon's messages on the screen" 0 \
		"$(screen_of "$n" | grep -c '^vigil: ')"
done
for n in em60 em100; do T kill-session -t "$n"; done
# Severity as colour and label: critical red, warning yellow, fyi dim.
# coloured: each line with the colour it starts in (capture-pane -e writes a colour
# where it changes).
coloured() {
	T capture-pane -e -p -t "$1" | python3 -c '
import re, sys
fg, dim = "default", False
def apply(seq):
    global fg, dim
    for code in (seq or "0").split(";"):
        if code == "0":
            fg, dim = "default", False
        elif code == "2":
            dim = True
        elif code == "22":
            dim = False
        else:
            fg = {"39": "default", "31": "red", "33": "yellow"}.get(code, fg)
for line in sys.stdin:
    lead = re.match(r"(\x1b\[[0-9;]*m)*", line).group(0)
    for m in re.finditer(r"\x1b\[([0-9;]*)m", lead):
        apply(m.group(1))
    start = fg if fg != "default" or not dim else "dim"
    for m in re.finditer(r"\x1b\[([0-9;]*)m", line[len(lead):]):
        apply(m.group(1))
    print(start, re.sub(r"\x1b\[[0-9;]*m", "", line), sep="\t", end="")'
}
col=$(coloured em80)
check "emergency: a critical finding red, labelled" grep -q $'^red\t  (critical) gpu3: Xid 79' <<<"$col"
check "emergency: a warning yellow, labelled" grep -q $'^yellow\t  (warning) gpu3: NVML failures' <<<"$col"
check "emergency: an fyi finding dim, labelled" grep -q $'^dim\t  (fyi) gpu0: throttle reason GpuIdle' <<<"$col"
check "emergency: the lost GPU is still lost, no end yet" grep -q '^  (critical) gpu3: GPU lost, still lost (' <<<"$(screen_of em80)"
T send-keys -t em80 C-c
wait_for 10 has_line em80 '^EXIT='
last=$(screen_of em80)
check "emergency: after Ctrl+C the last screen says what happened" grep -q '^  What happened:' <<<"$last"
check "emergency: ... the Xid 79 on it" grep -q '^    (critical) gpu3: Xid 79 .*fallen off the bus' <<<"$last"
check "emergency: ... the loss on it" grep -q '^    (critical) gpu3: GPU lost, still lost at the end' <<<"$last"
all=$(T capture-pane -p -J -S - -t em80)
check "emergency: the held messages follow the screen" grep -q '^vigil: warning: gpu3: CRASH #1 → ' <<<"$all"
check_eq "emergency: the summary's rules fit 80 columns" 0 "$(grep -c '^  =\{79,\}' <<<"$all")"
check "emergency: the rules are there" grep -q '^  =\{78\}$' <<<"$all"
T kill-session -t em80
