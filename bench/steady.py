#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""steady.py PID SKIP WINDOW: a process's steady-state cost, start-up left out.

Waits SKIP seconds, reads every thread's /proc/PID/task/TID/schedstat (CPU time in ns,
the kernel's own accounting, not the 10 ms ticks of getrusage) and status (voluntary
and involuntary context switches), waits WINDOW seconds, reads them again, and prints
"key value" lines: cpu_ns, wakes (voluntary switches: sleeps the threads came back
from), preempted, threads. A thread that ended in the window is counted up to its
last reading; one that started in it from zero."""
import os, sys, time

def snap(pid):
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            cpu = int(open(f'/proc/{pid}/task/{tid}/schedstat').read().split()[0])
            vol = inv = 0
            for line in open(f'/proc/{pid}/task/{tid}/status'):
                if line.startswith('voluntary_ctxt_switches:'):
                    vol = int(line.split()[1])
                elif line.startswith('nonvoluntary_ctxt_switches:'):
                    inv = int(line.split()[1])
            out[tid] = (cpu, vol, inv)
        except (OSError, ValueError, IndexError):
            pass
    return out

pid, skip, window = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
time.sleep(skip)
a = snap(pid)
time.sleep(window)
b = snap(pid)
cpu = vol = inv = 0
for tid in set(a) | set(b):
    x, y = a.get(tid, (0, 0, 0)), b.get(tid, a.get(tid))
    cpu += y[0] - x[0]
    vol += y[1] - x[1]
    inv += y[2] - x[2]
print(f'cpu_ns {cpu}\nwakes {vol}\npreempted {inv}\nthreads {len(b)}')
