#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpu-check.sh: does vigil read the GPUs as NVIDIA's own tool does? On a machine with
# NVIDIA GPUs, runs vigil for 30 s (GPU every 0.1 s) beside
#   nvidia-smi --query-gpu=... --format=csv,noheader,nounits -lms 100
# and prints, per GPU and field, vigil's value and nvidia-smi's, the tolerance, and
# whether they agree. Numbers are compared as the median of each side over the run,
# states (P-state, PCIe link, clock-event reasons) as the value seen most often, and the
# compute processes as the set of pids both list at the end; NVLink, the fabric, the
# memory's depth (aggregate ECC counts, ECC mode, retired pages, persistence mode) and
# the PCIe maximum as vigil's /metrics at the end beside nvidia-smi's answer then, a
# field neither has recorded as "not supported on this GPU". Exit status: 0 when every
# field agrees, 1 when one does not, 2 when the check could not run.
#
# It only reads: nvidia-smi is only asked to query (--query-gpu, --query-compute-apps,
# nvlink --status, -q), and vigil only reads NVML and /proc; no setting of the GPUs is
# changed.
#
# Usage: scripts/gpu-check.sh [--duration SEC] [--vigil PATH] [--nvml LIBRARY]
#                             [--smi PATH] [--root DIR]
#   --duration   how long both run (default 30)
#   --vigil      the vigil binary (default: build/vigil of this tree, else vigil on PATH)
#   --nvml       passed to vigil's --nvml (default: the driver's libnvidia-ml.so.1)
#   --smi        the nvidia-smi to run (default: nvidia-smi on PATH)
#   --root       passed to vigil's --root (where it reads /proc)
#
# nvidia-smi field names: nvidia-smi --help-query-gpu and --help-query-compute-apps
# (NVIDIA's nvidia-smi manual). clocks_event_reasons.active and memory.reserved are the
# newer names; a driver that rejects them is asked clocks_throttle_reasons.active and no
# reserved memory instead. The memory's depth and the PCIe maximum are asked once, at the
# end, in a query of their own (a driver that rejects one of them fails only that query):
# pcie.link.gen.max and pcie.link.width.max ("possible with this GPU and system
# configuration": NVML's nvmlDeviceGetMaxPcieLink*, what vigil reads, not .gpumax, the
# GPU's own), ecc.mode.current and .pending, ecc.errors.corrected.aggregate.total and
# ecc.errors.uncorrected.aggregate.total, retired_pages.single_bit_ecc.count,
# retired_pages.double_bit.count (no "_ecc" in this one) and retired_pages.pending,
# persistence_mode (nvidia-smi --help-query-gpu, driver 550). nvidia-smi answers "[N/A]"
# or "[Not Supported]" where the GPU lacks one; where vigil has no series either, the row
# says "not supported on this GPU".
set -u

DURATION=30
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VIGIL=""
NVML=""
SMI=nvidia-smi
ROOT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) DURATION=$2; shift 2 ;;
	--vigil) VIGIL=$2; shift 2 ;;
	--nvml) NVML=$2; shift 2 ;;
	--smi) SMI=$2; shift 2 ;;
	--root) ROOT=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu-check: unknown argument: $1" >&2; exit 2 ;;
	esac
done
case "$DURATION" in '' | *[!0-9]*) echo "gpu-check: --duration wants whole seconds" >&2; exit 2 ;; esac
if [ -z "$VIGIL" ]; then
	if [ -x "$HERE/build/vigil" ]; then VIGIL="$HERE/build/vigil"; else VIGIL=$(command -v vigil || true); fi
fi
[ -x "$VIGIL" ] || { echo "gpu-check: no vigil binary (build it, or give --vigil)" >&2; exit 2; }
command -v "$SMI" >/dev/null || { echo "gpu-check: $SMI not found: no NVIDIA driver here?" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] && echo "gpu-check: files kept in $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

