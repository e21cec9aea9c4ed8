# SPDX-License-Identifier: Apache-2.0
# Shared by the benchmark scripts (sourced, never run): finding the reference monitor,
# starting the processes the Pi benchmarks watch, and file systems on loop devices whose
# counters hold one program's writes. Each function says what it sets; only bench_fail exits.

# bench_fail REASON: a benchmark that cannot measure says why on stderr and fails (exit 1),
# so a missing tool or a moved file never passes for a measurement.
bench_fail() {
	echo "FAIL: cannot measure: $*" >&2
	exit 1
}

# bench_stop_pids: stop the processes in the array pids and wait for them (for exit traps,
# so no daemon outlives its bench).
bench_stop_pids() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

# bench_free_port: a TCP port on 127.0.0.1 no one listens on now.
bench_free_port() {
	"${BENCH_PYTHON:-/usr/bin/python3}" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# bench_cleanup_at_exit DIR: at exit, stop the programs in pids (bench_stop_pids) and
# remove DIR.
bench_cleanup_at_exit() {
	# shellcheck disable=SC2064 # DIR is fixed now
	trap "bench_stop_pids; rm -rf '$1'" EXIT
}

# bench_need_gpu_source: fails unless the built vigil has the NVML source and the simulated
# NVML is built ($B/nvml-sim); asks the binary, not a source path that may move.
bench_need_gpu_source() {
	[ -x "$B/vigil" ] || bench_fail "$B/vigil is not built (make)"
	nm "$B/vigil" 2>/dev/null | grep ' vigil_source_nvml$' >/dev/null ||
		bench_fail "$B/vigil has no NVML source (vigil_source_nvml), or nm is missing (binutils)"
	[ -f "$B/nvml-sim/libnvidia-ml.so.1" ] ||
		bench_fail "the simulated NVML is not built ($B/nvml-sim/libnvidia-ml.so.1: make)"
}

# bench_find_seed: $seed is the reference monitor (seeds/004_*.txt) from $SEEDS,
# ../shared/seeds or /work/shared/seeds, or empty when none is found.
bench_find_seed() {
	seed=
	local d
	for d in "${SEEDS:-}" ../shared/seeds /work/shared/seeds; do
		[ -n "$d" ] || continue
		seed=$(ls "$d"/004_*.txt 2>/dev/null | head -1 || true)
		[ -n "$seed" ] && return 0
	done
	return 0
}

# bench_monitor_script SEED OUT: the Python program inside the seed file, written to OUT.
bench_monitor_script() { awk 'f || /^"""/ {f = 1; print}' "$1" >"$2"; }

# bench_start_watched N: one "player" (run_linux.py) and N "chromium" processes, sleepers
# with the command lines the watches and the reference monitor look for; their pids are
# appended to the array pids (the caller kills them).
bench_start_watched() {
	local i
	bash -c 'exec -a "python3 /opt/player/run_linux.py" sleep 3600' &
	pids+=($!)
	for ((i = 0; i < $1; i++)); do
		bash -c 'exec -a "chromium --type=renderer" sleep 3600' &
		pids+=($!)
	done
	sleep 0.2
}

# bench_can_loop: true when loop-device file systems can be made here (root, losetup,
# mkfs.ext4).
bench_can_loop() {
	[ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null
}

# bench_loop_fs DIR NAME: a 64 MB ext4 file system on a loop device of its own, mounted
# at DIR/mnt-NAME; sets bench_loop to the device and appends it to the array loops (the
# caller unmounts DIR/mnt-* and detaches them).
# It is a Raspberry Pi OS root file system in small: pi-gen makes it with
# "mkfs.ext4 -O ^huge_file" on a partition of gigabytes, so mke2fs's "default" usage type
# (4 KB blocks; mke2fs.conf(5)) where a 64 MB image alone would get "small" (1 KB blocks,
# a row's block filled four times as often), and its fstab mounts it "defaults,noatime"
# (RPi-Distro/pi-gen export-image/prerun.sh, stage1/01-sys-tweaks/files/fstab).
bench_loop_fs() {
	local img=$1/$2.img
	truncate -s 64M "$img"
	# Inode tables and journal zeroed now, not by the kernel's lazy-init thread during
	# the window (mkfs.ext4(8), -E lazy_itable_init, lazy_journal_init).
	mkfs.ext4 -q -T default -O ^huge_file -E lazy_itable_init=0,lazy_journal_init=0 "$img"
	bench_loop=$(losetup -f --show "$img")
	loops+=("$bench_loop")
	mkdir -p "$1/mnt-$2"
	mount -o noatime "$bench_loop" "$1/mnt-$2"
}

# bench_writes_of LOOP: "writes sectors" completed on the device so far
# (/sys/block/loopN/stat fields 5 and 7, https://docs.kernel.org/block/stat.html).
bench_writes_of() { awk '{print $5, $7}' "/sys/block/$(basename "$1")/stat"; }

# bench_avg_row FILE: mean bytes per data row of a CSV file (the header skipped; 64 when
# it has none), for the floors that write rows of vigil's sizes.
bench_avg_row() { awk 'NR > 1 {n++; b += length($0) + 1} END {printf "%d\n", n ? b / n : 64}' "$1"; }

# bench_held_files PID: $held_files is the /proc and /sys files process PID holds open
# (its fd table read while it runs) and reads every host sample, for daemon_floor to
# re-read the same ones. The mounts table is left out: vigil holds it open but reads it
# once a minute (collect/storage.c, MOUNTS_EVERY_NS).
bench_held_files() {
	held_files=()
	local fd t
	for fd in /proc/"$1"/fd/*; do
		t=$(readlink "$fd" || true)
		case "$t" in /proc/*/fd* | /proc/*/mounts) ;; /proc/* | /sys/*) held_files+=("$t") ;; esac
	done
}
