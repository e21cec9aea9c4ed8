#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GET /report?day= gives its memory back: the daemon's resident memory after three
# reports is within 1 MiB of what it was before the first (the page, its gzip and what
# the report's thread freed in its malloc arena are returned once the reply is copied:
# web/http_later.c, http_later_release). A day of 8 GPUs, 86,400 rows each (one GPU
# log written, seven hard links), is read each time.
. "$(dirname "$0")/../lib.sh"

[ -x "$VIGIL" ] || exit 0
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
DAY=$(date -d '2 days ago' +%F)
LOGS=$TMP/logs
mkdir -p "$LOGS"
python3 "$FIXTURES/gpu_day.py" "$LOGS" "$DAY" 8 86400

serve_day_logs "$LOGS" "$PORT"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status"; }
# A few scrapes first: the transport's own buffers are in place before the baseline.
for _ in 1 2 3; do curl -s -o /dev/null --compressed "$URL/metrics"; done
sleep 1
before=$(rss)
after=()
for r in 1 2 3; do
	code=$(curl -s -o "$TMP/page.$r" -w '%{http_code}' --compressed --max-time 120 "$URL/report?day=$DAY")
	check_eq "report $r: 200" 200 "$code"
	sleep 0.5
	after+=("$(rss)")
done
peak=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID/status")
last=${after[2]}
check "RSS back after 3 reports: before $before kB, after each ${after[*]} kB (peak $peak kB), within 1024 kB" \
	test "$((last - before))" -le 1024
check "the reports used memory while they were made (peak $peak kB > before $before kB + 1024)" \
	test "$peak" -gt "$((before + 1024))"
kill -TERM "$PID"
wait "$PID"
check_eq "stops cleanly" 0 $?
