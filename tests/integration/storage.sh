#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Storage health end to end on a Pi 4 fixture with a mounts table, the statvfs test seam
# (ROOT/fs.statvfs) and a kernel log: the host CSV cells, /metrics, and the rules (new
# storage errors and a read-only remount each give an incident snapshot).
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

# tree NAME: pi4-healthy plus a mounts table, the seam and a kernel log holding one ext4
# error from before the start (counted, not new) and lines that are no storage error.
tree() {
	cp -r "$FIXTURES/pi4-healthy" "$TMP/$1"
	mkdir -p "$TMP/$1/proc/self"
	printf '%s\n' '/dev/mmcblk0p2 / ext4 rw,noatime 0 0' \
		'proc /proc proc rw,relatime 0 0' \
		'/dev/mmcblk0p1 /boot/firmware vfat rw,relatime,fmask=0022,dmask=0022 0 0' \
		>"$TMP/$1/proc/self/mounts"
	printf '/ 4096 7499904 6021337 5694073\n/boot/firmware 512 1048576 900000 900000\n' \
		>"$TMP/$1/fs.statvfs"
	cat >"$TMP/$1/dev/kmsg" <<'KMSG'
6,1,500000,-;Booting Linux on physical CPU 0x0000000000 [0x410fd083]
6,2,2100000,-;EXT4-fs (mmcblk0p2): mounted filesystem with ordered data mode. Quota mode: none.
2,3,9000000,-;EXT4-fs error (device mmcblk0p2): ext4_lookup:1601: inode #2: comm systemd: deleted inode referenced: 1234
4,4,9500000,-;hwmon hwmon1: Undervoltage detected!
KMSG
}
rows() { local c; c=$(ls "$TMP/$1.log"/host-*.csv 2>/dev/null | head -1); [ -n "$c" ] && wc -l <"$c" || echo 0; }
more_rows() { [ "$(rows "$1")" -gt "$2" ]; }
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
incidents() { ls "$TMP/$1.log"/incidents/incident-*.log 2>/dev/null; }

# --- the CSV cells, /metrics, and new errors ---------------------------------------
tree err
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VIGIL" --root "$TMP/err" --interval 0.05 --log-dir "$TMP/err.log" --quiet \
	--listen "127.0.0.1:$port" 2>"$TMP/err.err" &
pid=$!
wait_for more_rows err 5
CSV=$(ls "$TMP"/err.log/host-*.csv)
cell() { csv_cell "$CSV" 2 "$1"; }
# 5694073 blocks of 4096 bytes available: 22242.47265625 MB.
check_eq "rootfs_avail_mb from statvfs" 22242.47265625 "$(cell rootfs_avail_mb)"
check_eq "rootfs_ro: mounted rw" 0 "$(cell rootfs_ro)"
check_eq "logfs_avail_mb: the log directory is on / in this table" 22242.47265625 "$(cell logfs_avail_mb)"
check_eq "logfs_ro" 0 "$(cell logfs_ro)"
check_eq "rootfs_full_in_h: not filling, empty" "" "$(cell rootfs_full_in_h)"
check_eq "storage_errors: the ext4 error from before the start" 1 "$(cell storage_errors)"
check_eq "the storage columns follow vigil's" "shm_total_mb,rootfs_avail_mb,rootfs_ro,rootfs_full_in_h,logfs_avail_mb,logfs_ro,logfs_full_in_h,storage_errors" \
	"$(head -1 "$CSV" | tr , '\n' | grep -A7 -x shm_total_mb | paste -sd,)"
check "an error from before the start is no incident" test -z "$(incidents err)"
curl -sf -o "$TMP/err.prom" "http://127.0.0.1:$port/metrics"
check "metrics: avail bytes with node_exporter's labels" grep -qx \
	'vigil_filesystem_avail_bytes{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"} 23322923008' "$TMP/err.prom"
check "metrics: read-only 0" grep -qx \
	'vigil_filesystem_readonly{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"} 0' "$TMP/err.prom"
check "metrics: ext4 errors counted" grep -qx 'vigil_storage_kernel_errors_total{kind="ext4"} 1' "$TMP/err.prom"
check "metrics: no mmc error yet" grep -qx 'vigil_storage_kernel_errors_total{kind="mmc"} 0' "$TMP/err.prom"
if command -v promtool >/dev/null; then
	check "metrics: promtool lint" promtool check metrics <"$TMP/err.prom"
