#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Remote-write per-frame work, frame to encoder: the text path the push had (render
# /metrics, parse it back) against the sample records it queues now (bench_rw_record.c).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
make -s "$B/bench/bench_rw_record" BUILD="$B" >/dev/null
"$B/bench/bench_rw_record" "${RW_ROUNDS:-15}" "${RW_FRAMES:-200}"