# The fields asked, and the older names for a driver that rejects the newer ones.
FIELDS="index,temperature.gpu,power.draw,power.limit,enforced.power.limit,clocks.gr,clocks.mem,utilization.gpu,utilization.memory,memory.used,memory.total,memory.reserved,pcie.link.gen.current,pcie.link.width.current,pstate,fan.speed,clocks_event_reasons.active"
if ! "$SMI" --query-gpu="$FIELDS" --format=csv,noheader,nounits >"$TMP/probe" 2>&1; then
	FIELDS=${FIELDS/,memory.reserved/}
	FIELDS=${FIELDS/clocks_event_reasons.active/clocks_throttle_reasons.active}
	if ! "$SMI" --query-gpu="$FIELDS" --format=csv,noheader,nounits >"$TMP/probe" 2>&1; then
		echo "gpu-check: $SMI --query-gpu failed: $(head -1 "$TMP/probe")" >&2
		exit 2
	fi
fi
NGPU=$(grep -c . "$TMP/probe")

# A port nothing listens on, for the dashboard (the process lists).
PORT=""
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 40000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then PORT=$p; break; fi
done
[ -n "$PORT" ] || { echo "gpu-check: no free port found" >&2; exit 2; }

args=(--quiet --log-dir "$TMP/log" --gpu-interval 0.1 --interval 1 --duration "$DURATION"
	--gpu-proc-interval 1 --listen "127.0.0.1:$PORT")
[ -n "$NVML" ] && args+=(--nvml "$NVML")
[ -n "$ROOT" ] && args+=(--root "$ROOT")
"$VIGIL" "${args[@]}" 2>"$TMP/vigil.err" &
VPID=$!
PIDS+=("$VPID")
"$SMI" --query-gpu="$FIELDS" --format=csv,noheader,nounits -lms 100 >"$TMP/smi.csv" 2>"$TMP/smi.err" &
PIDS+=("$!")

# nvlink_rows GPU: the NVLink links active (vigil_gpu_nvlink_up against nvidia-smi nvlink
# --status: "Link N: <speed>" active, "<inactive>" not), vigil's error counters (read,
# not compared: they move), the fabric probe's state (vigil_gpu_fabric_state against the
# "Fabric" section's State of nvidia-smi -q). A GPU without them on both sides is
# recorded as "not supported".
nvlink_rows() {
	local g=$1 v s vs
	v=$(awk -v g="$g" 'index($0, "vigil_gpu_nvlink_up{gpu=\"" g "\"") == 1 { n += $2; seen = 1 }
		END { if (seen) print n }' "$TMP/metrics.txt")
	s=$(awk -v g="$g" '/^GPU [0-9]+:/ { cur = $2; sub(":", "", cur) }
		cur == g && /Link [0-9]+:/ { seen = 1; if ($0 !~ /inactive/) n++ }
		END { if (seen) print n + 0 }' "$TMP/nvlink.txt")
	if [ -z "$v" ] && [ -z "$s" ]; then
		row "$g" "nvlink links active" "not supported" "not supported" "" "agree (no NVLink)"
	else
		[ "$v" = "$s" ] && res=agree || res=disagree
		row "$g" "nvlink links active" "${v:-none}" "${s:-none}" "same count" "$res"
		v=$(awk -v g="$g" 'index($0, "vigil_gpu_nvlink_errors_total{gpu=\"" g "\"") == 1 { n += $2; seen = 1 }
			END { if (seen) print n }' "$TMP/metrics.txt")
		row "$g" "nvlink error counters (sum)" "${v:-not supported}" "not queried" "" "recorded"
	fi
	v=$(metric "$g" vigil_gpu_fabric_state)
	s=$(awk -v g="$g" '/^GPU [0-9A-Fa-f]+:/ { n++ } n == g + 1 && /^ *Fabric *$/ { f = 1; next }
		f && /^ *State *:/ { sub(/^[^:]*: */, ""); print; exit }' "$TMP/query.txt")
	case "$s" in
	"Not Started") vs=1 ;; "In Progress") vs=2 ;; Completed) vs=3 ;; *) vs="" ;;
	esac
	if [ -z "$v" ] && [ -z "$vs" ]; then
		row "$g" "fabric state" "not supported" "${s:-not supported}" "" "agree (no fabric)"
	else
		[ "$v" = "$vs" ] && res=agree || res=disagree
		row "$g" "fabric state (1-3)" "${v:-none}" "${s:-none}" "same state" "$res"
	fi
}

