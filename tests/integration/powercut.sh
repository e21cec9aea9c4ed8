#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Power cuts: vigil writes the host and 8 simulated GPUs at a high rate on lazyfs
# (tests/powercut/lazyfs.c), a FUSE file system that keeps written data in memory until
# fsync/fdatasync; at a random moment vigil is killed and the power "cut" (everything
# not synced is forgotten; every other cut keeps a random part of the unsynced tail, as
# a disk that got some of it out: torn rows), the machine "reboots" (lazyfs remounted, a
# new boot id under --root) and vigil starts again. Checked after every cut: at most the
# sync interval of rows lost per file (sync/interval + 1 rows), a post-mortem saying "rebooted" and naming the
# last whole row of every file; at the end, every file parses: one header, no torn or
# interleaved row. Needs root and /dev/fuse (skipped otherwise).
#   POWERCUT_CUTS (default 20, 10 on the sanitizer build)   cuts
#   VIGIL_SYNC_S  (default 1)    vigil's --sync-interval, seconds (the bound checked)
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"
# POWERCUT_TZ: the local time zone of the run (powercut_midnight.sh puts midnight in it).
[ -n "${POWERCUT_TZ:-}" ] && export TZ="$POWERCUT_TZ"
LAZYFS="$BUILD_DIR/tests/lazyfs"
CUTS=${POWERCUT_CUTS:-20}
[ "${VIGIL_LABEL:-plain}" = asan ] && CUTS=${POWERCUT_CUTS:-10}
SYNC_S=${VIGIL_SYNC_S:-1}
TORN_EVERY=${POWERCUT_TORN_EVERY:-2} # every Nth cut keeps a torn tail
HOST_S=0.02
GPU_S=0.01

if ! is_root || [ ! -c /dev/fuse ] || [ ! -x "$LAZYFS" ] || ! command -v fusermount3 >/dev/null; then
	ok "power cuts # skip needs root, /dev/fuse, fusermount3 and $LAZYFS"
	exit 0
fi
B="$TMP/disk" # what reached the disk
M="$TMP/mnt"  # what programs see
mkdir -p "$B" "$M"
LZ=0
unmount() {
	fusermount3 -u "$M" 2>/dev/null
	[ "$LZ" -gt 0 ] && wait "$LZ" 2>/dev/null
	LZ=0
}
trap 'unmount; rm -rf "$TMP"' EXIT
mount_fs() {
	"$LAZYFS" "$B" "$M" -s -f 2>>"$TMP/lazyfs.err" &
	LZ=$!
	wait_until 10 grep -q " $M fuse" /proc/mounts
}
if ! mount_fs; then
	ok "power cuts # skip lazyfs does not mount here: $(tail -1 "$TMP/lazyfs.err")"
	exit 0
fi
cp -r "$FIXTURES/x86-server" "$TMP/root"
mkdir -p "$TMP/root/proc/sys/kernel/random"
boot() { cat /proc/sys/kernel/random/uuid >"$TMP/root/proc/sys/kernel/random/boot_id"; }
boot
L="$M/log"

# rows DIR: per CSV "NAME ROWS LAST-TIME LAST-WHOLE-ROW" (rows: whole data rows), the
# newest day of each log only, as the post-mortem reads them (a run across midnight).
rows() {
	python3 - "$1" <<'PY'
import glob, os, sys, datetime
newest = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    newest[os.path.basename(p)[:-len("-YYYY-MM-DD.csv")]] = p
for p in sorted(newest.values()):
    lines = open(p, "rb").read().decode(errors="replace").split("\n")[:-1]
    data = [l for l in lines if l and not l.startswith("timestamp")]
    t = 0.0
    if data:
        ts = data[-1].split(",")[0].replace("/", "-").replace("T", " ")
        t = datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S.%f").timestamp()
    print(os.path.basename(p), len(data), "%.3f" % t, data[-1] if data else "")
PY
}
start() {
	VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" \
		--root "$TMP/root" --interval $HOST_S --gpu-interval $GPU_S --sync-interval "$SYNC_S" \
		--quiet --min-disk-mb 0 --log-dir "$L" 2>>"$TMP/vigil.err" &
	VP=$!
}
pm_count() { ls "$L"/postmortem 2>/dev/null | grep -c '^postmortem-'; }

