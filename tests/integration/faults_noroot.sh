#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults: running as an unprivileged user (root switches to nobody with setpriv; the
# test skips when not root). What needs a privilege (the kernel log /dev/kmsg, the Pi
# firmware's /dev/vcio, another user's process PSS, a root-owned log directory) is
# reported once, saying what would grant it, and the rest works: host rows are written.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

if ! is_root; then
	ok "not root # skip needs root to switch to an unprivileged user"
	exit 0
fi
if ! command -v setpriv >/dev/null; then
	not_ok "not root: setpriv (util-linux) is missing"
	exit 0
fi
chmod 755 "$TMP"
mkdir -m 777 "$TMP/home"
# The binary and the fixture the user runs, where the user can reach them.
{ read -r VIGIL_ALL; read -r PI_NOACCESS; } < <(reachable_by_all "$VIGIL" "$FIXTURES/pi4-noaccess")
# nobody ARGS...: vigil as uid/gid 65534, no groups.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$TMP/home" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" "$VIGIL_ALL" --quiet --interval 0.05 --nvml /nonexistent "$@"
}
rows_in() { data_rows "$1"/host-*.csv; }

# --- the real /proc and /sys; the default log directory of a user -------------------
sleep 60 &
SLEEPER=$!
nobody --root / --count 3 --pss-interval 0.05 --watch "sl=sleep 60" 2>"$TMP/user.err"
check_eq "user: exits 0" 0 $?
d="$TMP/home/.local/state/vigil"
check "user: default log directory under HOME" grep -q "writing to $d" "$TMP/user.err"
check_eq "user: 3 host rows" 3 "$(rows_in "$d")"
check "user: rows owned by the user" test "$(stat -c %u "$d"/host-*.csv)" = 65534
if [ -e /dev/kmsg ] && [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ]; then
	check_eq "user: /dev/kmsg refusal said once, with the grant" 1 \
		"$(grep -c 'kernel log not readable (/dev/kmsg: .*CAP_SYSLOG' "$TMP/user.err")"
else
	ok "user: /dev/kmsg refusal # skip /dev/kmsg is readable by all here (dmesg_restrict=0)"
fi
check_eq "user: another user's PSS refusal said once, with the grant" 1 \
	"$(grep -c 'PSS of [0-9]* processes not readable (Permission denied): run as root or grant CAP_SYS_PTRACE' "$TMP/user.err")"
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null

# --- a Pi whose firmware device the user may not open --------------------------------
nobody --root "$PI_NOACCESS" --count 3 --log-dir "$TMP/home/pi" 2>"$TMP/pi.err"
check_eq "pi: exits 0" 0 $?
check_eq "pi: 3 host rows" 3 "$(rows_in "$TMP/home/pi")"
check_eq "pi: /dev/vcio refusal said once, with the grant" 1 \
	"$(grep -c "vcio: permission denied (this kernel has no /dev/vcio_gencmd); on this older Raspberry Pi OS group 'video' has /dev/vcio" "$TMP/pi.err")"
check "pi: temperature still read from sysfs" python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
i = r[0].index("temp_c")
sys.exit(any(row[i] == "" for row in r[1:]))' "$(ls "$TMP/home/pi"/host-*.csv)"

# --- a log directory only root may write (as /var/log/vigil) ---------------------------
mkdir -m 755 "$TMP/rootonly"
nobody --root / --count 1 --log-dir "$TMP/rootonly/vigil" 2>"$TMP/mk.err"
check_eq "log dir not creatable: exits 1" 1 $?
check_eq "log dir not creatable: one line with the way out" 1 \
	"$(grep -c 'cannot create log directory .*Permission denied; run as root, or choose a writable --log-dir' "$TMP/mk.err")"
check_eq "log dir not creatable: nothing else said" 1 "$(wc -l <"$TMP/mk.err")"
mkdir -m 755 "$TMP/rootonly/vigil"
nobody --root / --count 1 --log-dir "$TMP/rootonly/vigil" 2>"$TMP/lock.err"
check_eq "root's log dir: exits 1" 1 $?
check "root's log dir: says why and the way out" \
	grep -q 'vigil.pid: Permission denied; run as root, or choose a writable --log-dir' "$TMP/lock.err"
check "root's log dir: nothing written there" test -z "$(ls -A "$TMP/rootonly/vigil")"
