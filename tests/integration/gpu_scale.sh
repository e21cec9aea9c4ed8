#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 64 GPUs (tests/nvml-sim/scenarios/healthy-64gpu): every one of them in its daily CSV,
# in /metrics (one series each, its own index and UUID) and in the live view on a
# terminal tall enough for them; on a short one the view says how many it left out.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios/healthy-64gpu"
need_nvml_sim "gpu_scale" "$SCEN"
. "$(dirname "$0")/../tmux.sh"
need_tmux "gpu_scale"
tmux_keep
ROOT=/
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

SIM="VIGIL_NVML_SCENARIO=$SCEN"

# --- a terminal tall enough: every GPU a line; /metrics meanwhile -----------------------
term tall 160x100 "$SIM" -- --nvml "$NVML_SIM" --interval 0.5 --gpu-interval 0.1 --duration 60 --listen "127.0.0.1:$PORT"
wait_for 30 has_line tall '^gpu63 '
check "live: the 64th GPU is drawn" test $? -eq 0
s=$(screen_of tall)
check_eq "live: one line per GPU, gpu0 to gpu63" "$(seq -s ' ' 0 63)" \
	"$(grep -oE '^gpu[0-9]+ ' <<<"$s" | tr -d 'gpu ' | paste -sd' ')"
check "live: the header counts them" grep -q '| 64 GPUs' <<<"$(head -1 <<<"$s")"
m=""
for _ in $(seq 100); do
	m=$(curl -s "http://127.0.0.1:$PORT/metrics")
	[ "$(grep -c '^vigil_gpu_temperature_celsius{' <<<"$m")" -eq 64 ] && break
	sleep 0.1
done
check_eq "metrics: a temperature series per GPU, gpu 0 to 63" "$(seq -s ' ' 0 63)" \
	"$(sed -n 's/^vigil_gpu_temperature_celsius{gpu="\([0-9]*\)".*/\1/p' <<<"$m" | sort -n | paste -sd' ')"
check_eq "metrics: each with its own UUID" 64 \
	"$(grep -o '^vigil_gpu_temperature_celsius{[^}]*uuid="[^"]*"' <<<"$m" | sort -u | wc -l)"
check_eq "metrics: GPU 63's values (53 C, 133 W)" "53 133" \
	"$(awk '$1 ~ /^vigil_gpu_temperature_celsius\{gpu="63"/ { t = $2 } $1 ~ /^vigil_gpu_power_watts\{gpu="63"/ { p = $2 } END { print t, p }' <<<"$m")"
check_eq "metrics: every GPU up" 64 "$(grep -c '^vigil_gpu_up{.*} 1$' <<<"$m")"
# vigil status: every GPU's two lines, the verdict and what happened, none cut off.
"$VIGIL" status --log-dir "$TMP/tall" >"$TMP/status.out" 2>&1
check_eq "status: two lines per GPU" 128 "$(grep -cE '^gpu[0-9]+[ :]' "$TMP/status.out")"
check "status: the verdict" grep -q '^Health: healthy: every component$' "$TMP/status.out"
check "status: what happened, whole" grep -q '^What happened' "$TMP/status.out"
kill -TERM "$(cat "$TMP/tall/vigil.pid")"
wait_for 20 has_line tall '^EXIT='
check_eq "vigil exits 0" "EXIT=0" "$(screen_of tall | grep -o '^EXIT=[0-9]*')"

# --- the CSV files: one per GPU, each with its rows, as wide as its header --------------
check_eq "csv: one daily file per GPU" 64 "$(ls "$TMP"/tall/gpu*-*.csv | wc -l)"
check_eq "csv: each has rows, every row as wide as its header" "" "$(python3 - "$TMP/tall" <<'PY'
import csv, glob, sys
bad = []
for n in range(64):
    files = glob.glob(f"{sys.argv[1]}/gpu{n}-*.csv")
    rows = list(csv.reader(open(files[0], newline=''))) if files else []
    if len(rows) < 3 or any(len(r) != len(rows[0]) for r in rows):
        bad.append(str(n))
    elif rows[-1][rows[0].index('gpu_temp')] != f"{30 + n % 40}":
        bad.append(f"{n}:temp")
print(" ".join(bad))
PY
)"

# --- a short terminal: the GPUs that fit, and how many did not --------------------------
term short 80x24 "$SIM" -- --nvml "$NVML_SIM" --interval 0.5 --gpu-interval 0.1 --duration 60
wait_for 30 has_line short 'more GPUs'
s=$(screen_of short)
shown=$(grep -cE '^gpu[0-9]+ ' <<<"$s")
more=$(sed -n 's/^\.\.\. \([0-9]*\) more GPUs.*/\1/p' <<<"$s")
check_eq "live 80x24: the GPUs drawn and those counted make 64" 64 "$((shown + ${more:-0}))"
check "live 80x24: nothing past the last row" test "$(wc -l <<<"$s")" -le 24
kill -TERM "$(cat "$TMP/short/vigil.pid")"
