# SPDX-License-Identifier: Apache-2.0
# Helpers for integration tests (sourced). Each check prints "ok NAME" or "not ok NAME";
# scripts/test.sh counts those lines.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR="$TOP/${VIGIL_BUILD:-build}"
VIGIL="$BUILD_DIR/vigil"
NVML_SIM="$BUILD_DIR/nvml-sim/libnvidia-ml.so.1"
FIXTURES="$TOP/tests/fixtures"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vigil-test.XXXXXX")
[ -n "${KEEP_TMP:-}" ] && echo "TMP=$TMP" || trap 'rm -rf "$TMP"' EXIT
export TZ=UTC NO_COLOR=1

ok() { echo "ok $*"; }
not_ok() { echo "not ok $*"; }
# check NAME COMMAND...: ok when the command succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1"; echo "    expected: [$2]"; echo "    actual:   [$3]"; fi
}
# csv_cell FILE ROW COLUMN_NAME: the cell of data row ROW (1 = first after the header).
csv_cell() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
col = rows[0].index(sys.argv[3])
print(rows[int(sys.argv[2])][col])
PY
}

# reachable_by_all PATH...: copies under $TMP (0755) of files and trees of the
# checkout, for a test that switches to an unprivileged user: a checkout in a 0700
# directory (a home) is out of that user's reach. Prints the copies' paths, one a line,
# in order; the binary itself as reachable_by_all "$VIGIL".
reachable_by_all() {
	local d="$TMP/for-all" p
	mkdir -p "$d"
	chmod 755 "$TMP" "$d"
	for p in "$@"; do
		cp -a "$p" "$d/" && chmod -R a+rX "$d/$(basename "$p")" || return 1
		echo "$d/$(basename "$p")"
	done
}

# gpu_server ROOT BIN: the x86-server fixture copied into ROOT, and in BIN an lspci and
# an nvidia-smi that only echo (a crash snapshot runs them; put BIN first on PATH).
gpu_server() {
	mkdir -p "$1" "$2"
	cp -a "$FIXTURES/x86-server/." "$1/"
	printf '#!/bin/sh\necho "fake $0 $*"\n' >"$2/lspci"
	cp "$2/lspci" "$2/nvidia-smi"
	chmod +x "$2/lspci" "$2/nvidia-smi"
}

# need_nvml_sim NAME [PATH...]: go on only when the simulated NVML is built (and each
# PATH, a scenario, exists); else one "not ok NAME: ..." line and the test ends here.
need_nvml_sim() {
	local name=$1 p
	shift
	for p in "$NVML_SIM" "$@"; do
		[ -e "$p" ] || {
			not_ok "$name: the simulated NVML is not built ($NVML_SIM)"
			exit 0
		}
	done
}

# free_port: a TCP port on 127.0.0.1 no one listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# need_tool NAME TOOL: go on only when TOOL is on PATH; else one "not ok NAME: ..." line
# naming the package list that installs it, and the test ends here.
need_tool() {
	command -v "$2" >/dev/null && return 0
	not_ok "$1: $2 is missing (scripts/packages.test lists it)"
	exit 0
}

# serve_day_logs LOGS PORT: vigil on the x86-server fixture without GPUs, logging to LOGS
# (where a test put a day of logs) and serving 127.0.0.1:PORT, for 300 s at most; its pid
# in PID, its stderr in $TMP/err; returns once /metrics answers (10 s at most).
serve_day_logs() {
	"$VIGIL" --quiet --interval 1 --duration 300 --root "$FIXTURES/x86-server" --nvml /nonexistent \
		--log-dir "$1" --listen "127.0.0.1:$2" 2>"$TMP/err" &
	PID=$!
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$2/metrics")" = 200 ] && break
		sleep 0.1
	done
}

# Changing a fixture's kernel files (sysfs, procfs) under a running daemon, the way the
# kernel changes them. sysfs keeps an attribute's inode for the life of its kobject,
# and a read at offset 0 runs the attribute's show() again into a page-sized buffer
# (fs/sysfs/file.c sysfs_kf_seq_show(), through seq_read_iter() from fs/kernfs/file.c
# kernfs_fop_read_iter()): a descriptor vigil keeps open sees each new value, whole.
# A file replaced by rename is a new inode that a kept descriptor never sees, which
# real sysfs never does; so a value is written into the same inode: truncated, then
# written with one write(2). A regular file's size grows only after the bytes are in
# its page (mm/filemap.c generic_perform_write(): ->write_end after the copy), so a
# reader sees the old value, the empty file between the two calls, or the new value,
# never a part of one; vigil takes an empty read of a text attribute as no value this
# sample (collect/display.c, collect/net.c), and an empty EDID as no monitor. A device
# that goes away is its directory removed (rm -r), as sysfs removes it.
#
# put_in_place FILE TEXT: TEXT (printf %b escapes) becomes FILE's content, same inode.
put_in_place() {
	printf '%b' "$2" >"$TMP/.put_in_place" && copy_in_place "$TMP/.put_in_place" "$1"
}
# copy_in_place SRC FILE: SRC's bytes become FILE's content, same inode.
copy_in_place() {
	python3 - "$1" "$2" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC)
sys.exit(os.write(fd, data) != len(data))
PY
}

# Loop-device ext4 file systems for the tests of how logs reach a disk (root, losetup
# and mkfs.ext4, as CI has). loop_ext4_ready NAME [COMMAND...]: "not ok" and false when
# a tool or root is missing; else sets the trap that unmounts, detaches and removes $TMP.
loop_ext4_ready() {
	local name=$1 c
	shift
	for c in losetup mkfs.ext4 "$@"; do
		if [ "$(id -u)" -ne 0 ] || ! command -v "$c" >/dev/null; then
			not_ok "$name: needs root and $c (scripts/packages.test)"
			return 1
		fi
	done
	loops=()
	trap loop_ext4_cleanup EXIT
}
loop_ext4_cleanup() {
	local m l
	for m in "$TMP"/mnt-*; do [ -d "$m" ] && umount "$m" 2>/dev/null; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
# loop_ext4_new IMG: a fresh 32 MB ext4 image (inode tables and journal written now,
# not by the kernel's lazy init while a test counts).
loop_ext4_new() {
	truncate -s 32M "$1"
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$1"
}
# loop_ext4_mount IMG NAME OPTIONS: IMG on a loop device of its own, mounted with
# OPTIONS at $TMP/mnt-NAME.
loop_ext4_mount() {
	local l
	l=$(losetup -f --show "$1") || return 1
	loops+=("$l")
	mkdir -p "$TMP/mnt-$2"
	mount -o "$3" "$l" "$TMP/mnt-$2"
}