# metric GPU NAME [LABEL=VALUE]: vigil's /metrics value of NAME for GPU (and the label),
# nothing when it has no such series.
metric() {
	awk -v g="$1" -v n="$2" -v l="${3:-}" 'index($0, n "{gpu=\"" g "\"") == 1 {
		if (l != "") { split(l, kv, "="); if (index($0, kv[1] "=\"" kv[2] "\"") == 0) next }
		print $2; exit }' "$TMP/metrics.txt"
}
# depth_raw GPU FIELD: nvidia-smi's answer to one of the depth fields, as printed.
depth_raw() {
	awk -F', *' -v g="$1" -v n="$(tr ',' '\n' <<<"$DEPTH" | grep -nx "$2" | cut -d: -f1)" \
		'$1 + 0 == g && $1 != "" { print $n; exit }' "$TMP/depth.csv"
}
# depth_number ANSWER: an answer as a number (Enabled/Yes 1, Disabled/No 0); "" for
# [N/A], [Not Supported] or no answer.
depth_number() {
	case "$1" in
	Enabled | Yes) echo 1 ;; Disabled | No) echo 0 ;;
	*[!0-9]* | "") ;;
	*) echo "$1" ;;
	esac
}
# depth_row GPU FIELD NAME [LABEL=VALUE] [counter]: one depth field, vigil's /metrics
# beside nvidia-smi. Neither side having it is "not supported on this GPU"; a counter
# vigil read lower (up to one slow period before nvidia-smi) agrees as "rose between".
depth_row() {
	local g=$1 f=$2 v s raw
	v=$(metric "$g" "$3" "${4:-}")
	raw=$(depth_raw "$g" "$f")
	s=$(depth_number "$raw")
	if [ -z "$v" ] && [ -z "$s" ]; then
		row "$g" "$f" "not supported" "${raw:-none}" "" "not supported on this GPU"
	elif [ -z "$v" ]; then
		row "$g" "$f" "none" "$raw" "exact" "disagree (vigil has none)"
	elif [ -z "$s" ]; then
		row "$g" "$f" "$v" "${raw:-none}" "exact" "disagree (nvidia-smi has none)"
	elif [ "$v" = "$s" ]; then
		row "$g" "$f" "$v" "$raw" "exact" agree
	elif [ "${5:-}" = counter ] && [ "$v" -lt "$s" ] 2>/dev/null; then
		row "$g" "$f" "$v" "$raw" "vigil <= (a counter)" "agree (rose between the reads)"
	else
		row "$g" "$f" "$v" "$raw" "exact" disagree
	fi
}
depth_rows() {
	local g=$1
	if [ ! -s "$TMP/depth.csv" ]; then
		row "$g" "memory depth and PCIe maximum" "" "" "" "not asked (nvidia-smi rejected the query: $(grep -m1 . "$TMP/depth.err"))"
		return
	fi
	depth_row "$g" pcie.link.gen.max vigil_gpu_pcie_link_max_generation
	depth_row "$g" pcie.link.width.max vigil_gpu_pcie_link_max_width
	depth_row "$g" ecc.mode.current vigil_gpu_ecc_mode mode=current
	depth_row "$g" ecc.mode.pending vigil_gpu_ecc_mode mode=pending
	depth_row "$g" ecc.errors.corrected.aggregate.total vigil_gpu_ecc_errors_aggregate_total type=corrected counter
	depth_row "$g" ecc.errors.uncorrected.aggregate.total vigil_gpu_ecc_errors_aggregate_total type=uncorrected counter
	depth_row "$g" retired_pages.single_bit_ecc.count vigil_gpu_retired_pages cause=multiple_single_bit counter
	depth_row "$g" retired_pages.double_bit.count vigil_gpu_retired_pages cause=double_bit counter
	depth_row "$g" retired_pages.pending vigil_gpu_retired_pages_pending
	depth_row "$g" persistence_mode vigil_gpu_persistence_mode
}

