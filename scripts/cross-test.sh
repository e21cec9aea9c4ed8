#!/usr/bin/env bash
# Build the unit tests that need no outside library (the Raspberry Pi mailbox, parsers,
# source and rules) for 64-bit and 32-bit ARM, and run them under qemu-user. cmocka
# comes from tests/cross/cmocka.h, a stand-in with the same API, so no multiarch
# packages are needed. Prints "ok cross-ARCH TEST" / "not ok cross-ARCH TEST" lines, or
# one "# skip" line per architecture whose compiler or emulator is missing.
#   scripts/cross-test.sh [aarch64|armhf]...      (default: both)
set -uo pipefail
cd "$(dirname "$0")/.."

# Library sources the tests below link with (nothing that needs libinih & co).
SRCS=(src/util/parse.c src/util/pfile.c src/util/strbuf.c src/util/fmt.c src/util/clock.c
	src/util/log.c src/core/frame.c
	src/collect/rpi.c src/collect/rpi_fakefw.c src/collect/rpi_fw.c src/collect/rpi_gencmd.c src/collect/rpi_mbox.c
	src/collect/rpi_sysfs.c src/collect/rpi_transport.c src/collect/rpi_vcgencmd.c
	src/detect/rpi_rules.c src/detect/rpi_throttle.c src/detect/storage_rules.c src/sink/eventlog.c)
TESTS=(test_rpi_mbox test_rpi_gencmd test_rpi test_rpi_faults test_rpi_rules)
CFLAGS=(-std=gnu17 -O2 -g -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes
	-Wmissing-prototypes -Werror -D_GNU_SOURCE -DVIGIL_CROSS=1 -DVIGIL_VERSION=\"cross\"
	-Isrc -Itests/cross)

arch_cc() {
	case $1 in
	aarch64) echo aarch64-linux-gnu-gcc ;;
	armhf) echo arm-linux-gnueabihf-gcc ;;
	esac
}
arch_qemu() {
	case $1 in
	aarch64) echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
	armhf) echo "qemu-arm -L /usr/arm-linux-gnueabihf" ;;
	esac
}

failed=0
run_arch() { # run_arch ARCH
	local arch=$1 cc qemu out obj objs=() t log
	cc=$(arch_cc "$arch")
	qemu=$(arch_qemu "$arch")
	if ! command -v "$cc" >/dev/null || ! command -v "${qemu%% *}" >/dev/null; then
		echo "# skip cross-$arch: $cc or ${qemu%% *} missing (scripts/packages.test)"
		return 0
	fi
	out=build/cross/$arch
	mkdir -p "$out/obj"
	for src in "${SRCS[@]}"; do
		obj=$out/obj/$(basename "$src" .c).o
		if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find src -name '*.h' -newer "$obj" -print -quit)" ]; then
			if ! "$cc" "${CFLAGS[@]}" -c "$src" -o "$obj" 2>"$out/build.log"; then
				echo "not ok cross-$arch build $(basename "$src")"
				sed 's/^/    /' "$out/build.log" | head -20
				failed=1
				return 0
			fi
		fi
		objs+=("$obj")
	done
	for t in "${TESTS[@]}"; do
		log=$out/$t.log
		if ! "$cc" "${CFLAGS[@]}" -o "$out/$t" "tests/unit/$t.c" "${objs[@]}" -lm 2>"$log"; then
			echo "not ok cross-$arch $t (build)"
			sed 's/^/    /' "$log" | head -20
			failed=1
			continue
		fi
		# shellcheck disable=SC2086
		if timeout 600 $qemu "$out/$t" >"$log" 2>&1; then
			echo "ok cross-$arch $t ($(sed -n 's/^\[  PASSED  \] \([0-9]*\).*/\1/p' "$log") passed)"
		else
			echo "not ok cross-$arch $t (see $log)"
			grep -A1 '^\[  ERROR' "$log" | sed 's/^/    /' | head -20
			failed=1
		fi
	done
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
