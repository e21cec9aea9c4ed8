#!/usr/bin/env python3
"""Write the fleet overview of dist/grafana/vigil.json: its first row, from the machine
health defined once below, and the per-machine rows' selectors and variables.

    python3 scripts/grafana_fleet.py            rewrite dist/grafana/vigil.json in place
    python3 scripts/grafana_fleet.py --check    exit 1 when the file is not what it writes

The first screen stays readable at a thousand machines: counts of healthy, degraded,
unhealthy and silent machines; the worst first, one row per problem, each with a link to
that machine's charts of today; top-k panels. Nothing draws one line per series there.
Machines are keyed by (instance, hardware_id): clones of one disk image share a host
name and /etc/machine-id, not their hardware (README, "Machine identity"); scraped
series carry no hardware_id, so the key is the instance alone for them.

Health, in the terms of the alert rules (dist/prometheus/vigil-rules.yml):
  unhealthy  a critical condition now (a GPU lost or missing, a reset-class Xid, an
             uncorrected ECC error, a row remap pending or failed, a fatal GPU kernel error
             in the last hour, a Pi under-voltage now, a file system read-only)
  degraded   a warning condition and no critical one
  silent     a host sample in the last day but none now (5 minutes: Prometheus's
             lookback; a clean stop ends the series at once)
  healthy    reporting, and neither
"""
import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DASH = os.path.join(TOP, "dist", "grafana", "vigil.json")
RULES = os.path.join(TOP, "dist", "prometheus", "vigil-rules.yml")

KEY = "instance, hardware_id"
SEL = 'site=~"$site"'
DS = {"type": "prometheus", "uid": "${datasource}"}


def reset_xids():
    """The reset and reboot class Xid codes, as the rules name them."""
    m = re.search(r'vigil_gpu_xid_errors_total\{xid=~"([0-9|]+)"\}', open(RULES).read())
    return m.group(1)


KFATAL = "fallen_off_bus|init_failed|aer_fatal|recovery_action|gsp_timeout"

# (problem, severity 3 = critical / 1 = warning, condition per series)
PROBLEMS = [
    ("GPU lost", 3, "vigil_gpu_up{%s} == 0" % SEL),
    ("GPUs missing", 3, "vigil_gpus_answering{%s} < vigil_gpus_expected{%s}" % (SEL, SEL)),
    ("reset-class Xid (1 h)", 3,
     'increase(vigil_gpu_xid_errors_total{%s,xid=~"%s"}[1h]) > 0' % (SEL, reset_xids())),
    ("uncorrected ECC (1 h)", 3,
     'increase(vigil_gpu_ecc_errors_total{%s,type="uncorrected"}[1h]) > 0' % SEL),
    ("row remap pending or failed", 3,
     "vigil_gpu_remapped_rows_pending{%s} == 1 or vigil_gpu_remapped_rows_failure{%s} == 1"
     % (SEL, SEL)),
    ("GPU kernel fatal (1 h)", 3,
     'increase(vigil_gpu_kernel_errors_total{%s,kind=~"%s"}[1h]) > 0' % (SEL, KFATAL)),
    ("Pi under-voltage now", 3,
     'vigil_rpi_throttled{%s,condition="under_voltage",since="now"} == 1' % SEL),
    ("file system read-only", 3, "vigil_filesystem_readonly{%s} == 1" % SEL),
    ("GPU thermal throttling", 1,
     'rate(vigil_gpu_clocks_event_reason_seconds_total{%s,reason=~"sw_thermal_slowdown|hw_thermal_slowdown"}[10m]) > 0.5'
     % SEL),
    ("Pi throttled now", 1,
     'vigil_rpi_throttled{%s,condition=~"throttled|soft_temperature_limit",since="now"} == 1' % SEL),
    ("Pi under-voltage since boot", 1,
     'vigil_rpi_throttled{%s,condition="under_voltage",since="boot"} == 1' % SEL),
    ("/dev/shm over 90 %", 1, "vigil_shm_used_bytes{%s} / vigil_shm_size_bytes{%s} > 0.9" % (SEL, SEL)),
    ("storage errors (1 h)", 1, "increase(vigil_storage_kernel_errors_total{%s}[1h]) > 0" % SEL),
    ("file system full within a day", 1, "vigil_filesystem_full_in_seconds{%s} < 86400" % SEL),
    ("push dropping samples (1 h)", 1,
     "increase(vigil_remote_write_samples_dropped_total{%s}[1h]) > 0" % SEL),
    ("missing sampling deadlines", 1, "rate(vigil_missed_deadlines_total{%s}[10m]) > 0.1" % SEL),
]

HEARTBEAT = 'vigil_samples_total{%s,source="host"}' % SEL
REPORTING = "max by (%s) (%s)" % (KEY, HEARTBEAT)
# Seen in the last day, at a 5-minute resolution: 288 samples a machine, not a day's.
SEEN = "max by (%s) (last_over_time(%s[1d:5m]))" % (KEY, HEARTBEAT)


