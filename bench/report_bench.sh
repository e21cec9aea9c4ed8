#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How fast `vigil report` reads a day: a synthetic host log of 86,400 rows (one day at
# 1 s, 4 cores) and a GPU log of 72,000 rows (two hours at 0.1 s, 2 fans), summarised
# as text and as HTML. Prints rows per second of CPU time (user + system).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${BENCH_OUT:-bench/out}
mkdir -p "$OUT"
make -s "$BUILD/libvigil.a"
drv="$OUT/report-driver"
${CC:-cc} -std=gnu17 -O2 -D_GNU_SOURCE -Isrc bench/report_driver.c "$BUILD/libvigil.a" -lz -lm -o "$drv"

python3 - "$OUT" <<'PY'
import csv, math, os, sys
out = sys.argv[1]
host = ['timestamp', 'uptime_s', 'cpu_total_pct'] + [f'cpu{i}_pct' for i in range(4)] + [
    'load1', 'load5', 'load15', 'temp_c', 'volt_core_v', 'arm_mhz', 'core_mhz', 'v3d_mhz',
    'pixel_mhz', 'h264_mhz', 'governor', 'arm_cur_mhz_cfg', 'mem_used_mb', 'mem_avail_mb',
    'shm_used_mb', 'player_pss_mb', 'player_cpu_pct', 'player_threads', 'chromium_procs',
    'chromium_pss_mb', 'throttled_raw', 'throttle_flags']
with open(os.path.join(out, 'host-2026-12-02.csv'), 'w', newline='') as fh:
    w = csv.writer(fh)
    w.writerow(host)
    for i in range(86400):
        h, m, s = i // 3600, i // 60 % 60, i % 60
        flags = 'HAS:under-voltage occurred,HAS:throttling occurred' if i > 40000 else ''
        w.writerow([f'2026-12-02T{h:02d}:{m:02d}:{s:02d}.123', 5231.0 + i,
                    round(20 + 10 * math.sin(i / 300), 2), 31.3, 12.0, 4.5, 2.0,
                    0.52, 0.48, 0.4, round(55 + 5 * math.sin(i / 900), 1), 0.8563,
                    1500.0, 500.0, 500.0, 337.5, 0.0, 'ondemand', 1500.0,
                    round(900 + i / 1000, 3), round(3000 - i / 1000, 3), 12.25 + i / 10000,
                    round(180.4 + i / 5000, 4), 21.0, 14, 6 + i // 20000,
                    round(410.5 + i / 500, 3), '0x50000' if i > 40000 else '0x0', flags])
gpu = ['timestamp', 'gpu_temp', 'gpu_tlimit', 'power_instant', 'power_limit', 'pstate',
       'gpu_clock', 'mem_clock', 'gpu_util', 'mem_util', 'vram_used_mb', 'pcie_gen',
       'pcie_width', 'throttle_bitmask', 'throttle_reasons', 'fan0_speed_pct',
       'fan0_target_pct', 'fan1_speed_pct', 'fan1_target_pct', 'sensor0_temp',
       'sensor0_target', 'sensor0_controller', 'flags']
with open(os.path.join(out, 'gpu0-2026-12-02.csv'), 'w', newline='') as fh:
    w = csv.writer(fh)
    w.writerow(gpu)
    for i in range(72000):
        t = i / 10
        h, m, s, ms = int(t // 3600), int(t // 60 % 60), int(t % 60), (i % 10) * 100
        sw = i % 600 < 60
        w.writerow([f'2026/12/02 {h:02d}:{m:02d}:{s:02d}.{ms:03d}', 70 + i % 7, 20,
                    f'{250 + i % 50:.2f}', 300, 0, 1980, 9501, 97, 41, 20480, 4, 16,
                    '0x0004' if sw else '0x0000', 'SwPowerCap' if sw else 'None',
                    55 + i % 3, 55, 56, 55, 72, 1, 7, 'FAN_SPIKE' if i % 5000 == 0 else ''])
PY

RUNS=${RUNS:-5}
measure() { # measure LABEL ROWS ARGS...: CPU seconds per run (mean of RUNS), rows per CPU second
	local label=$1 rows=$2
	shift 2
	local t0 t1 i
	t0=$(awk '{print $16 + $17}' /proc/$$/stat)
	for ((i = 0; i < RUNS; i++)); do
		"$drv" report "$@" >/dev/null
	done
	t1=$(awk '{print $16 + $17}' /proc/$$/stat)
	awk -v l="$label" -v r="$rows" -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="$RUNS" 'BEGIN {
		s = t / hz / n; if (s <= 0) s = 1 / hz / n;
		printf "%-34s %8d rows  %6.3f s CPU  %10.0f rows/s\n", l, r, s, r / s }'
}

measure "host day (text)" 86400 "$OUT/host-2026-12-02.csv"
measure "host day (text + HTML)" 86400 --html "$OUT/report.html" "$OUT/host-2026-12-02.csv"
measure "GPU 2 h at 0.1 s (text)" 72000 "$OUT/gpu0-2026-12-02.csv"
measure "host + GPU (text + HTML)" 158400 --html "$OUT/report.html" \
	"$OUT/host-2026-12-02.csv" "$OUT/gpu0-2026-12-02.csv"
ls -l "$OUT/report.html" | awk '{print "HTML size: " $5 " bytes"}'
