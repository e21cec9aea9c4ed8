#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU per sample of the reference monitor's eight firmware reads: vigil's gencmd
# transport (one mailbox request per command, as vcgencmd sends them) against one
# spawned vcgencmd per value (what the reference does, and vigil's last fallback).
# The gencmd side runs the fake firmware on tests/fixtures/pi4-current/dev/vcio_gencmd:
# vigil's user-space work only (on a Pi the ioctl's kernel and firmware time adds to
# it); the vcgencmd side runs tests/fixtures/bin/vcgencmd, children's CPU included.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
REPEAT=${REPEAT:-3}
make -s "$B/bench/bench_gencmd" BUILD="$B" >/dev/null
export PATH="$PWD/tests/fixtures/bin:$PATH"
node="$PWD/tests/fixtures/pi4-current/dev/vcio_gencmd"
for ((r = 1; r <= REPEAT; r++)); do
	out=$("$B/bench/bench_gencmd" 9 20000 20 "$node")
	g=$(awk '$1 == "gencmd_sample_us" {print $2}' <<<"$out")
	v=$(awk '$1 == "vcgencmd_sample_us" {print $2}' <<<"$out")
	vals=$(awk '$1 ~ /^values_/ {printf "%s=%s ", $1, $2}' <<<"$out")
	awk -v g="$g" -v v="$v" -v r="$r" -v vals="$vals" 'BEGIN {
		printf "run %d: gencmd %.2f us, spawned vcgencmd %.0f us per sample (8 values); ratio %.0fx; %s\n",
			r, g, v, v / g, vals }'
done
