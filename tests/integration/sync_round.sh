#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The logs' syncs of one --sync-interval are one round (util/fssync.h). By default each
# log that got rows is fdatasync'ed (nine daily CSVs with 8 GPUs): a syncfs would also
# write what the workload left dirty on the same file system. With --sync-whole-fs, on a
# file system where syncfs(2) is durable (ext4, XFS, btrfs, f2fs), one syncfs a round and
# no fdatasync; elsewhere (tmpfs, FUSE, NFS) one fdatasync per file still. Counted with
# strace on the running daemon.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "sync_round" "$SCEN"
if ! command -v strace >/dev/null; then
	not_ok "sync_round: strace is missing (scripts/packages.test lists it)"
	exit 0
fi
# count NAME ARGS...: vigil with 8 GPUs and ARGS; $syncfs and $fdatasync over 4 s.
count() {
	local name=$1
	shift
	LOGS="$TMP/$name"
	mkdir -p "$LOGS"
	fstype=$(stat -f -c %T "$LOGS")
	VIGIL_NVML_SCENARIO="$SCEN/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" --root "$FIXTURES/x86-server" \
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

count default
check_eq "default, 8 GPUs on $fstype: no syncfs (other programs' data is theirs to sync)" 0 "$syncfs"
check "default, 8 GPUs on $fstype: one fdatasync per file a round ($fdatasync in 4 s)" test "$fdatasync" -ge 27

count whole --sync-whole-fs
case "$fstype" in
ext2/ext3 | ext4 | xfs | btrfs | f2fs)
	check "--sync-whole-fs, 8 GPUs on $fstype: a syncfs a round, $syncfs in 4 s (3 to 5)" test "$syncfs" -ge 3 -a "$syncfs" -le 5
	check_eq "--sync-whole-fs, 8 GPUs on $fstype: no fdatasync (the round's syncfs covers every file)" 0 "$fdatasync"
	;;
*)
	check_eq "--sync-whole-fs, 8 GPUs on $fstype, where syncfs is not durable: no syncfs" 0 "$syncfs"
	check "--sync-whole-fs, 8 GPUs on $fstype: one fdatasync per file a round ($fdatasync in 4 s)" test "$fdatasync" -ge 27
	;;
esac
