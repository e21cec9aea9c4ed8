#!/usr/bin/env bash
# The logs' syncs of one --sync-interval are one round (util/fssync.h): with 8 GPUs
# (nine daily CSVs getting rows) on a file system where syncfs(2) is durable (ext4, XFS,
# btrfs, f2fs), one syncfs a round and no fdatasync; elsewhere (tmpfs, FUSE, NFS) one
# fdatasync per file, as before. Counted with strace on the running daemon.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "sync_round" "$SCEN"
if ! command -v strace >/dev/null; then
	ok "# skip sync_round: strace is not installed"
	exit 0
fi
LOGS="$TMP/logs"
mkdir -p "$LOGS"
fstype=$(stat -f -c %T "$LOGS")
VIGIL_NVML_SCENARIO="$SCEN/healthy-8gpu" "$VIGIL" --nvml "$NVML_SIM" --root "$FIXTURES/x86-server" \
	--gpu-interval 0.1 --interval 0.5 --duration 30 --log-dir "$LOGS" --quiet 2>"$TMP/err" &
PID=$!
for _ in $(seq 100); do
	[ "$(ls "$LOGS"/gpu7-*.csv 2>/dev/null | wc -l)" = 1 ] && break
	sleep 0.1
done
sleep 0.5
timeout -s INT 4 strace -f -c -e trace=fdatasync,syncfs -p "$PID" 2>"$TMP/strace" || true
calls() { awk -v s="$1" '$NF == s {print $4}' "$TMP/strace" | head -1; }
syncfs=$(calls syncfs)
fdatasync=$(calls fdatasync)
syncfs=${syncfs:-0}
fdatasync=${fdatasync:-0}
case "$fstype" in
ext2/ext3 | ext4 | xfs | btrfs | f2fs)
	check "8 GPUs on $fstype: a syncfs a round, $syncfs in 4 s (3 to 5)" test "$syncfs" -ge 3 -a "$syncfs" -le 5
	check_eq "8 GPUs on $fstype: no fdatasync (the round's syncfs covers every file)" 0 "$fdatasync"
	;;
*)
	check_eq "8 GPUs on $fstype, where syncfs is not durable: no syncfs" 0 "$syncfs"
	check "8 GPUs on $fstype: one fdatasync per file a round ($fdatasync in 4 s)" test "$fdatasync" -ge 27
	;;
esac
kill -TERM "$PID"
wait "$PID"
check_eq "stops cleanly" 0 $?
