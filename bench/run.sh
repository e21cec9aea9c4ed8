#!/usr/bin/env bash
# Run every benchmark and print its ratios. Each compares vigil with a floor or a peer
# measured in the same run on the same machine; record the figures in bench/RESULTS.md.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
for b in bench/[0-9]*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	BUILD=$B bash "$b"
	echo
done
