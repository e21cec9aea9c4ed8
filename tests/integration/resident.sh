#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What start-up used once leaves the daemon's resident set (util/textmap.h): once the
# loop runs, the program's and libc's read-only mappings that only the loader read (the
# ELF headers, symbol tables and relocations, at offset 0 of each file) hold no page,
# though the daemon goes on running. The program is linked -z now (bind_now.sh), so no
# lazy binding reads a symbol table again. Read from /proc/PID/smaps (proc(5)).
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "resident" "$SCEN"
ROOT="$TMP/root"
gpu_server "$ROOT" "$TMP/bin"
EV="$TMP/run/events.log"
PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$SCEN/healthy-1gpu" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$ROOT" --gpu-interval 0.1 --interval 1 --duration 30 --log-dir "$TMP/run" \
	--quiet 2>"$TMP/err" &
PID=$!
for _ in $(seq 100); do grep -qs 'type=START' "$EV" && break; sleep 0.1; done
sleep 3 # a few host and GPU ticks after the drop

# rss_at_zero FILE: resident kB of the daemon's read-only mapping of FILE at offset 0.
rss_at_zero() {
	awk -v f="$1" '/^[0-9a-f]+-[0-9a-f]+ / {m = ($2 == "r--p" && $3 == "00000000" && $6 == f)}
		m && /^Rss:/ {print $2; exit}' "/proc/$PID/smaps"
}
exe=$(readlink "/proc/$PID/exe")
libc=$(awk '$6 ~ /\/libc\.so\.6$/ {print $6; exit}' "/proc/$PID/maps")
check "the daemon runs" kill -0 "$PID"
check_eq "vigil's headers and symbol tables: not resident (kB)" 0 "$(rss_at_zero "$exe")"
check_eq "libc's headers and symbol tables: not resident (kB)" 0 "$(rss_at_zero "$libc")"
rows() { cat "$TMP"/run/gpu0-*.csv 2>/dev/null | wc -l; }
before=$(rows)
sleep 1
check "the GPU's rows go on after the drop ($before, then $(rows))" test "$(rows)" -gt "$before"
kill "$PID"
wait "$PID"
check_eq "it stops cleanly (exit status)" 0 "$?"
