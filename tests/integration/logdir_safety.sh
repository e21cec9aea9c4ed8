#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The log directory another user could redirect (util/safedir.h): a link where vigil
# keeps crashes/ or postmortem/, or a directory every user may write and someone else
# owns, is refused at start with a message that says what to do, and nothing is
# written through it.
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi

run() { # run LOG_DIR: vigil for two samples on the x86 fixture; its status
	"$VIGIL" --quiet --count 2 --interval 0.05 --root "$FIXTURES/x86-server" --log-dir "$1" \
		2>"$TMP/err" >/dev/null
}

for sub in crashes postmortem spikes remote-write; do
	d="$TMP/logs-$sub"
	mkdir -p "$d" "$TMP/elsewhere-$sub"
	ln -s "$TMP/elsewhere-$sub" "$d/$sub"
	run "$d"
	rc=$?
	check "$sub/ a link: refused at start (rc $rc)" test "$rc" -ne 0
	check "$sub/ a link: the message names it and what to do" \
		grep -q "$d/$sub is a symbolic link (to $TMP/elsewhere-$sub).*remove the link" "$TMP/err"
	check_eq "$sub/ a link: nothing written where it points" "" "$(ls -A "$TMP/elsewhere-$sub")"
	check "$sub/ a link: no rows logged" bash -c "! ls '$d'/*.csv >/dev/null 2>&1"
done

# A directory of vigil's that is a directory is used as ever.
mkdir -p "$TMP/fine/crashes" "$TMP/fine/postmortem"
run "$TMP/fine"
check "real crashes/ and postmortem/: vigil runs (rc $?)" test -s "$TMP/fine/events.log"

# A world-writable log directory: refused when another user owns it (only root can
# make one here), used when vigil's own user does.
mkdir -p "$TMP/open"
chmod 0777 "$TMP/open"
run "$TMP/open"
check "world-writable, vigil's own: used (rc $?)" test -s "$TMP/open/events.log"
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$TMP/theirs"
	chown 65534 "$TMP/theirs"
	chmod 0777 "$TMP/theirs"
	run "$TMP/theirs"
	rc=$?
	check "world-writable, another user's: refused (rc $rc)" test "$rc" -ne 0
	check "world-writable, another user's: the message" \
		grep -q "log directory $TMP/theirs is writable by every user (mode 0777) and owned by uid 65534.*chmod o-w" "$TMP/err"
	check_eq "world-writable, another user's: nothing written" "" "$(ls -A "$TMP/theirs")"
	chmod 1777 "$TMP/theirs"
	run "$TMP/theirs"
	check "world-writable and sticky, another user's: refused too (rc $?)" grep -q "writable by every user" "$TMP/err"
else
	echo "# skip: the other user's directory needs root"
fi
