#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CPU per /metrics scrape of two running servers, measured from outside.

One client (http.client, one kept-alive connection per server, no Accept-Encoding,
so both send plain text) scrapes each server in turn, ROUNDS times. A server's CPU is
the run time of its threads from /proc/PID/task/*/schedstat (nanoseconds; utime+stime
of /proc/PID/stat counts 10 ms ticks, too coarse for vigil's idle CPU, and is printed as
a cross-check over the whole run) before and after; its idle CPU (what
it spends without scrapes: vigil keeps sampling) is measured first over IDLE_S seconds
of wall time, at the same moment for both, and subtracted at the same rate from each
scrape phase.

usage: metrics_scrape.py NAME=PID@PORT:SCRAPES ... [--idle S] [--rounds N]
prints "key value" lines per server: NAME_scrape_us (median of rounds),
NAME_scrape_us_min/max, NAME_idle_pct, NAME_body_bytes, NAME_series.
"""
import http.client
import os
import statistics
import sys
import time

HZ = os.sysconf('SC_CLK_TCK')


def stat_cpu_s(pid):
    """utime+stime of every thread, dead ones included, in clock ticks (10 ms)."""
    with open(f'/proc/{pid}/stat', 'rb') as fh:
        f = fh.read().rsplit(b')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / HZ  # fields 14 and 15


def sched_cpu_s(pid):
    """Run time of the live threads in ns (/proc/PID/task/TID/schedstat, first field)."""
    total = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/schedstat', 'rb') as fh:
                total += int(fh.read().split()[0])
        except OSError:
            pass
    return total / 1e9


def cpu_s(pid):
    return sched_cpu_s(pid) if os.path.exists(f'/proc/{pid}/schedstat') else stat_cpu_s(pid)


class Server:
    def __init__(self, spec):
        self.name, rest = spec.split('=', 1)
        pid, rest = rest.split('@', 1)
        port, n = rest.split(':', 1)
        self.pid, self.port, self.n = int(pid), int(port), int(n)
        self.conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=10)
        self.per = []
        self.idle_rate = 0.0

    def get(self):
        self.conn.request('GET', '/metrics')
        r = self.conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise SystemExit(f'{self.name}: HTTP {r.status}')
        return body

    def phase(self):
        # A fresh connection after the pauses (vigil closes one idle for 10 s), opened
        # and used once before the clock starts.
        self.conn.close()
        self.get()
        c0, w0 = cpu_s(self.pid), time.monotonic()
        for _ in range(self.n):
            self.get()
        c1, w1 = cpu_s(self.pid), time.monotonic()
        self.per.append((c1 - c0 - self.idle_rate * (w1 - w0)) / self.n)


def main():
    idle_s, rounds, specs = 10.0, 3, []
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == '--idle':
            idle_s = float(args.pop(0))
        elif a == '--rounds':
            rounds = int(args.pop(0))
        else:
            specs.append(a)
    servers = [Server(s) for s in specs]
    time.sleep(3)  # vigil publishes whole frames from its second sample (CPU % needs two)
    for s in servers:
        for _ in range(50):
            body = s.get()
        print(f'{s.name}_body_bytes {len(body)}')
        series = sum(1 for ln in body.splitlines() if ln and not ln.startswith(b'#'))
        print(f'{s.name}_series {series}')
    st0 = [stat_cpu_s(s.pid) for s in servers]
    sc0 = [cpu_s(s.pid) for s in servers]
    c0 = [cpu_s(s.pid) for s in servers]
    w0 = time.monotonic()
    time.sleep(idle_s)
    w1 = time.monotonic()
    for s, c in zip(servers, c0):
        s.idle_rate = (cpu_s(s.pid) - c) / (w1 - w0)
        print(f'{s.name}_idle_pct {s.idle_rate * 100:.3f}')
    for _ in range(rounds):
        for s in servers:
            s.phase()
    for s, a, b in zip(servers, st0, sc0):
        print(f'{s.name}_total_stat_ms {(stat_cpu_s(s.pid) - a) * 1e3:.0f}')
        print(f'{s.name}_total_sched_ms {(cpu_s(s.pid) - b) * 1e3:.0f}')
    for s in servers:
        print(f'{s.name}_scrapes {s.n} x {rounds}')
        print(f'{s.name}_scrape_us {statistics.median(s.per) * 1e6:.1f}')
        print(f'{s.name}_scrape_us_min {min(s.per) * 1e6:.1f}')
        print(f'{s.name}_scrape_us_max {max(s.per) * 1e6:.1f}')
        print(f'{s.name}_rounds_us {" ".join(f"{x * 1e6:.1f}" for x in s.per)}')


if __name__ == '__main__':
    main()
