#!/usr/bin/env bash
# `make run`: start vigil on this machine in the foreground, live view on, /metrics and
# the dashboard on loopback. Extra options: make run ARGS="--watch player=run_linux.py".
set -euo pipefail
vigil=${1:-build/vigil}
port=${VIGIL_PORT:-9101}
echo "vigil: dashboard and metrics at http://127.0.0.1:$port/ (Ctrl+C stops)"
# shellcheck disable=SC2086
exec "$vigil" --listen "127.0.0.1:$port" ${ARGS:-}