# Near the end, both process lists at about the same moment: vigil's dashboard (its
# list is at most 1 s old) and nvidia-smi's compute applications.
http_get() {
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT" && printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$1" >&3 &&
		cat <&3) 2>/dev/null
}
# The GPU sections appear once the first chart period is in: ask again until they do.
sleep $((DURATION > 3 ? DURATION - 2 : 1))
while :; do
	http_get / >"$TMP/dashboard.html"
	grep -q '<h2>GPU' "$TMP/dashboard.html" && break
	kill -0 "$VPID" 2>/dev/null || break
	sleep 0.3
done
"$SMI" --query-compute-apps=gpu_uuid,pid --format=csv,noheader,nounits >"$TMP/apps.csv" 2>"$TMP/apps.err"
# NVLink and the fabric: vigil's /metrics (read on its slow cadence) beside nvidia-smi's
# link status and its -q Fabric section.
http_get /metrics >"$TMP/metrics.txt"
"$SMI" nvlink --status >"$TMP/nvlink.txt" 2>&1
"$SMI" -q >"$TMP/query.txt" 2>&1
"$SMI" --query-gpu=index,uuid --format=csv,noheader,nounits >"$TMP/uuids.csv" 2>/dev/null
# The memory's depth and the PCIe maximum beside the same /metrics.
DEPTH="index,pcie.link.gen.max,pcie.link.width.max,ecc.mode.current,ecc.mode.pending,ecc.errors.corrected.aggregate.total,ecc.errors.uncorrected.aggregate.total,retired_pages.single_bit_ecc.count,retired_pages.double_bit.count,retired_pages.pending,persistence_mode"
# A driver that rejects a field says so on either stream, with or without a failing
# status: no GPU line is a rejection, its first line the reason.
if ! "$SMI" --query-gpu="$DEPTH" --format=csv,noheader,nounits >"$TMP/depth.csv" 2>"$TMP/depth.err" ||
	! grep -q '^[0-9]' "$TMP/depth.csv"; then
	cat "$TMP/depth.csv" >>"$TMP/depth.err"
	: >"$TMP/depth.csv"
fi
wait "$VPID"
vrc=$?
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
PIDS=()
if [ "$vrc" -ne 0 ]; then
	echo "gpu-check: vigil exited with status $vrc: $(tail -1 "$TMP/vigil.err")" >&2
	exit 2
fi

# column FILE NAME: the values of one named CSV column, one a line ("" when missing);
# nothing at all when the file has no such column.
column() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; if (!c) exit; next }
		$1 == "timestamp" { next } { print $c }' "$1"
}
# smi_column INDEX N: nvidia-smi's Nth field of GPU INDEX, one a line.
smi_column() {
	awk -F', *' -v g="$1" -v n="$2" '$1 + 0 == g && $1 != "" { print $n }' "$TMP/smi.csv"
}
# median: of the numbers read ("" when none; "[N/A]" and the like are not numbers).
median() {
	grep -E '^ *-?[0-9]+(\.[0-9]+)? *$' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
# mode: the value seen most often (empty cells and N/A left out).
mode() {
	grep -v -E '^ *$|N/A|Not Supported' | sort | uniq -c | sort -k1,1nr -k2 | awk 'NR == 1 { print $2 }'
}

AGREE=0
DISAGREE=0
printf 'vigil gpu-check: %s s, vigil every 0.1 s beside %s -lms 100; medians (states: the most\n' "$DURATION" "$SMI"
printf 'frequent value) over the run; processes: compute pids at the end of the run\n\n'
printf '%-4s %-40s %-20s %-20s %-22s %s\n' GPU FIELD VIGIL NVIDIA-SMI TOLERANCE RESULT
# row GPU FIELD VIGIL SMI TOLERANCE RESULT: one line of the table, counted.
row() {
	printf '%-4s %-40s %-20s %-20s %-22s %s\n' "$1" "$2" "${3:--}" "${4:--}" "$5" "$6"
	case "$6" in disagree*) DISAGREE=$((DISAGREE + 1)) ;; *) AGREE=$((AGREE + 1)) ;; esac
}
# within A B ABS PCT: |A - B| <= max(ABS, PCT % of B).
within() {
	awk -v a="$1" -v b="$2" -v abs="$3" -v pct="$4" 'BEGIN {
		d = a - b; if (d < 0) d = -d; t = b * pct / 100; if (t < 0) t = -t; if (t < abs) t = abs
		exit !(d <= t) }'
}
# verdict VIGIL SMI ABS PCT: "agree", "disagree", or what is missing.
verdict() {
	if [ -z "$1" ] && [ -z "$2" ]; then echo "agree (neither has it)"
	elif [ -z "$1" ]; then echo "disagree (vigil has none)"
	elif [ -z "$2" ]; then echo "disagree (nvidia-smi has none)"
	elif within "$1" "$2" "$3" "$4"; then echo agree
	else echo disagree; fi
}

