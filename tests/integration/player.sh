#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The signage player's liveness and the kernel's OOM kills, end to end through the
# daemon: a copy of tests/fixtures/procs (the player python3 run_linux.py, pid 812, and
# a Chromium tree) with a kernel log file and /proc/vmstat, changed while vigil runs:
# the player is OOM-killed (its process gone, the kernel's lines appended), comes back
# under a new pid; events.log, /metrics, the incident snapshot and the exit summary
# tell it.
. "$(dirname "$0")/../lib.sh"
R="$TMP/root"
L="$TMP/log"
mkdir -p "$R/dev" "$L"
cp -r "$FIXTURES/procs/proc" "$R/"
printf '6,1,1000000,-;Booting Linux on physical CPU 0x0\n' >"$R/dev/kmsg"
printf 'nr_free_pages 1000\noom_kill 3\n' >"$R/proc/vmstat"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.1; done; return 1; }
scrape() { curl -sf "http://127.0.0.1:$PORT/metrics" -o "$TMP/metrics"; }

"$VIGIL" --root "$R" --watch player=run_linux.py --watch chromium=/usr/lib/chromium \
	--interval 0.1 --listen "127.0.0.1:$PORT" --log-dir "$L" >"$TMP/out" 2>"$TMP/err" &
PID=$!
sampled() { grep -qs '^2' "$L"/host-*.csv; }
check "started: the host sampled" wait_for sampled
check "/metrics: OOM kills by victim, at 0" wait_for bash -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -qx 'vigil_oom_kills_total{victim=\"player\"} 0'"

# The OOM killer takes the player: its summary, then its Killed line; the pid goes.
cat >>"$R/dev/kmsg" <<'K'
4,2,9000000,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/player.service,task=python3,pid=812,uid=1000
3,3,9000001,-;Out of memory: Killed process 812 (python3) total-vm:900000kB, anon-rss:400000kB, file-rss:1000kB, shmem-rss:0kB, UID:1000 pgtables:900kB oom_score_adj:0
K
printf 'nr_free_pages 1000\noom_kill 4\n' >"$R/proc/vmstat"
rm -rf "$R/proc/812"
check "the kill, with its victim" wait_for grep -q 'type=OOM_KILL pid=812 comm="python3" watch="player" scope="machine" cgroup="/system.slice/player.service" rss_kb=401000' "$L/events.log"
check "the player gone, with the kernel's cause" wait_for grep -q 'type=WATCH watch="player" state="gone" old_pid=812 comm="python3" cause="out of memory (python3 pid 812)"' "$L/events.log"
check "its incident snapshot" wait_for grep -q 'type=INCIDENT reason="player gone: out of memory (python3 pid 812)" snapshot=.* watch=player$' "$L/events.log"
snap=$(ls "$L"/incidents/incident-*.log 2>/dev/null | head -1)
check "the snapshot: its last minute" grep -q '^=== player: the last minute ===' "$snap"
check "the snapshot: the kernel's lines about it" grep -q 'Out of memory: Killed process 812 (python3)' "$snap"

# A new player under another pid.
mkdir -p "$R/proc/1500"
printf 'python3\0run_linux.py\0' >"$R/proc/1500/cmdline"
printf '1500 (python3) S 1 1500 1500 0 -1 4194560 0 0 0 0 10 0 0 0 20 0 1 0 9000000 1000 100\n' >"$R/proc/1500/stat"
check "back under a new pid" wait_for grep -q 'type=WATCH watch="player" state="back" pid=1500 down_s=[0-9]* restarts=1' "$L/events.log"
check "/metrics: scraped" wait_for scrape
check_eq "/metrics: the OOM kill counted for the player" 'vigil_oom_kills_total{victim="player"} 1
vigil_oom_kills_total{victim="chromium"} 0
vigil_oom_kills_total{victim="other"} 0' "$(grep '^vigil_oom_kills_total' "$TMP/metrics")"
check "/metrics: the kernel's own count" wait_for bash -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -qx 'vigil_kernel_oom_kills_total 4'"
check "/metrics: one restart" grep -qx 'vigil_watch_restarts_total{watch="player"} 1' "$TMP/metrics"
check "/metrics: chromium never restarted" grep -qx 'vigil_watch_restarts_total{watch="chromium"} 0' "$TMP/metrics"
kill "$PID"
wait "$PID"
check_eq "clean exit" 0 $?
sum=$(sed -n '/What happened:/,/^$/p' "$TMP/out")
check "exit summary: the player was down, and is back" grep -q '(critical) host: watch down player for [0-9.]* s in all, back' <<<"$sum"
check "exit summary: the OOM kill of the player, critical" grep -q '(critical) host: OOM kill player' <<<"$sum"
check "exit summary: the restart" grep -q 'host: watch restarted player' <<<"$sum"
"$VIGIL" report "$L"/host-*.csv >"$TMP/report.txt" 2>&1
check "vigil report: the OOM kill" grep -q 'OOM kill player' "$TMP/report.txt"
