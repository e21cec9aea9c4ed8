#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The service-manager notifications (Type=notify, WatchdogSec=): READY=1 once sampling
# runs, WATCHDOG=1 keep-alives only when $WATCHDOG_USEC asks for them (and
# $WATCHDOG_PID, if set, is vigil), STOPPING=1 on the way out; to a socket path or an
# abstract name.
. "$(dirname "$0")/../lib.sh"

# listen ADDRESS OUT: collect datagrams sent to ADDRESS ("@name" = abstract) into OUT,
# one per line ('\n' inside a datagram written as '|'), until STOPPING=1 or 30 s.
# Sets LPID; the socket exists once OUT.ready does.
listen() {
	python3 - "$1" "$2" <<'PY' &
import socket, sys
addr, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
s.settimeout(30)
open(out + ".ready", "w").close()
with open(out, "w") as f:
    while True:
        try:
            d = s.recv(4096).decode()
        except OSError:
            break
        f.write(d.replace("\n", "|") + "\n")
        f.flush()
        if d.startswith("STOPPING=1"):
            break
PY
	LPID=$!
	for _ in $(seq 100); do
		[ -f "$2.ready" ] && return 0
		sleep 0.05
	done
	return 1
}

# run_case NAME ADDRESS ENV...: vigil for 1.5 s at 0.1 s under ENV, notifying ADDRESS.
run_case() {
	local name=$1 addr=$2
	shift 2
	listen "$addr" "$TMP/$name.dg" || not_ok "notify $name: receiver ready"
	# WATCHDOG_PID=self: the shell's pid, which exec hands on to vigil.
	env "NOTIFY_SOCKET=$addr" "$@" sh -c \
		'[ "${WATCHDOG_PID:-}" = self ] && export WATCHDOG_PID=$$; exec "$0" "$@"' \
		"$VIGIL" --no-log --quiet --interval 0.1 --duration 1.5 2>"$TMP/$name.err"
	check_eq "notify $name: vigil exits 0" 0 $?
	wait "$LPID"
}

run_case path "$TMP/notify.sock" WATCHDOG_USEC=400000
dg="$TMP/path.dg"
check_eq "notify path: READY=1 first" "READY=1" "$(head -1 "$dg")"
check_eq "notify path: STOPPING=1 last" "STOPPING=1" "$(tail -1 "$dg")"
check_eq "notify path: one READY" 1 "$(grep -c '^READY=1$' "$dg")"
# Keep-alives at half of 0.4 s over 1.5 s: several, each on its own.
check "notify path: WATCHDOG=1 keep-alives ($(grep -c '^WATCHDOG=1$' "$dg"))" \
	test "$(grep -c '^WATCHDOG=1$' "$dg")" -ge 2
check_eq "notify path: nothing else sent" 0 "$(grep -cvE '^(READY|WATCHDOG|STOPPING)=1$' "$dg")"

run_case abstract "@vigil-notify-$$-$RANDOM" WATCHDOG_USEC=400000 WATCHDOG_PID=self
dg="$TMP/abstract.dg"
check_eq "notify abstract: READY=1 first" "READY=1" "$(head -1 "$dg")"
check_eq "notify abstract: STOPPING=1 last" "STOPPING=1" "$(tail -1 "$dg")"
check "notify abstract, WATCHDOG_PID is vigil: keep-alives" grep -q '^WATCHDOG=1$' "$dg"

# No watchdog asked for, or asked of another process: no keep-alives.
run_case nowatchdog "$TMP/nowd.sock"
check_eq "notify without WATCHDOG_USEC: READY, STOPPING only" "READY=1 STOPPING=1" \
	"$(tr '\n' ' ' <"$TMP/nowatchdog.dg" | sed 's/ $//')"
run_case otherpid "$TMP/other.sock" WATCHDOG_USEC=400000 WATCHDOG_PID=1
check_eq "notify with WATCHDOG_PID of another process: no keep-alives" "READY=1 STOPPING=1" \
	"$(tr '\n' ' ' <"$TMP/otherpid.dg" | sed 's/ $//')"

# Outside a service: nothing to notify, and no complaint.
env -u NOTIFY_SOCKET "$VIGIL" --no-log --quiet --count 1 2>"$TMP/plain.err"
check_eq "no NOTIFY_SOCKET: exits 0" 0 $?
check "no NOTIFY_SOCKET: no error" bash -c "! grep -qi notify '$TMP/plain.err'"
