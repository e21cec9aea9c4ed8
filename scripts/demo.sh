#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: vigil on a scripted emergency, no hardware needed. What it plays:
#   gpu (default)  eight simulated H100s (tests/nvml-sim, the NVML simulator); after
#                  about 3 s gpu3 runs hot, then falls off the bus (Xid 79) for good
#   pi             a Raspberry Pi 4 fixture (tests/fixtures/pi4-noaccess) whose supply
#                  sags: under-voltage from 5 s to 15 s, then cleared
# The live view, the dashboard (the address is printed) and the logs (a fresh directory
# under build/demo, or DEMO_DIR) are vigil's own; Ctrl+C ends it with the exit summary.
# DEMO_UV_AT and DEMO_UV_FOR (seconds) time the Pi's under-voltage.
#   scripts/demo.sh [gpu|pi] [BUILD-DIR] [VIGIL OPTIONS...]
set -euo pipefail
what=${1:-gpu}
build=${2:-build}
shift $(($# > 2 ? 2 : $#))
top=$(cd "$(dirname "$0")/.." && pwd)
vigil="$build/vigil"
demo_dir=${DEMO_DIR:-$build/demo}
mkdir -p "$demo_dir"
run=$(mktemp -d "$demo_dir/$what.XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "vigil demo ($what): logs in $run, dashboard at http://127.0.0.1:$port/ (Ctrl+C stops)"
case "$what" in
gpu)
	root="$run/root"
	cp -a "$top/tests/fixtures/x86-server" "$root"
	export VIGIL_NVML_SCENARIO="$top/tests/nvml-sim/scenarios/emergency-8gpu"
	exec "$vigil" --nvml "$build/nvml-sim/libnvidia-ml.so.1" --root "$root" \
		--interval 0.5 --gpu-interval 0.1 --log-dir "$run/log" \
		--listen "127.0.0.1:$port" "$@"
	;;
pi)
	root="$run/root"
	cp -a "$top/tests/fixtures/pi4-noaccess" "$root"
	alarm="$root/sys/class/hwmon/hwmon1/in0_lcrit_alarm"
	# The supply: the rpi_volt alarm the kernel raises under 4.63 V, up at 5 s, down at 15 s.
	(sleep "${DEMO_UV_AT:-5}" && echo 1 >"$alarm" && sleep "${DEMO_UV_FOR:-10}" &&
		echo 0 >"$alarm") &
	supply=$!
	rc=0
	"$vigil" --root "$root" --interval 0.5 --log-dir "$run/log" \
		--listen "127.0.0.1:$port" "$@" || rc=$?
	kill "$supply" 2>/dev/null || true
	exit "$rc"
	;;
*)
	echo "usage: scripts/demo.sh [gpu|pi] [BUILD-DIR] [VIGIL OPTIONS...]" >&2
	exit 2
	;;
esac
