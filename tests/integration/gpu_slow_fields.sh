#!/usr/bin/env bash
# The slow GPU fields (--gpu-slow-interval): read at the first sample and then on their
# own cadence, not every sample; every row and /metrics carry the last values read; a
# field whose read fails is missing, not 0; the option is validated (command line and
# configuration file). Scenario gpu-slow-fields on the simulated NVML.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
if [ ! -f "$NVML_SIM" ]; then
	not_ok "gpu_slow_fields: the simulated NVML is not built ($NVML_SIM)"
	exit 0
fi

# -- the option
for bad in 0 0.01 7200 abc -1; do
	"$VIGIL" --gpu none --no-log --count 1 --gpu-slow-interval "$bad" >/dev/null 2>"$TMP/opt.err"
	check_eq "option: --gpu-slow-interval $bad refused (exit 2)" 2 $?
	check "option: ... and the message names it" grep -q "gpu-slow-interval" "$TMP/opt.err"
done
printf '[vigil]\ngpu-slow-interval = 0.05\n' >"$TMP/bad.conf"
"$VIGIL" --config "$TMP/bad.conf" --gpu none --no-log --count 1 >/dev/null 2>"$TMP/conf.err"
check_eq "option: a bad gpu-slow-interval in the configuration file is refused" 2 $?
check "option: ... and the message names it" grep -q "gpu-slow-interval" "$TMP/conf.err"
printf '[vigil]\ngpu-slow-interval = 2\n' >"$TMP/good.conf"
"$VIGIL" --config "$TMP/good.conf" --gpu none --no-log --count 1 --quiet --root "$FIXTURES/x86-server" \
	>/dev/null 2>"$TMP/good.err"
check_eq "option: gpu-slow-interval = 2 in the configuration file is taken" 0 $?

# -- the cadence: 100 ms samples, slow fields every second, until /metrics shows the
# change of step 5 and at least 25 rows were written.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VIGIL_NVML_SIM_LOG="$TMP/calls" VIGIL_NVML_SCENARIO="$SCEN/gpu-slow-fields" "$VIGIL" \
	--nvml "$NVML_SIM" --root / --gpu-interval 0.1 --gpu-slow-interval 1 --interval 1 \
	--log-dir "$TMP/log" --quiet --listen "127.0.0.1:$port" 2>"$TMP/err" &
pid=$!
m=""
csv=""
for _ in $(seq 300); do
	sleep 0.2
	csv=$(ls "$TMP"/log/gpu0-*.csv 2>/dev/null | head -1)
	[ -n "$csv" ] || continue
	m=$(curl -s "http://127.0.0.1:$port/metrics")
	[ "$(awk '$1 ~ /^vigil_gpu_pcie_replay_errors_total[{]/ { print $2 }' <<<"$m")" = 3 ] &&
		[ "$(($(wc -l <"$csv") - 1))" -ge 25 ] && break
done
kill -TERM "$pid"
wait "$pid"
check_eq "cadence: vigil exits 0" 0 $?
check "cadence: the event listener stopped when interrupted" \
	bash -c "! grep -q 'did not end when interrupted' '$TMP/err'"

python3 - "$csv" "$TMP/calls" <<'PY' >"$TMP/verdict"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
calls = [l.strip() for l in open(sys.argv[2])]
def n(name):
    return sum(1 for c in calls if c == name + " 0")
samples = n("nvmlDeviceGetTemperature")
print("rows", len(rows))
print("samples", samples)
for fn in ("nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetEnforcedPowerLimit",
           "nvmlDeviceGetRemappedRows", "nvmlDeviceGetTotalEccErrors",
           "nvmlDeviceGetTemperatureThreshold"):
    print("calls", fn, n(fn))
slow = ("power_enforced_limit", "pcie_replay", "ecc_corrected", "remapped_correctable",
        "remapped_uncorrectable", "remap_pending", "remap_failure", "gpu_tlimit")
print("empty_slow_cells", sum(1 for r in rows for c in slow if r[c] == ""))
print("ecc_uncorrected_values", sorted({r["ecc_uncorrected"] for r in rows}))
for c in ("pcie_replay", "ecc_corrected", "remapped_correctable", "power_enforced_limit",
          "gpu_tlimit"):
    print("first_last", c, rows[0][c], rows[-1][c])
    # one change only, old -> new: never a value that was not read
    seen = [rows[0][c]]
    for r in rows:
        if r[c] != seen[-1]:
            seen.append(r[c])
    print("sequence", c, "->".join(seen))
PY
val() { awk -v k="$1" -v f="${2:-}" '$1 == k && (f == "" || $2 == f) { print $NF }' "$TMP/verdict"; }
rows=$(val rows)
samples=$(val samples)
check "cadence: at least 25 rows (got $rows)" test "${rows:-0}" -ge 25
# Read every sample, each would be called once per sample: at most one call per 4 rows.
for fn in nvmlDeviceGetPcieReplayCounter nvmlDeviceGetEnforcedPowerLimit nvmlDeviceGetRemappedRows; do
	c=$(val calls "$fn")
	check "cadence: $fn not read every sample ($c calls, $samples samples)" \
		test "${c:-0}" -ge 2 -a "$((${c:-0} * 4))" -le "${samples:-0}"
done
c=$(val calls nvmlDeviceGetTotalEccErrors)
check "cadence: nvmlDeviceGetTotalEccErrors, 2 per slow read ($c calls, $samples samples)" \
	test "${c:-0}" -ge 4 -a "$((${c:-0} * 2))" -le "${samples:-0}"
check_eq "rows: every slow cell filled in every row" 0 "$(val empty_slow_cells)"
check_eq "rows: the failing uncorrected ECC total is missing in every row, never 0" "['']" \
	"$(val ecc_uncorrected_values)"
check_eq "rows: pcie_replay 0, then 3 after a slow read" "0->3" "$(val sequence pcie_replay)"
check_eq "rows: ecc_corrected 0, then 2" "0->2" "$(val sequence ecc_corrected)"
check_eq "rows: remapped_correctable 0, then 1" "0->1" "$(val sequence remapped_correctable)"
check_eq "rows: power_enforced_limit 600, then 450" "600->450" \
	"$(val sequence power_enforced_limit)"
check_eq "rows: gpu_tlimit from the re-read GPU max threshold (90 -> 80 C at 45 C)" "45->35" \
	"$(val sequence gpu_tlimit)"
check_eq "metrics: the replay counter read last" 3 \
	"$(awk '$1 ~ /^vigil_gpu_pcie_replay_errors_total[{]/ { print $2 }' <<<"$m")"
check_eq "metrics: the enforced limit read last" 450 \
	"$(awk '$1 ~ /^vigil_gpu_enforced_power_limit_watts[{]/ { print $2 }' <<<"$m")"
