#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vigil on the Pi's own architectures: the whole daemon, the simulated NVML and every
# unit test built for aarch64 and armhf, the unit tests run under qemu-user
# (scripts/cross-test.sh); then the ARM daemon itself, under qemu-user, samples the
# recorded Raspberry Pi trees and its CSV cells are checked (32-bit pointers and
# time_t, the ARM ABI's unsigned char, the Pi's own word sizes).
# Runs once, in the plain pass: under the ASan build it prints nothing.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0
"$TOP/scripts/cross-test.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

smoke() { # smoke ARCH QEMU
	local arch=$1 qemu=$2 bin=$TOP/build/cross/$1/vigil csv ev
	if [ ! -x "$bin" ] || ! command -v "$qemu" >/dev/null; then
		echo "# skip cross-$arch daemon: no $bin or $qemu"
		return 0
	fi
	cell() { csv_cell "$csv" "$1" "$2"; }

	run() { # run TREE: three samples into $TMP/ARCH-TREE
		local d=$TMP/$arch-$1
		"$qemu" "$bin" --root "$FIXTURES/$1" --count 3 --interval 0.05 --log-dir "$d" \
			--quiet 2>"$d.err"
		check "cross-$arch daemon: $1 exits 0" test $? -eq 0 || head -5 "$d.err"
		csv=$(ls "$d"/host-*.csv 2>/dev/null | head -1)
		ev=$d/events.log
		check_eq "cross-$arch daemon: $1 wrote 3 rows" 4 "$( [ -n "$csv" ] && wc -l <"$csv")"
	}

	run pi4-healthy
	check_eq "cross-$arch daemon: firmware columns" "47.7 0.8563 1500.398464 500.000992 500.000992 75.001464 0.0" \
		"$(echo $(cell 1 temp_c) $(cell 1 volt_core_v) $(cell 1 arm_mhz) $(cell 1 core_mhz) $(cell 1 v3d_mhz) $(cell 1 pixel_mhz) $(cell 1 h264_mhz))"
	check_eq "cross-$arch daemon: throttled_raw" 0x0 "$(cell 3 throttled_raw)"
	check_eq "cross-$arch daemon: load and memory" "0.52 0.58 0.59 1061.265625 2729.59765625" \
		"$(echo $(cell 3 load1) $(cell 3 load5) $(cell 3 load15) $(cell 3 mem_used_mb) $(cell 3 mem_avail_mb))"

	run pi4-undervolt
	check_eq "cross-$arch daemon: undervolt throttled_raw" 0x50005 "$(cell 1 throttled_raw)"
	check_eq "cross-$arch daemon: undervolt flags" \
		"NOW:under-voltage,NOW:currently throttled,HAS:under-voltage occurred,HAS:throttling occurred" \
		"$(cell 1 throttle_flags)"
	check "cross-$arch daemon: undervolt transition in events.log" \
		grep -Eq 'type=RPI_THROTTLE condition="under-voltage" state=set throttled=0x50005 .*volt=0.8000V arm=600MHz' "$ev"

	run pi5
	check_eq "cross-$arch daemon: pi5 arm clock" 2400.033792 "$(cell 1 arm_mhz)"
	check_eq "cross-$arch daemon: pi5 sticky bit" 0x80000 "$(cell 1 throttled_raw)"
}

smoke aarch64 qemu-aarch64
smoke armhf qemu-arm
exit 0
