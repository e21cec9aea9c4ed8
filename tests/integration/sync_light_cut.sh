#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The loss bound of light sync rounds (util/fs_commit.h) with the device's own state:
# vigil logs a row a second to an ext4 (data=ordered, a 12 s bound: light rounds every
# 6 s, or where cachestat(2) works watch rounds writing each log at most 4.75 s after
# its first unwritten row; no fdatasync) on a loop device; at moments spread over its run the loop's backing
# image is copied (what the device holds at that moment: a power cut there), the copy is
# mounted (the journal replayed) and its CSV must hold every row the running file held
# 12 s before. The control, a 3600 s bound (no round in the window), must lose rows the
# same check counts, so the check can fail. Needs root, losetup and mkfs.ext4, as CI has.
. "$(dirname "$0")/../lib.sh"

loop_ext4_ready sync_light_cut || exit 0
# rows_in FILE: data rows (lines starting with a digit) in FILE, 0 when it is missing
# or has none (grep -c says 0 and fails then).
rows_in() {
	local n=0
	[ -f "$1" ] && n=$(grep -c '^[0-9]' "$1" || true)
	echo "${n:-0}"
}

# cuts NAME BOUND N GAP START: vigil at --sync-interval BOUND; N cuts GAP s apart from
# START s on; $worst is the largest number of rows a cut lost of those the live file held
# 12 s before it (negative: none lost and more kept).
cuts() {
	local name=$1 bound=$2 n=$3 gap=$4 start=$5
	loop_ext4_new "$TMP/$name.img"
	loop_ext4_mount "$TMP/$name.img" "$name" data=ordered || return 1
	local log="$TMP/mnt-$name/log"
	"$VIGIL" --root "$FIXTURES/pi4-healthy" --gpu none --quiet --min-disk-mb 0 --interval 1 \
		--sync-interval "$bound" --duration 120 --log-dir "$log" 2>"$TMP/$name.err" &
	local pid=$!
	# The live file's row count each second, to know what it held BOUND s before a cut.
	: >"$TMP/$name.seen"
	(
		while kill -0 "$pid" 2>/dev/null; do
			echo "$(date +%s) $(cat "$log"/host-*.csv 2>/dev/null | grep -c '^[0-9]')" >>"$TMP/$name.seen"
			sleep 1
		done
	) &
	local watcher=$!
	sleep "$start"
	worst=-1000
	for ((i = 1; i <= n; i++)); do
		local now held lost
		now=$(date +%s)
		cp --sparse=always "$TMP/$name.img" "$TMP/$name.cut.img"
		held=$(awk -v t=$((now - 12)) '$1 <= t {n = $2} END {print n + 0}' "$TMP/$name.seen")
		loop_ext4_mount "$TMP/$name.cut.img" "$name-cut" data=ordered || {
			not_ok "$name: cut $i does not mount"
			continue
		}
		local kept
		kept=$(rows_in "$(ls "$TMP/mnt-$name-cut"/log/host-*.csv 2>/dev/null | head -1)")
		umount "$TMP/mnt-$name-cut"
		lost=$((held - kept))
		[ "$lost" -gt "$worst" ] && worst=$lost
		echo "    $name cut $i: held 12 s before $held, kept $kept" >>"$TMP/$name.log"
		sleep "$gap"
	done
	kill -TERM "$pid"
	wait "$pid"
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	umount "$TMP/mnt-$name"
}

cuts light 12 6 4 14
check "a 12 s bound with light rounds: every cut kept what the file held 12 s before it (most lost: $worst)" \
	test "$worst" -le 0
[ "$worst" -le 0 ] || cat "$TMP/light.log"
cuts control 3600 1 0 25
check "the control (no sync for 3600 s): a cut 25 s in loses rows the check counts ($worst)" \
	test "$worst" -gt 0