# field position in $FIELDS
pos() { tr ',' '\n' <<<"$FIELDS" | grep -nx "$1" | cut -d: -f1; }

numeric() { # numeric GPU CSV SMI_FIELD VIGIL_COLUMN ABS PCT LABEL
	local g=$1 csv=$2 f=$3 c=$4 abs=$5 pct=$6 label=$7 v s tol
	v=$(column "$csv" "$c" | median)
	s=$(smi_column "$g" "$(pos "$f")" | median)
	if [ "$pct" = 0 ]; then tol="+-$abs"; else tol="+-max($abs, $pct%)"; fi
	row "$g" "$f$label" "$v" "$s" "$tol" "$(verdict "$v" "$s" "$abs" "$pct")"
}

state() { # state GPU LABEL VIGIL_VALUE SMI_VALUE
	local res=agree
	if [ -z "$3" ] && [ -z "$4" ]; then res="agree (neither has it)"
	elif [ "$3" != "$4" ]; then res=disagree; fi
	row "$1" "$2" "$3" "$4" "exact" "$res"
}

for g in $(seq 0 $((NGPU - 1))); do
	csv=$(ls "$TMP"/log/gpu"$g"-*.csv 2>/dev/null | head -1)
	if [ -z "$csv" ]; then
		row "$g" "(every field)" "" "listed" "" "disagree (vigil wrote no CSV for this GPU)"
		continue
	fi
	# Several days (a run over midnight): one table, headers repeated in it.
	cat "$TMP"/log/gpu"$g"-*.csv >"$TMP/gpu$g.csv"
	csv="$TMP/gpu$g.csv"
	numeric "$g" "$csv" temperature.gpu gpu_temp 2 0 " (C)"
	numeric "$g" "$csv" power.draw power_instant 5 5 " (W)"
	numeric "$g" "$csv" power.limit power_limit 1 0 " (W)"
	numeric "$g" "$csv" enforced.power.limit power_enforced_limit 1 0 " (W)"
	numeric "$g" "$csv" clocks.gr gpu_clock 30 5 " (MHz)"
	numeric "$g" "$csv" clocks.mem mem_clock 30 5 " (MHz)"
	numeric "$g" "$csv" utilization.gpu gpu_util 10 0 " (%)"
	numeric "$g" "$csv" utilization.memory mem_util 10 0 " (%)"
	numeric "$g" "$csv" memory.total vram_total_mb 2 0.5 " (MiB)"
	# memory.used: nvidia-smi's excludes the reserved memory on drivers that report it
	# apart; NVML's v1 "used" (the reference's meaning) includes it: either agrees.
	v=$(column "$csv" vram_used_mb | median)
	s=$(smi_column "$g" "$(pos memory.used)" | median)
	r=""
	[ -n "$(pos memory.reserved)" ] && r=$(smi_column "$g" "$(pos memory.reserved)" | median)
	res=$(verdict "$v" "$s" 64 1)
	if [ "$res" = disagree ] && [ -n "$r" ] && within "$v" "$(awk -v a="$s" -v b="$r" 'BEGIN { print a + b }')" 64 1; then
		res="agree (used + reserved)"
	fi
	row "$g" "memory.used (MiB)" "$v" "$s" "+-max(64, 1%)" "$res"
	if [ -z "$(pos memory.reserved)" ]; then
		row "$g" "memory.reserved (MiB)" "" "" "" "not asked (driver lacks the field)"
	elif [ -z "$(head -1 "$csv" | tr ',' '\n' | grep -x vram_reserved_mb)" ]; then
		row "$g" "memory.reserved (MiB)" "not recorded" "$r" "" "not recorded (no vram_reserved_mb column)"
	else
		numeric "$g" "$csv" memory.reserved vram_reserved_mb 2 0 " (MiB)"
	fi
	state "$g" "pcie.link.gen.current" "$(column "$csv" pcie_gen | mode)" \
		"$(smi_column "$g" "$(pos pcie.link.gen.current)" | mode)"
	state "$g" "pcie.link.width.current" "$(column "$csv" pcie_width | mode)" \
		"$(smi_column "$g" "$(pos pcie.link.width.current)" | mode)"
	v=$(column "$csv" pstate | mode)
	state "$g" "pstate" "${v:+P$v}" "$(smi_column "$g" "$(pos pstate)" | mode)"
	# fan.speed is one value (the first fan's, as nvidia-smi shows it).
	if head -1 "$csv" | grep -q fan0_speed_pct; then
		numeric "$g" "$csv" fan.speed fan0_speed_pct 5 0 " (%, fan 0)"
	else
		s=$(smi_column "$g" "$(pos fan.speed)" | median)
		row "$g" "fan.speed (%)" "no fans" "${s:-N/A}" "" "$([ -z "$s" ] && echo "agree (no fans)" || echo "disagree (vigil sees no fan)")"
	fi
	rf=$(tr ',' '\n' <<<"$FIELDS" | grep -x 'clocks_.*_reasons.active')
	v=$(column "$csv" throttle_bitmask | mode)
	s=$(smi_column "$g" "$(pos "$rf")" | mode)
	[ -n "$v" ] && v=$(printf '0x%x' "$v")
	[ -n "$s" ] && s=$(printf '0x%x' "$s")
	state "$g" "$rf" "$v" "$s"
	# Compute processes: pids of this GPU in both lists, sorted.
	uuid=$(awk -F', *' -v g="$g" '$1 + 0 == g && $1 != "" { print $2 }' "$TMP/uuids.csv")
	s=$(awk -F', *' -v u="$uuid" '$1 == u { print $2 }' "$TMP/apps.csv" | sort -n | paste -sd, -)
	if grep -q '<h2>GPU' "$TMP/dashboard.html"; then
		v=$(awk -v g="$g" '/<h2>GPU / { split($0, a, /[ :<]/); cur = a[3] }
			cur == g && match($0, /^<tr><td>[0-9]+<\/td><td>compute</) {
				s = substr($0, 9); print substr(s, 1, index(s, "<") - 1) }' "$TMP/dashboard.html" |
			sort -n | paste -sd, -)
		[ "$v" = "$s" ] && res=agree || res=disagree
		row "$g" "processes (compute pids)" "${v:-none}" "${s:-none}" "same set" "$res"
		n=$(grep -c '^<tr><td>[0-9]*</td><td>graphics<' "$TMP/dashboard.html")
		row "$g" "processes (graphics)" "$n listed" "no query" "" "not compared (nvidia-smi lists compute apps only)"
	else
		row "$g" "processes (compute pids)" "not read" "${s:-none}" "same set" "disagree (vigil's dashboard did not answer)"
	fi
	nvlink_rows "$g"
	depth_rows "$g"
done
printf '\n%d agree, %d disagree\n' "$AGREE" "$DISAGREE"
[ "$DISAGREE" -eq 0 ]
