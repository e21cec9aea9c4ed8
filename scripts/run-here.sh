#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make run`: start vigil on this machine in the foreground, live view on, /metrics and
# the dashboard on loopback. Extra options: make run ARGS="--watch player=run_linux.py".
# It stays out of the packaged service's way, and says so: as root the logs go to
# build/run-logs (RUN_LOGS; not the service's /var/log/vigil) unless ARGS names a
# --log-dir, and
# when the port (VIGIL_PORT, default 9101, the service's) is taken another free one on
# loopback is used.
set -euo pipefail
vigil=${1:-build/vigil}
port=${VIGIL_PORT:-9101}
args=${ARGS:-}
extra=()
case " $args " in
*" --log-dir"* | *" --no-log "*) ;;
*)
	if [ "$(id -u)" = 0 ]; then
		logs=${RUN_LOGS:-$(dirname "$vigil")/run-logs}
		mkdir -p "$logs"
		echo "vigil: as root: logs in $logs, not the packaged service's /var/log/vigil" \
			"(ARGS=\"--log-dir DIR\" to choose)"
		extra+=(--log-dir "$logs")
	fi
	;;
esac
# port_free PORT: nothing listens on 127.0.0.1:PORT.
port_free() { python3 -c 'import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$1"; }
if ! port_free "$port"; then
	want=$port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	echo "vigil: port $want is taken (the packaged service's?): using $port (VIGIL_PORT=N to choose)"
fi
echo "vigil: dashboard and metrics at http://127.0.0.1:$port/ (Ctrl+C stops)"
# shellcheck disable=SC2086
exec "$vigil" --listen "127.0.0.1:$port" "${extra[@]}" $args
