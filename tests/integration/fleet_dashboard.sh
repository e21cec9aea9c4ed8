#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Grafana dashboard's fleet row (dist/grafana/vigil.json, written by
# scripts/grafana_fleet.py) against a real Prometheus holding a simulated fleet of 402
# pushed machines (tests/prometheus/fleet_sim.py, backfilled with promtool): the health
# counts, the worst-first table, the top-k panels and the sites are what the fleet was
# made to show, clones of one image count as two machines, every query of the dashboard
# returns series, and each fleet query's cost (Prometheus's query stats) is printed.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"

check "the dashboard is what scripts/grafana_fleet.py writes" python3 "$TOP/scripts/grafana_fleet.py" --check
if ! have_prometheus || ! command -v promtool >/dev/null; then
	echo "# skip: prometheus or promtool missing"
	exit 0
fi
END=$(($(date +%s) / 60 * 60 - 60))
python3 "$TOP/tests/prometheus/fleet_sim.py" write "$TMP/fleet.om" "$TMP/expect.json" "$END" | sed 's/^/# /'
check "promtool backfills the fleet" promtool tsdb create-blocks-from openmetrics "$TMP/fleet.om" "$TMP/data" >/dev/null
rm -f "$TMP/fleet.om"
PORT=$(free_port)
printf 'global:\n  scrape_interval: 1m\n' >"$TMP/prom.yml"
if ! prom_start fleet "$PORT" "$TMP/prom.yml" "$TMP/data"; then
	not_ok "fleet: prometheus starts"
	tail -5 "$TMP/fleet.prom.log"
	exit 0
fi
python3 "$TOP/tests/prometheus/fleet_sim.py" check "$TOP/dist/grafana/vigil.json" "http://127.0.0.1:$PORT" \
	"$TMP/expect.json"
dashboard_ok "fleet: the dashboard" "$PORT" "$((END - 1200))" "$END"
prom_stop "$PROM_PID"
