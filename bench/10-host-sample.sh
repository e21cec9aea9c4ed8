#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU per host sample against the bare-read floor (kept fds + pread of the same files).
B=${BUILD:-build}
"$B/bench/bench_host" 15 2000
for tree in pi4 x86-server; do
	echo "-- fixture tree $tree"
	"$B/bench/bench_host" 15 2000 "$PWD/tests/fixtures/$tree"
done