def problem(name, sev, cond):
    return 'label_replace(0 * max by (%s) (%s) + %d, "problem", "%s", "", "")' % (KEY, cond, sev, name)


def union(items):
    return "(" + "\n or ".join(items) + ")"


CRIT = union([problem(*p) for p in PROBLEMS if p[1] == 3])
WARN = union([problem(*p) for p in PROBLEMS if p[1] == 1])
SILENT = 'label_replace(0 * (%s unless on (%s) %s) + 2, "problem", "silent", "", "")' % (SEEN, KEY, REPORTING)

Q_UNHEALTHY = "count(max by (%s) (%s) and on (%s) %s) or vector(0)" % (KEY, CRIT, KEY, REPORTING)
Q_DEGRADED = "count(max by (%s) (%s) and on (%s) %s unless on (%s) %s) or vector(0)" % (
    KEY, WARN, KEY, REPORTING, KEY, CRIT)
Q_SILENT = "count(%s) or vector(0)" % SILENT
Q_HEALTHY = "count(%s unless on (%s) %s unless on (%s) %s) or vector(0)" % (
    REPORTING, KEY, CRIT, KEY, WARN)
# The worst first: critical (3), silent (2), warning (1); one row per problem.
Q_WORST = "topk(100, (%s and on (%s) %s) or %s or (%s and on (%s) %s))" % (
    CRIT, KEY, REPORTING, SILENT, WARN, KEY, REPORTING)
Q_HOT_GPU = "topk(10, max by (%s, gpu) (vigil_gpu_temperature_celsius{%s}))" % (KEY, SEL)
Q_HOT_PI = "topk(10, max by (%s) (vigil_rpi_temperature_celsius{%s}))" % (KEY, SEL)
# The age is absent while a queue is empty (nothing waits): such a machine shows 0, so the
# panel lists every pushing machine, the ones falling behind first.
Q_BACKLOG = ("topk(10, max by (%s) (vigil_remote_write_oldest_sample_age_seconds{%s}"
             " or 0 * vigil_remote_write_queue_samples{%s}))" % (KEY, SEL, SEL))
Q_SITES = "count by (site) (%s)" % REPORTING.replace("max by (%s)" % KEY, "max by (site, %s)" % KEY)

MACHINE_LINK = ("/d/vigil-fleet/vigil-fleet?var-site=$site&var-instance=${__data.fields.instance}"
                "&var-hardware_id=${__data.fields.hardware_id}&from=now/d&to=now")


def target(expr, ref="A", legend=None, instant=False, fmt=None):
    t = {"refId": ref, "datasource": DS, "expr": expr}
    if legend is not None:
        t["legendFormat"] = legend
    if instant:
        t["instant"] = True
        t["range"] = False
    if fmt:
        t["format"] = fmt
    return t


