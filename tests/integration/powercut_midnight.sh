#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Power cuts across a local midnight: powercut.sh in a time zone whose midnight falls
# 12 s into the run. A day's file cut before midnight is never opened again by vigil
# (it logs to the new day's); the post-mortem at the next start must still leave it
# ending in a whole row, and name the newest day's rows. Every cut is torn, so the
# one before midnight leaves a partial row.
now=$(date -u +%s)
# Local time = UTC - offset (POSIX TZ "STDoffset"): local midnight at now + 12 s.
off=$(((now + 12) % 86400))
[ "$off" -gt 43200 ] && off=$((off - 86400))
sign=+
[ "$off" -lt 0 ] && sign=- && off=$((-off))
tz=$(printf 'MID%s%d:%02d:%02d' "$sign" $((off / 3600)) $((off % 3600 / 60)) $((off % 60)))
POWERCUT_TZ=$tz POWERCUT_CUTS=${POWERCUT_CUTS:-12} POWERCUT_TORN_EVERY=1 exec bash "$(dirname "$0")/powercut.sh"
