#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real Prometheus (Debian's) on a free loopback port scrapes vigil: a Raspberry Pi
# fixture (under-voltage) with a simulated GPU that is lost after an Xid 79. The test
# finds host, Pi and GPU series and up == 1 through the HTTP API; the same Prometheus
# loads dist/prometheus/vigil-rules.yml (each "for:" cut to 0s, so the test need not
# wait out the hold times) and the matching alerts fire; and every panel query of the
# Grafana dashboard dist/grafana/vigil.json returns series. vigil also pushes to the
# same Prometheus (remote-write receiver), so the push panels have data.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

if ! have_prometheus || [ ! -x "$VIGIL" ]; then
	echo "# skip: prometheus or $VIGIL missing"
	exit 0
fi

VPORT=$(free_port)
PPORT=$(free_port)
# The GPU of xid-79-lost-recovered, without the recovery: lost from step 30 on.
sed '/^at 0 step 60/d' "$TOP/tests/nvml-sim/scenarios/xid-79-lost-recovered" >"$TMP/lost.scen"
sed -E 's/^( *)for: .*/\1for: 0s/' "$TOP/dist/prometheus/vigil-rules.yml" >"$TMP/rules.yml"
cat >"$TMP/prom.yml" <<EOT
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $TMP/rules.yml
scrape_configs:
  - job_name: vigil
    static_configs:
      - targets: ['127.0.0.1:$VPORT']
EOT
printf 'push_interval: 1s\nexternal_labels:\n  site: pulltest\n' >"$TMP/rw.yml"

START=$(date +%s)
# Prometheus first: the GPU is healthy for the first 6 s of vigil (30 samples of 0.2 s).
if ! prom_start pull "$PPORT" "$TMP/prom.yml" "$TMP/data" --web.enable-remote-write-receiver; then
	not_ok "pull: prometheus starts on 127.0.0.1:$PPORT"
	tail -5 "$TMP/pull.prom.log"
	exit 0
fi
VIGIL_NVML_SCENARIO="$TMP/lost.scen" "$VIGIL" --root "$FIXTURES/pi4-undervolt" \
	--nvml "$NVML_SIM" --gpu-interval 0.2 --interval 0.5 --quiet --log-dir "$TMP/log" \
	--listen "127.0.0.1:$VPORT" --remote-write "http://127.0.0.1:$PPORT/api/v1/write" \
	--remote-write-config "$TMP/rw.yml" --duration 300 2>"$TMP/vigil.err" &
VPID=$!
ok "pull: prometheus starts on 127.0.0.1:$PPORT"
SEL="job=\"vigil\",instance=\"127.0.0.1:$VPORT\""
check "pull: up == 1" pq_wait 30 "$PPORT" count "up{$SEL} == 1"
check "pull: host series" pq_wait 10 "$PPORT" count "vigil_memory_available_bytes{$SEL}"
check "pull: Pi series" pq_wait 10 "$PPORT" count "vigil_rpi_throttled{$SEL,condition=\"under_voltage\"}"
check "pull: GPU series" pq_wait 10 "$PPORT" count "vigil_gpu_up{$SEL}"
check "pull: GPU temperature while the GPU answered" \
	pq_wait 10 "$PPORT" count "last_over_time(vigil_gpu_temperature_celsius{$SEL}[5m])"
check "push: the same series pushed, with the config's labels" \
	pq_wait 20 "$PPORT" count 'vigil_rpi_throttled{site="pulltest",job="vigil",condition="under_voltage"}'

# ---- alerts ----
want="VigilGpuLost VigilGpuXidResetClass VigilRpiUnderVoltageNow VigilRpiUnderVoltageSinceBoot"
firing() {
	local names
	names=$(pq "$PPORT" alerts x)
	for a in $want; do grep -qx "$a" <<<"$names" || return 1; done
}
for _ in $(seq 100); do firing && break; sleep 0.2; done
for a in $want; do
	check "alerts: $a fires" grep -qx "$a" <<<"$(pq "$PPORT" alerts x)"
done

# ---- the Grafana dashboard ----
sleep 2
dashboard_ok dashboard "$PPORT" "$START" "$(date +%s)"
# The check itself fails on a panel without series and on one that errs.
printf '{"panels":[{"title":"x","targets":[{"expr":"vigil_no_such_series"}]},{"title":"y","targets":[{"expr":"rate(x"}]}]}' >"$TMP/bad.json"
python3 "$TOP/tests/prometheus/dashboard_check.py" "$TMP/bad.json" "http://127.0.0.1:$PPORT" \
	"$START" "$(date +%s)" >"$TMP/bad.out" 2>&1
check "dashboard: the check fails a panel without series and a bad query" \
	test "$?-$(grep -c '^not ok' "$TMP/bad.out")" = "1-2"

kill -TERM "$VPID"
wait "$VPID"
check "pull: vigil exits cleanly" test $? -eq 0
prom_stop "$PROM_PID"
