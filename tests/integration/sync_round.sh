#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The logs' syncs of one --sync-interval are one round (util/fssync.h). On a file system
# where syncfs(2) is durable (ext4, XFS, btrfs, f2fs), the nine daily CSVs of 8 GPUs share
# one syncfs a round while the machine holds little unwritten data (the root's
# /proc/meminfo: Dirty + Writeback at most 4 MB); with a checkpoint's worth dirty (2 GB in
# a copy of the root) each is fdatasync'ed, since a syncfs would write the workload's data
# too. --sync-whole-fs takes syncfs whatever is dirty, --sync-per-file never; elsewhere
# (tmpfs, FUSE, NFS) one fdatasync per file always. Counted with strace on the running
# daemon.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "sync_round" "$SCEN"
need_tool sync_round strace
# count NAME ARGS...: vigil with 8 GPUs and ARGS; $syncfs and $fdatasync over 4 s.
count() {
	local name=$1
	shift
	LOGS="$TMP/$name"
	mkdir -p "$LOGS"
	fstype=$(stat -f -c %T "$LOGS")
	VIGIL_NVML_SCENARIO="$SCEN/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" --root "${ROOT:-$FIXTURES/x86-server}" \
		--gpu-interval 0.1 --interval 0.5 --duration 30 --log-dir "$LOGS" --quiet "$@" 2>"$TMP/$name.err" &
	PID=$!
	for _ in $(seq 100); do
		[ "$(ls "$LOGS"/gpu7-*.csv 2>/dev/null | wc -l)" = 1 ] && break
		sleep 0.1
	done
	sleep 0.5
	timeout -s INT 4 strace -f -c -e trace=fdatasync,syncfs -p "$PID" 2>"$TMP/$name.strace" || true
	calls() { awk -v s="$1" '$NF == s {print $4}' "$TMP/$name.strace" | head -1; }
	syncfs=$(calls syncfs)
	fdatasync=$(calls fdatasync)
	syncfs=${syncfs:-0}
	fdatasync=${fdatasync:-0}
	kill -TERM "$PID"
	wait "$PID"
	check_eq "$name: stops cleanly" 0 $?
}

# The copy of the root whose machine has 2 GB unwritten.
BUSY="$TMP/busy-root"
cp -a "$FIXTURES/x86-server" "$BUSY"
sed -i 's/^Dirty: .*/Dirty:           2097152 kB/' "$BUSY/proc/meminfo"
grep -q '^Dirty: *2097152 kB' "$BUSY/proc/meminfo" || not_ok "sync_round: the busy root's meminfo was not written"

# per_file NAME: the checks that a round fdatasync'ed each file and made no syncfs.
per_file() {
	check_eq "$1: no syncfs" 0 "$syncfs"
	check "$1: one fdatasync per file a round ($fdatasync in 4 s)" test "$fdatasync" -ge 27
}
# whole NAME: a syncfs a round and no fdatasync.
whole() {
	check "$1: a syncfs a round, $syncfs in 4 s (3 to 5)" test "$syncfs" -ge 3 -a "$syncfs" -le 5
	check_eq "$1: no fdatasync (the round's syncfs covers every file)" 0 "$fdatasync"
}

count default
case "$fstype" in
ext2/ext3 | ext4 | xfs | btrfs | f2fs) durable=yes ;;
*) durable=no ;;
esac
if [ $durable = yes ]; then
	whole "default, 8 GPUs on $fstype, the machine quiet (1.2 MB dirty)"
	ROOT=$BUSY count busy
	per_file "default, 8 GPUs on $fstype, 2 GB unwritten on the machine"
	ROOT=$BUSY count whole --sync-whole-fs
	whole "--sync-whole-fs, 8 GPUs on $fstype, 2 GB unwritten on the machine"
else
	per_file "default, 8 GPUs on $fstype, where syncfs is not durable"
	count whole --sync-whole-fs
	per_file "--sync-whole-fs, 8 GPUs on $fstype, where syncfs is not durable"
fi
count perfile --sync-per-file
per_file "--sync-per-file, 8 GPUs on $fstype, the machine quiet"

"$VIGIL" --sync-whole-fs --sync-per-file --duration 1 --log-dir "$TMP/both" 2>"$TMP/both.err"
check_eq "--sync-whole-fs with --sync-per-file: refused" 2 $?
check "the refusal names both options" grep -q -- '--sync-whole-fs and --sync-per-file' "$TMP/both.err"