fi
# An SD card error while running: an events.log line and an incident snapshot.
echo '3,5,20000000,-;mmcblk0: error -110 transferring data, sector 4308992, nr 8, cmd response 0x900, card status 0xc00' >>"$TMP/err/dev/kmsg"
wait_for grep -q 'type=INCIDENT' "$TMP/err.log/events.log"
check "new error: events.log line" grep -q 'type=STORAGE_ERRORS new=1 total=2 last="mmcblk0: error -110 transferring data' "$TMP/err.log/events.log"
check_eq "new error: one incident" 1 "$(incidents err | wc -l)"
f=$(incidents err | head -1)
check "new error: the reason" grep -q '^Error: 1 new storage error lines in the kernel log: mmcblk0: error -110' "$f"
wait_for grep -q 'type=STORAGE_ERRORS state=quiet total=2' "$TMP/err.log/events.log"
check "new error: quiet again" grep -q 'type=STORAGE_ERRORS state=quiet total=2' "$TMP/err.log/events.log"
curl -sf -o "$TMP/err2.prom" "http://127.0.0.1:$port/metrics"
check "metrics: mmc error counted" grep -qx 'vigil_storage_kernel_errors_total{kind="mmc"} 1' "$TMP/err2.prom"
kill -TERM "$pid"
wait "$pid"
check_eq "errors: exits 0" 0 $?
check_eq "storage_errors in the last row" 2 "$(csv_cell "$CSV" "$(($(wc -l <"$CSV") - 1))" storage_errors)"

# --- a read-only remount ---------------------------------------------------------
tree ro
"$VIGIL" --root "$TMP/ro" --interval 0.05 --log-dir "$TMP/ro.log" --quiet 2>"$TMP/ro.err" &
pid=$!
wait_for more_rows ro 5
# ext4 gave up on the card: the same line with "ro" (rewritten in place, same inode).
printf '%s\n' '/dev/mmcblk0p2 / ext4 ro,noatime 0 0' 'proc /proc proc rw,relatime 0 0' \
	>"$TMP/ro/proc/self/mounts"
wait_for grep -q 'type=INCIDENT' "$TMP/ro.log/events.log"
check "read-only: events.log line" grep -q 'type=STORAGE state=read-only fs=root mount=/ device=/dev/mmcblk0p2 fstype=ext4' "$TMP/ro.log/events.log"
f=$(incidents ro | head -1)
check "read-only: an incident snapshot" test -s "$f"
check "read-only: the reason" grep -qx 'Error: read-only root file system /dev/mmcblk0p2 (ext4)' "$f"
wait_for more_rows ro "$(($(rows ro) + 2))"
kill -TERM "$pid"
wait "$pid"
check_eq "read-only: exits 0" 0 $?
CSV=$(ls "$TMP"/ro.log/host-*.csv)
check_eq "rootfs_ro in the last row" 1 "$(csv_cell "$CSV" "$(($(wc -l <"$CSV") - 1))" rootfs_ro)"

# --- not a Pi: a root file system read-only from the start, a storage incident -------
cp -r "$FIXTURES/x86-server" "$TMP/srv"
mkdir -p "$TMP/srv/proc/self"
echo '/dev/nvme0n1p2 / ext4 ro,relatime 0 0' >"$TMP/srv/proc/self/mounts"
echo '/ 4096 1000000 500000 450000' >"$TMP/srv/fs.statvfs"
"$VIGIL" --root "$TMP/srv" --gpu none --interval 0.05 --count 5 --log-dir "$TMP/srv.log" \
	--quiet 2>"$TMP/srv.err"
check_eq "server: exits 0" 0 $?
f=$(incidents srv | head -1)
check "server: titled as a storage incident" grep -qx '=== STORAGE INCIDENT ===' "$f"
check "server: the reason" grep -qx 'Error: read-only root file system /dev/nvme0n1p2 (ext4)' "$f"
check_eq "server: rootfs_ro" 1 "$(csv_cell "$(ls "$TMP"/srv.log/host-*.csv)" 1 rootfs_ro)"

# --- this machine, no root prefix: the log directory's statvfs(2) -------------------
# On the root file system's mount the log directory takes the root's answer (one
# statvfs a sample, not two); on another mount (/dev/shm, a tmpfs) it asks its own.
# Either way its size is its own file system's, as os.statvfs tells it.
# fs_size PROM FS: vigil_filesystem_size_bytes of fs="FS" in the scrape PROM.
fs_size() { sed -n "s/^vigil_filesystem_size_bytes{fs=\"$2\".*} //p" "$1"; }
for where in "$TMP/onroot" "/dev/shm/vigil-storage-$$"; do
	mkdir -p "$where"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$VIGIL" --interval 0.05 --log-dir "$where" --quiet --listen "127.0.0.1:$port" \
		--gpu none 2>"$TMP/here.err" &
	pid=$!
	for _ in $(seq 100); do
		curl -sf -o "$TMP/here.prom" "http://127.0.0.1:$port/metrics" &&
			[ -n "$(fs_size "$TMP/here.prom" log)" ] && break
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid"
	want=$(python3 -c 'import os, sys; v = os.statvfs(sys.argv[1]); print(v.f_blocks * v.f_frsize)' "$where")
	root=$(python3 -c 'import os; v = os.statvfs("/"); print(v.f_blocks * v.f_frsize)')
	check_eq "this machine, log in ${where%%/vigil-storage-*}: the log file system's size" \
		"$want" "$(fs_size "$TMP/here.prom" log)"
	check_eq "this machine, log in ${where%%/vigil-storage-*}: the root's size" \
		"$root" "$(fs_size "$TMP/here.prom" root)"
	[ "$where" = "$TMP/onroot" ] || rm -rf "$where"
done
