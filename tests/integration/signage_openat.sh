#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The screens' and network's sysfs files, and the fixture's CEC adapter, are opened when
# the daemon finds them and kept open (collect/sysfs_obj.h): a sample reads each with
# one pread and opens nothing. Counted with strace on the running daemon over about 2 s
# of 0.05 s samples on a copy of the Pi 4 tree: no openat of those files, and their
# reads do happen, one each a sample: 14 a sample (status, enabled and dpms of 2
# connectors and the EDID of the connected one, 3 files of 2 interfaces, the CEC file).
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

need_tool signage_openat strace
cp -r "$FIXTURES/pi4" "$TMP/pi4"
R="$TMP/pi4"
"$VIGIL" --root "$R" --interval 0.05 --no-log --quiet --duration 30 2>"$TMP/err" &
pid=$!
sleep 1
# The main thread only (the sources run on the loop): not -f, which would follow the
# fake vcgencmd's posix_spawn and can leave strace stuck detaching from it.
timeout -k 3 -s INT 2 strace -y -e trace=openat,open,pread64,read -o "$TMP/trace" -p "$pid" 2>/dev/null
kill "$pid"
wait "$pid"
watched="$R/(sys/class/(drm|net)/|dev/cec0)"
opens=$(grep -Ec "open(at)?\(.*\"$watched" "$TMP/trace")
reads=$(grep -Ec "(pread64|read)\([0-9]+<$watched" "$TMP/trace")
check_eq "no openat of a screen's, an interface's or the CEC adapter's file while sampling" 0 "$opens"
check "those files read while sampling: $reads reads (14 a sample)" test "$reads" -ge 130
check_eq "each with one read a sample: no read to learn the end" 0 \
	"$(grep -Ec "read\([0-9]+<$watched.*= 0$" "$TMP/trace")"
