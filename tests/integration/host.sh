#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The host log end to end on recorded fixture trees, checked cell by cell.
. "$(dirname "$0")/../lib.sh"

# run_tree TREE: copy the tree, start vigil on it, swap in the second /proc/stat reading
# in place (same inode, as the kernel's file) before the first sample, wait for 2 samples.
run_tree() {
	rm -rf "$TMP/root" "$TMP/log"
	cp -a "$FIXTURES/$1" "$TMP/root"
	"$VIGIL" --root "$TMP/root" --interval 1 --count 2 --log-dir "$TMP/log" --quiet 2>"$TMP/err" &
	local pid=$!
	sleep 0.3
	cat "$TMP/root/proc/stat.next" >"$TMP/root/proc/stat"
	wait "$pid"
	CSV=$(ls "$TMP"/log/host-*.csv)
}
cell() { csv_cell "$CSV" "$1" "$2"; }

run_tree pi4
check_eq "pi4: header" \
	"timestamp,uptime_s,cpu_total_pct,cpu0_pct,cpu1_pct,cpu2_pct,cpu3_pct,load1,load5,load15,temp_c,volt_core_v,arm_mhz,core_mhz,v3d_mhz,pixel_mhz,h264_mhz,governor,arm_cur_mhz_cfg,mem_used_mb,mem_avail_mb,shm_used_mb,player_pss_mb,player_cpu_pct,player_threads,chromium_procs,chromium_pss_mb,throttled_raw,throttle_flags" \
	"$(head -1 "$CSV" | cut -d, -f1-29)"
check_eq "pi4: rows" 3 "$(wc -l <"$CSV")"
check "pi4: timestamp with ms" grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3},' <(sed -n 2p "$CSV")
check_eq "pi4: cpu_total_pct" 47.8 "$(cell 1 cpu_total_pct)"
check_eq "pi4: cpu0..3" "27.0 62.0 3.0 99.0" "$(echo $(cell 1 cpu0_pct) $(cell 1 cpu1_pct) $(cell 1 cpu2_pct) $(cell 1 cpu3_pct))"
check_eq "pi4: no time passed is missing, not 0" "" "$(cell 2 cpu_total_pct)"
check_eq "pi4: load" "1.13 0.98 0.87" "$(echo $(cell 1 load1) $(cell 1 load5) $(cell 1 load15))"
check_eq "pi4: temp_c from cpu_thermal" 47.236 "$(cell 1 temp_c)"
check_eq "pi4: governor" ondemand "$(cell 1 governor)"
check_eq "pi4: arm_cur_mhz_cfg" 600.0 "$(cell 1 arm_cur_mhz_cfg)"
check_eq "pi4: mem_used_mb" 662.9765625 "$(cell 1 mem_used_mb)"
check_eq "pi4: mem_avail_mb" 3130.34375 "$(cell 1 mem_avail_mb)"
check_eq "pi4: shm_used_mb" 60.0 "$(cell 1 shm_used_mb)"
check_eq "pi4: no player watch, empty" "" "$(cell 1 player_pss_mb)"

run_tree x86-server
check_eq "x86: 32 per-core columns" 32 "$(head -1 "$CSV" | tr , '\n' | grep -c '^cpu[0-9]*_pct$')"
check_eq "x86: cpu_total_pct" 46.5 "$(cell 1 cpu_total_pct)"
check_eq "x86: cpu31" 93.0 "$(cell 1 cpu31_pct)"
check_eq "x86: temp from coretemp whatever its hwmon number" 52.0 "$(cell 1 temp_c)"
check_eq "x86: governor" performance "$(cell 1 governor)"

run_tree broken
check_eq "broken: still two rows" 3 "$(wc -l <"$CSV")"
check_eq "broken: cpu0 from the sound line" 30.0 "$(cell 1 cpu0_pct)"
check_eq "broken: garbage core is missing" "" "$(cell 1 cpu1_pct)"
check_eq "broken: empty loadavg is missing" "" "$(cell 1 load1)"
check_eq "broken: junk uptime does not stop sampling" 1 "$(grep -c 'type=STOP samples=2' "$TMP/log/events.log")"
