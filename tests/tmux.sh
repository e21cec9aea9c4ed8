# SPDX-License-Identifier: Apache-2.0
# Helpers for the tests that drive vigil on a terminal, in tmux (sourced after lib.sh):
# T (tmux on the test's own socket, killed at exit), term, screen_of, wait_for,
# has_line. Needs tmux (scripts/packages.test lists it): without it, one "not ok NAME"
# line and the test ends here.
need_tmux() {
	command -v tmux >/dev/null && return 0
	not_ok "$1: tmux is missing (scripts/packages.test lists it)"
	exit 0
}
SOCK="$TMP/tmux.sock"
T() { tmux -S "$SOCK" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
[ -n "${KEEP_TMP:-}" ] && trap "T kill-server 2>/dev/null" EXIT
# tmux_keep: one session that lives for the whole test: a server left without sessions
# exits, and a session started while it is exiting fails ("server exited
# unexpectedly"). Call it once tmux is known to be there.
tmux_keep() { T new-session -d -s keep -x 80 -y 24 sleep 3600; }

# term NAME COLSxROWS ENV... -- ARGS...: vigil in a tmux pane of that size, logging to
# $TMP/NAME, its root ${ROOT_OF:-$ROOT}; the pane stays after it exits, and a line
# "EXIT=<status>" follows its output (Ctrl+C in the pane reaches vigil; the shell around
# it lives on).
term() {
	local name=$1 size=$2
	shift 2
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	printf '#!/bin/sh\ntrap : INT\ncd %q\nenv %s %q --log-dir %q --root %q "$@"\necho EXIT=$?\nsleep 600\n' \
		"$TOP" "${envs[*]}" "$VIGIL" "$TMP/$name" "${ROOT_OF:-$ROOT}" >"$TMP/$name.sh"
	T new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" sh "$TMP/$name.sh" "$@"
}
screen_of() { T capture-pane -p -t "$1"; }
# wait_for SECONDS COMMAND...: true as soon as the command is, false after SECONDS.
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
has_line() { screen_of "$1" | grep -Eq "$2"; }
