#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build every libFuzzer harness (fuzz/fuzz_*.c) into $FUZZ_BUILD/fuzz/ (default
# build-fuzz): the library is compiled by clang with ASan+UBSan and libFuzzer's
# coverage, each harness linked against it. A harness names what else it needs on a
# " * Link: ..." line of its header comment (sources, -I and -l flags).
# Usage: fuzz/build.sh [NAME...]   (names without fuzz_ and .c; default: all)
# Exits 77 when clang cannot build a libFuzzer binary here.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${FUZZ_BUILD:-build-fuzz}
cc=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
	echo "fuzz: $cc cannot build libFuzzer binaries (Debian: apt-get install clang libclang-rt-dev)" >&2
	exit 77
fi

make -s -j"${FUZZ_JOBS:-2}" BUILD="$out" CC="$cc" OPT="-O1 -g $san -fsanitize=fuzzer-no-link" \
	"$out/libvigil.a"
mkdir -p "$out/fuzz"

if [ $# -gt 0 ]; then names=("$@"); else
	names=()
	for f in fuzz/fuzz_*.c; do n=$(basename "$f" .c); names+=("${n#fuzz_}"); done
fi
set -f # Link: words are taken as written, never as globs
libs=$(pkg-config --libs zlib 2>/dev/null || echo -lz)
for n in "${names[@]}"; do
	src=fuzz/fuzz_$n.c
	bin=$out/fuzz/fuzz_$n
	# shellcheck disable=SC2207
	extra=($(sed -n 's/^ \* Link: \(.*\)/\1/p' "$src" | sed 's#\*/##'))
	deps=("$src" "$out/libvigil.a")
	for e in "${extra[@]}"; do [ -f "$e" ] && deps+=("$e"); done
	up_to_date=1
	for d in "${deps[@]}"; do [ "$d" -nt "$bin" ] && up_to_date=0; done
	[ -x "$bin" ] && [ $up_to_date -eq 1 ] && continue
	# shellcheck disable=SC2086
	"$cc" -std=gnu17 -O1 -g $san -fsanitize=fuzzer -D_GNU_SOURCE -Isrc -Wall -Wextra -Werror \
		-o "$bin" "$src" "${extra[@]}" "$out/libvigil.a" $libs -ldl -lpthread -lm
done