worst_s=0 worst_rows=0 bad_loss=0 bad_pm=0 pm_ok=0 torn_cuts=0
start
for i in $(seq 1 "$CUTS"); do
	wait_until 20 has_rows "$L"
	sleep "$((RANDOM % 2)).$((RANDOM % 10))"
	kill -9 "$VP"
	wait "$VP" 2>/dev/null
	rows "$L" >"$TMP/before"
	cmd=.powercut
	[ $((i % TORN_EVERY)) -eq 0 ] && cmd=.powercut-torn && torn_cuts=$((torn_cuts + 1))
	: >"$M/$cmd"
	unmount
	boot
	mount_fs || { not_ok "remount after cut $i"; break; }
	rows "$L" >"$TMP/after"
	# Rows lost per file: count and time span (last row before the cut - after it).
	loss=$(python3 - "$TMP/before" "$TMP/after" "$SYNC_S" "$HOST_S" "$GPU_S" <<'PY'
import sys
def load(p):
    return {l.split(" ")[0]: l.rstrip("\n").split(" ", 3) for l in open(p)}
b, a = load(sys.argv[1]), load(sys.argv[2])
sync, host, gpu = (float(x) for x in sys.argv[3:6])
worst_s, worst_rows, bad = 0.0, 0, []
for name, (_, rows, t, _) in b.items():
    ar, at = (int(a[name][1]), float(a[name][2])) if name in a else (0, 0.0)
    lost, span = int(rows) - ar, (float(t) - at if ar else 0.0)
    step = host if name.startswith("host") else gpu
    # The daemon syncs at the first tick `sync` s after the last sync: unsynced are the
    # rows of the ticks in between, and of the syncing tick when the cut comes before
    # its sync is done. A late tick is skipped, not made up, so no more rows than
    # sync/step + 1, however loaded the machine (the time they span is only reported).
    if lost < 0 or lost > round(sync / step) + 1:
        bad.append("%s lost %d rows over %.3f s" % (name, lost, span))
    worst_s, worst_rows = max(worst_s, span), max(worst_rows, lost)
print("%.3f %d %s" % (worst_s, worst_rows, "; ".join(bad)))
PY
)
	read -r s n why <<<"$loss"
	[ -n "$why" ] && { bad_loss=$((bad_loss + 1)); echo "    cut $i: $why"; }
	worst_s=$(python3 -c "print(max($worst_s, $s))")
	[ "$n" -gt "$worst_rows" ] && worst_rows=$n
	# The next start examines the end: a post-mortem naming the rows that survived.
	before_pm=$(pm_count)
	ls "$L"/postmortem 2>/dev/null >"$TMP/pm-before"
	start
	if wait_until 60 more_than "$before_pm" pm_count; then
		# The new one (a second in the same second is "...-2.log", which sorts first).
		f="$L/postmortem/$(ls "$L"/postmortem | grep '^postmortem-' | grep -vxFf "$TMP/pm-before" | head -1)"
		sleep 0.2 # written by rename: whole once it is there
		named=$(sed -n '/^Last rows:/,/^$/p' "$f" | sed -n 's/^  //p' | sed 's/ (then a partial row)$//' | sort)
		# Every file is named; one with no whole row (created just before the cut) as "(none)".
		expect=$(while read -r name _ _ row; do echo "$name: ${row:-(none)}"; done <"$TMP/after" | sort)
		if grep -q '^End: reboot:' "$f" && [ "$named" == "$expect" ]; then
			pm_ok=$((pm_ok + 1))
		else
			bad_pm=$((bad_pm + 1))
			echo "    cut $i: post-mortem $f does not name the rows that survived"
			diff <(echo "$expect") <(echo "$named") | head -5
		fi
	else
		bad_pm=$((bad_pm + 1))
		echo "    cut $i: no post-mortem"
	fi
done
kill "$VP" 2>/dev/null
wait "$VP" 2>/dev/null
echo "# $CUTS cuts ($torn_cuts torn): at most $worst_rows rows, $worst_s s of rows lost per file (sync every $SYNC_S s; rows every $HOST_S s host, $GPU_S s GPU)"
check_eq "at most the sync interval of rows lost per file, every cut (<= $SYNC_S/interval + 1 rows)" 0 "$bad_loss"
check_eq "a post-mortem after every cut, naming the last rows that survived" "0 $CUTS" "$bad_pm $pm_ok"
check "rows were lost (the cuts forgot unsynced data)" test "$worst_rows" -gt 0
out=$(csv_whole "$L" 2>"$TMP/csv.err")
check "every file parses: one header, whole rows ($out)" test ! -s "$TMP/csv.err"
head -5 "$TMP/csv.err"
check_eq "host and 8 GPU logs" 9 "$(ls "$L"/*.csv | sed 's/-[0-9-]*\.csv$//' | sort -u | wc -l)"
check "vigil.state parses after the cuts" grep -q '^unclean_reboot=[1-9]' "$L/vigil.state"
check "host rows in time order (none interleaved or rewritten)" python3 -c '
import csv, sys
r = [x[0] for x in list(csv.reader(open(sys.argv[1])))[1:]]
sys.exit(any(b < a for a, b in zip(r, r[1:])))' "$(ls "$L"/host-*.csv | tail -1)"
