#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run every benchmark and print its ratios. Each compares vigil with a floor or a peer
# measured in the same run on the same machine; record the figures in bench/RESULTS.md.
# Exits 1, naming them, when any benchmark failed (one that cannot measure fails).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
failed=()
for b in bench/[0-9]*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	BUILD=$B bash "$b" || failed+=("$(basename "$b" .sh)")
	echo
done
# A benchmark that could not measure fails with its reason: the run fails with it.
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED (not measured): ${failed[*]}" >&2
	exit 1
fi