def stat(pid, title, expr, color, x, desc):
    return {"id": pid, "type": "stat", "title": title, "description": desc, "datasource": DS,
            "gridPos": {"h": 4, "w": 6, "x": x, "y": 1},
            "fieldConfig": {"defaults": {"unit": "none", "color": {"mode": "fixed", "fixedColor": color}},
                            "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                        "colorMode": "background", "graphMode": "none", "textMode": "value"},
            "targets": [target(expr, instant=True)]}


def bars(pid, title, expr, legend, unit, x, y, desc):
    return {"id": pid, "type": "bargauge", "title": title, "description": desc, "datasource": DS,
            "gridPos": {"h": 9, "w": 8, "x": x, "y": y},
            "fieldConfig": {"defaults": {"unit": unit, "links": [
                {"title": "This machine today", "url": MACHINE_LINK.replace("__data.fields", "__field.labels")}]},
                "overrides": []},
            "options": {"orientation": "horizontal", "displayMode": "gradient",
                        "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}},
            "targets": [target(expr, legend=legend, instant=True)]}


def fleet_panels():
    ps = [{"id": 1, "type": "row", "title": "Fleet", "collapsed": False,
           "gridPos": {"h": 1, "w": 24, "x": 0, "y": 0}, "panels": []},
          stat(2, "Healthy", Q_HEALTHY, "green", 0, "Machines reporting with no warning or critical condition."),
          stat(3, "Degraded", Q_DEGRADED, "orange", 6, "Machines with a warning condition and no critical one."),
          stat(4, "Unhealthy", Q_UNHEALTHY, "red", 12, "Machines with a critical condition now."),
          stat(5, "Silent", Q_SILENT, "purple", 18,
               "Machines that sent a host sample in the last day but none in the last 5 minutes."),
          {"id": 6, "type": "table", "title": "Worst first: what is wrong, and where",
           "description": "One row per problem: critical (3), silent (2), warning (1); the 100 worst. "
                          "Click a machine for its charts of today.",
           "datasource": DS, "gridPos": {"h": 12, "w": 16, "x": 0, "y": 5},
           "fieldConfig": {"defaults": {"unit": "none"}, "overrides": [
               {"matcher": {"id": "byName", "options": "instance"},
                "properties": [{"id": "links", "value": [{"title": "This machine today", "url": MACHINE_LINK}]}]},
               {"matcher": {"id": "byName", "options": "Value"},
                "properties": [{"id": "displayName", "value": "severity"},
                               {"id": "mappings", "value": [{"type": "value", "options": {
                                   "3": {"text": "critical", "color": "red", "index": 0},
                                   "2": {"text": "silent", "color": "purple", "index": 1},
                                   "1": {"text": "warning", "color": "orange", "index": 2}}}]},
                               {"id": "custom.cellOptions", "value": {"type": "color-background"}}]}]},
           "options": {"showHeader": True, "sortBy": [{"displayName": "severity", "desc": True}]},
           "transformations": [{"id": "organize", "options": {
               "excludeByName": {"Time": True},
               "indexByName": {"Value": 0, "problem": 1, "instance": 2, "hardware_id": 3}}}],
           "targets": [target(Q_WORST, instant=True, fmt="table")]},
          {"id": 7, "type": "bargauge", "title": "Machines reporting, by site",
           "description": "Machines that sent a host sample in the last 5 minutes.",
           "datasource": DS, "gridPos": {"h": 12, "w": 8, "x": 16, "y": 5},
           "fieldConfig": {"defaults": {"unit": "none"}, "overrides": []},
           "options": {"orientation": "horizontal", "displayMode": "basic",
                       "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}},
           "targets": [target(Q_SITES, legend="{{site}}", instant=True)]},
          bars(8, "Hottest GPUs (top 10)", Q_HOT_GPU, "{{instance}} {{hardware_id}} GPU {{gpu}}", "celsius", 0, 17,
               "The 10 hottest GPUs of the fleet now."),
          bars(9, "Hottest Raspberry Pis (top 10)", Q_HOT_PI, "{{instance}} {{hardware_id}}", "celsius", 8, 17,
               "The 10 hottest Pi SoCs of the fleet now."),
          bars(10, "Oldest unsent samples (top 10)", Q_BACKLOG, "{{instance}} {{hardware_id}}", "s", 16, 17,
               "Pushing machines whose queue holds the oldest samples: the receiver is not taking them."),
          {"id": 11, "type": "timeseries", "title": "Machines by health",
           "description": "The four counts above over time: one line each, whatever the fleet's size.",
           "datasource": DS, "gridPos": {"h": 8, "w": 24, "x": 0, "y": 26},
           "fieldConfig": {"defaults": {"unit": "none"}, "overrides": []}, "options": {},
           "targets": [target(Q_HEALTHY, "A", "healthy"), target(Q_DEGRADED, "B", "degraded"),
                       target(Q_UNHEALTHY, "C", "unhealthy"), target(Q_SILENT, "D", "silent")]}]
    return ps


ONE = 'instance=~"$instance",hardware_id=~"${hardware_id}|"'


def machine_var(name, label, query):
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "query": {"query": query, "refId": name}, "definition": query,
            "includeAll": name == "hardware_id", "allValue": ".*", "multi": False, "refresh": 2, "sort": 1}


def build(dash):
    rest = []
    seen_host = False
    for p in dash["panels"]:
        seen_host |= p.get("type") == "row" and p.get("title") != "Fleet"
        if seen_host:
            rest.append(p)
    first = min(p["gridPos"]["y"] for p in rest)
    shift = 34 - first
    for p in rest:
        p["gridPos"]["y"] += shift
        if p.get("type") == "row" and not p["title"].endswith("(one machine)"):
            p["title"] += " (one machine)"
        for t in p.get("targets", []):
            t["expr"] = re.sub(r'instance=~"\$instance"(,hardware_id=~"\$\{hardware_id\}\|")?', ONE, t["expr"])
            t["legendFormat"] = t.get("legendFormat", "").replace("{{site}} {{instance}} ", "")
    v = dash["templating"]["list"]
    v[:] = [x for x in v if x["name"] in ("datasource", "site")]
    v.append(machine_var("instance", "Machine (below the fleet row)",
                         'label_values(vigil_build_info{site=~"$site"}, instance)'))
    v.append(machine_var("hardware_id", "Hardware",
                         'label_values(vigil_machine_info{site=~"$site",instance=~"$instance"}, hardware_id)'))
    dash["description"] = ("A fleet of vigil machines: the first row counts healthy, degraded, unhealthy and "
                           "silent machines and lists the worst first, readable at a thousand machines; "
                           "a click on a machine opens the rows below for it, today. Machines are told "
                           "apart by instance and hardware_id (clones of one image share a host name). "
                           "Series come from scrapes of /metrics or from vigil's remote-write push.")
    dash["panels"] = fleet_panels() + rest
    return dash


def main():
    text = open(DASH).read()
    out = json.dumps(build(json.loads(text)), indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        if out != text:
            print("dist/grafana/vigil.json is not what scripts/grafana_fleet.py writes")
            return 1
        return 0
    open(DASH, "w").write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
