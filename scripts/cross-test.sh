#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build the whole of vigil (the daemon, the simulated NVML and every unit test) for
# 64-bit and 32-bit ARM with the Debian cross compilers and the arm64/armhf build
# dependencies (scripts/packages.cross), and run every unit test under qemu-user.
# Prints "ok cross-ARCH NAME" / "not ok cross-ARCH NAME" lines, or one "# skip" line per
# architecture whose compiler, emulator or multiarch packages are missing.
# The daemon is left in build/cross/ARCH/vigil for tests/integration/cross.sh.
#   scripts/cross-test.sh [aarch64|armhf]...      (default: both)
set -uo pipefail
cd "$(dirname "$0")/.."

arch_triplet() {
	case $1 in
	aarch64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	esac
}
arch_qemu() {
	case $1 in
	aarch64) echo qemu-aarch64 ;;
	armhf) echo qemu-arm ;;
	esac
}

failed=0
run_arch() { # run_arch ARCH
	local arch=$1 triplet qemu out t log p f
	triplet=$(arch_triplet "$arch")
	qemu=$(arch_qemu "$arch")
	if ! command -v "$triplet-gcc" >/dev/null || ! command -v "$qemu" >/dev/null; then
		echo "# skip cross-$arch: $triplet-gcc or $qemu missing (scripts/packages.deb)"
		return 0
	fi
	if ! "$triplet-pkg-config" --exists inih libmicrohttpd zlib cmocka 2>/dev/null; then
		echo "# skip cross-$arch: the $arch build dependencies are missing (scripts/packages.cross)"
		return 0
	fi
	out=build/cross/$arch
	log=build/cross/$arch.build.log
	mkdir -p build/cross
	if make -s -j2 BUILD="$out" CC="$triplet-gcc" PKG_CONFIG="$triplet-pkg-config" all unit \
		>"$log" 2>&1; then
		echo "ok cross-$arch build: daemon, simulated NVML, $(ls "$out"/tests/test_* | wc -l) unit tests"
	else
		echo "not ok cross-$arch build (see $log)"
		grep -m 20 -E 'error|Error' "$log" | sed 's/^/    /'
		failed=1
		return 0
	fi
	check_elf "$arch" "$out/vigil"
	# The binaries run with the architecture's own libc, libinih and libcmocka where
	# multiarch installed them (/usr/lib/TRIPLET, found by its /lib/ld-linux-*.so). Not
	# with qemu -L /usr/TRIPLET: that loader is another build of glibc (libc6-*-cross)
	# and mixing the two hangs pthread_create under qemu.
	for t in "$out"/tests/test_*; do
		log=$out/$(basename "$t").log
		if timeout 600 "$qemu" "$t" >"$log" 2>&1; then
			p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\).*/\1/p' "$log" | tail -1)
			echo "ok cross-$arch $(basename "$t") (${p:-0} passed)"
		else
			f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | tail -1)
			echo "not ok cross-$arch $(basename "$t") (${f:-?} failed, see $log)"
			grep -A2 -E '^\[  (ERROR|FAILED)' "$log" | sed 's/^/    /' | head -20
			failed=1
		fi
	done
}

check_elf() { # check_elf ARCH FILE: the binary really is for ARCH
	local want
	case $1 in
	aarch64) want='ELF 64-bit.*ARM aarch64' ;;
	armhf) want='ELF 32-bit.*ARM, EABI5' ;;
	esac
	if LC_ALL=C file -L "$2" | grep -Eq "$want"; then
		echo "ok cross-$1 daemon is an $1 ELF"
	else
		echo "not ok cross-$1 daemon is an $1 ELF: $(file -L "$2")"
		failed=1
	fi
}

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(aarch64 armhf)
for a in "${archs[@]}"; do
	case $a in
	aarch64 | armhf) run_arch "$a" ;;
	*) echo "cross-test.sh: unknown architecture $a" >&2; exit 2 ;;
	esac
done
exit $failed
