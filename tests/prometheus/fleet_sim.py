#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A simulated fleet of vigil machines for the dashboard's fleet row
(tests/integration/fleet_dashboard.sh), as pushed series in OpenMetrics text for
`promtool tsdb create-blocks-from openmetrics`, and the checks of each fleet panel.

fleet_sim.py write OUT.om EXPECT.json END [GPU_SERVERS PIS]
    30 minutes of samples, one a minute, ending at END (unix seconds): GPU servers with 8
    GPUs, Raspberry Pis, and two Pis cloned from one image (one host name, one machine
    ID, two SoC serials; the second went silent). Known machines are unhealthy, degraded
    or silent; EXPECT.json says which, and what each fleet panel must show.
fleet_sim.py check DASHBOARD.json PROMETHEUS_URL EXPECT.json
    Every query of the fleet row at END (instant; the health timeseries as a range):
    "ok"/"not ok" lines, and the cost of each (samples touched and evaluation time from
    Prometheus's query stats, stats=all)."""
import json
import sys
import urllib.parse
import urllib.request

STEP, POINTS = 60, 31
RESET_XID = "79"


def write(out, expect_path, end, ngpu=100, npi=300):
    t0 = end - STEP * (POINTS - 1)
    fams = {}  # name -> list of (labels, [values or None])
    machines = []

    def series(name, labels, vals):
        fams.setdefault(name, []).append((labels, vals))

    def const(v):
        return [v] * POINTS

    def ramp(a, step):
        return [a + step * i for i in range(POINTS)]

    for i in range(ngpu):
        machines.append(("gpu-%03d" % i, "4c4c4544-%04x-3510-8052-b4c04f4a%04x" % (i, i), "gpu", i))
    for i in range(npi):
        machines.append(("pi-%03d" % i, "10000000%08x" % (0xa0000 + i), "pi", i))
    clone_id = "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091"
    machines.append(("raspberrypi", "10000000c10e0001", "pi", 1000))
    machines.append(("raspberrypi", "10000000c10e0002", "pi", 1001))

    crit, warn, silent = set(), set(), set()
    problems = []  # (severity, problem, instance, hardware_id)
    for inst, hw, kind, i in machines:
        mid = clone_id if inst == "raspberrypi" else "%032x" % ((0xa000 if kind == "pi" else 0xb000) + i)
        lab = {"job": "vigil", "instance": inst, "site": "site-%d" % (i % 3), "machine_id": mid,
               "hardware_id": hw}
        key = (inst, hw)
        gone = (kind == "pi" and 15 <= i < 20) or hw == "10000000c10e0002"
        alive = POINTS - 20 if gone else POINTS  # silent machines stopped 20 minutes ago

        def cut(vals):
            return vals[:alive] + [None] * (POINTS - alive)

        def s(name, extra, vals):
            series(name, dict(lab, **extra), cut(vals))

        s("vigil_samples_total", {"source": "host"}, ramp(100, 60))
        s("vigil_build_info", {"version": "0.1.0"}, const(1))
        s("vigil_machine_info", {"hardware_id_source": "rpi_serial" if kind == "pi" else "dmi_product_uuid"},
          const(1))
        s("vigil_load1", {}, const(0.5 + (i % 7) / 10))
        s("vigil_memory_available_bytes", {}, const(2e9))
        s("vigil_temperature_celsius", {"sensor": "cpu"}, const(45 + i % 10))
        s("vigil_shm_used_bytes", {}, const(1e6))
        s("vigil_shm_size_bytes", {}, const(1e9))
        s("vigil_filesystem_readonly", {"fs": "root"}, const(0))
        s("vigil_remote_write_queue_samples", {}, const(i % 50))
        s("vigil_remote_write_oldest_sample_age_seconds", {}, const(1 + i % 13))
        s("vigil_remote_write_last_success_timestamp_seconds", {}, [t0 + STEP * k for k in range(POINTS)])
        s("vigil_remote_write_samples_dropped_total", {"reason": "queue_full"}, const(0))
        s("vigil_missed_deadlines_total", {}, const(0))
        if kind == "gpu":
            for g in range(8):
                up = 0 if (i in (0, 3) and g == 3) else 1
                s("vigil_gpu_up", {"gpu": str(g)}, const(up))
                temp = 95 if (i == 4 and g == 7) else 50 + (i * 8 + g) % 30
                s("vigil_gpu_temperature_celsius", {"gpu": str(g)}, const(temp))
                s("vigil_gpu_power_watts", {"gpu": str(g)}, const(200))
                s("vigil_gpu_power_limit_watts", {"gpu": str(g)}, const(300))
                s("vigil_gpu_fan_speed_ratio", {"gpu": str(g)}, const(0.4))
                hot = i in (2, 3) and g == 1  # thermally throttled 80 % of the time
                s("vigil_gpu_clocks_event_reason_seconds_total", {"gpu": str(g), "reason": "sw_thermal_slowdown"},
                  ramp(0, 48 if hot else 0))
                s("vigil_gpu_clocks_event_reason_seconds_total", {"gpu": str(g), "reason": "sw_power_cap"},
                  ramp(0, 1))
            s("vigil_gpus_answering", {}, const(8))
            s("vigil_gpus_expected", {}, const(8))
            if i == 1:  # Xid 79 ten minutes ago
                s("vigil_gpu_xid_errors_total", {"gpu": "5", "xid": RESET_XID},
                  [0] * (POINTS - 10) + [1] * 10)
            if i in (0, 3):
                crit.add(key)
                problems.append((3, "GPU lost", inst, hw))
            if i == 1:
                crit.add(key)
                problems.append((3, "reset-class Xid (1 h)", inst, hw))
            if i in (2, 3):
                warn.add(key)
                problems.append((1, "GPU thermal throttling", inst, hw))
        else:
            s("vigil_rpi_temperature_celsius", {}, const(82.5 if i == 7 else 50 + i % 20))
            s("vigil_rpi_core_voltage_volts", {}, const(0.85))
            s("vigil_rpi_clock_hertz", {"clock": "arm"}, const(1.5e9))
            for cond in ("under_voltage", "arm_frequency_capped", "throttled", "soft_temperature_limit"):
                for since in ("now", "boot"):
                    on = (cond == "under_voltage" and i < 5) or (cond == "throttled" and since == "now" and 5 <= i < 15)
                    s("vigil_rpi_throttled", {"condition": cond, "since": since}, const(1 if on else 0))
            if i < 5:  # the firmware's sticky bit is set with the live one
                crit.add(key)
                problems.append((3, "Pi under-voltage now", inst, hw))
                problems.append((1, "Pi under-voltage since boot", inst, hw))
            elif i < 15:
                warn.add(key)
                problems.append((1, "Pi throttled now", inst, hw))
        if gone:
            silent.add(key)
            problems.append((2, "silent", inst, hw))

    with open(out, "w") as f:
        for name in sorted(fams):
            for labels, vals in fams[name]:
                ls = ",".join('%s="%s"' % (k, labels[k]) for k in sorted(labels))
                for k, v in enumerate(vals):
                    if v is not None:
                        f.write("%s{%s} %s %d\n" % (name, ls, repr(float(v)), t0 + STEP * k))
        f.write("# EOF\n")

    reporting = {(m[0], m[1]) for m in machines} - silent
    crit_r = crit & reporting
    warn_r = (warn & reporting) - crit
    sites = {}
    for inst, hw, kind, i in machines:
        if (inst, hw) in reporting:
            sites["site-%d" % (i % 3)] = sites.get("site-%d" % (i % 3), 0) + 1
    expect = {
        "end": end, "start": t0, "machines": len(machines),
        "Healthy": len(reporting - crit - warn), "Degraded": len(warn_r),
        "Unhealthy": len(crit_r), "Silent": len(silent),
        "worst": sorted([list(p) for p in problems], key=lambda p: (-p[0], p[1], p[2], p[3])),
        "hottest_gpu": ["gpu-004", "4c4c4544-0004-3510-8052-b4c04f4a0004", "7", 95],
        "hottest_pi": ["pi-007", "10000000000a0007", 82.5],
        "sites": sites,
    }
    json.dump(expect, open(expect_path, "w"), indent=1)
    print("machines %d, series %d" % (len(machines), sum(len(v) for v in fams.values())))


def query(base, expr, t=None, rng=None):
    args = {"query": expr, "stats": "all"}
    if rng:
        args.update({"start": rng[0], "end": rng[1], "step": 60})
        path = "/api/v1/query_range?"
    else:
        args["time"] = t
        path = "/api/v1/query?"
    with urllib.request.urlopen(base + path + urllib.parse.urlencode(args), timeout=60) as r:
        data = json.load(r)["data"]
    st = data.get("stats", {})
    cost = (st.get("samples", {}).get("totalQueryableSamples", -1),
            st.get("timings", {}).get("evalTotalTime", -1.0))
    return data["result"], cost


SUBST = [("${hardware_id}", ".*"), ("$hardware_id", ".*"), ("${site}", ".*"), ("$site", ".*"),
         ("${instance}", ".*"), ("$instance", ".*"), ("$__rate_interval", "1m")]


def fleet_queries(dash):
    for p in dash["panels"]:
        if p.get("type") == "row":
            if p["title"] != "Fleet":
                return
            continue
        for t in p.get("targets", []):
            e = t["expr"]
            for k, v in SUBST:
                e = e.replace(k, v)
            yield p["title"], t.get("legendFormat", ""), e


def check(dash_path, base, expect_path):
    dash = json.load(open(dash_path))
    ex = json.load(open(expect_path))
    end = ex["end"]
    bad = 0
    costs = []

    def report(ok, what):
        nonlocal bad
        bad += not ok
        print(("ok " if ok else "not ok ") + what)

    for title, legend, expr in fleet_queries(dash):
        name = title + (" / " + legend if legend and title == "Machines by health" else "")
        if title == "Machines by health":
            res, cost = query(base, expr, rng=(ex["start"] + 600, end))
            want = ex[legend.capitalize()]
            last = [float(v[1]) for v in res[0]["values"]][-1] if res else None
            report(last == want, "%s: %s at the end (want %s)" % (name, last, want))
        else:
            res, cost = query(base, expr, t=end)
        costs.append((name, cost))
        if title in ("Healthy", "Degraded", "Unhealthy", "Silent"):
            got = float(res[0]["value"][1]) if res else None
            report(got == ex[title], "%s: %s machines (want %s)" % (title, got, ex[title]))
        elif title.startswith("Worst first"):
            rows = sorted([[int(float(r["value"][1])), r["metric"].get("problem"), r["metric"].get("instance"),
                            r["metric"].get("hardware_id")] for r in res],
                          key=lambda p: (-p[0], p[1], p[2], p[3]))
            report(rows == ex["worst"], "%s: %d rows, critical first, as simulated" % (title, len(rows)))
            if rows != ex["worst"]:
                print("    got  %s\n    want %s" % (rows, ex["worst"]))
        elif title.startswith("Hottest GPUs"):
            top = max(res, key=lambda r: float(r["value"][1])) if res else None
            got = [top["metric"].get("instance"), top["metric"].get("hardware_id"), top["metric"].get("gpu"),
                   float(top["value"][1])] if top else None
            report(len(res) == 10 and got == ex["hottest_gpu"], "%s: 10 bars, the hottest %s" % (title, got))
        elif title.startswith("Hottest Raspberry"):
            top = max(res, key=lambda r: float(r["value"][1])) if res else None
            got = [top["metric"].get("instance"), top["metric"].get("hardware_id"), float(top["value"][1])] \
                if top else None
            report(len(res) == 10 and got == ex["hottest_pi"], "%s: 10 bars, the hottest %s" % (title, got))
        elif title.startswith("Oldest unsent"):
            report(len(res) == 10, "%s: 10 bars" % title)
        elif title.startswith("Machines reporting"):
            got = {r["metric"].get("site"): int(float(r["value"][1])) for r in res}
            report(got == ex["sites"], "%s: %s" % (title, got))
    seen = {name.split(" / ")[0] for name, _ in costs}
    for want in ("Healthy", "Degraded", "Unhealthy", "Silent", "Worst first: what is wrong, and where",
                 "Machines reporting, by site", "Hottest GPUs (top 10)", "Hottest Raspberry Pis (top 10)",
                 "Oldest unsent samples (top 10)", "Machines by health"):
        if want not in seen:
            report(False, "the fleet row has a panel %r" % want)
    print("# query cost at %d machines (samples touched, evaluation seconds):" % ex["machines"])
    for name, (samples, secs) in costs:
        print("#   %-40s %9d %8.4f" % (name, samples, secs))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        extra = [int(x) for x in sys.argv[5:7]]
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]), *extra)
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
