#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CPU per sample of the reference Pi monitor's sample(), measured in-process.

The reference (seeds/004_*.txt, monitor_player.py) is loaded unchanged with importlib
from a temporary copy; the copy drops only the lines before its docstring (the saved
page's title line). Its children (the vcgencmd runs) count: CPU is
user + system + children_user + children_system from os.times(), over N calls after
the same priming its main() does. vcgencmd is whatever is first on PATH.

usage: ref_pi_sample.py SEED_FILE [N]
prints "key value" lines: ref_sample_ms, ref_spawns_per_sample, ref_spawn_ms, ...
"""
import importlib.util
import os
import resource
import sys
import tempfile
import time


def load(seed):
    with open(seed, encoding='utf-8') as fh:
        lines = fh.read().split('\n')
    start = next(i for i, line in enumerate(lines) if line.startswith('"""'))
    tmp = tempfile.mkdtemp(prefix='vigil-bench-')
    path = os.path.join(tmp, 'monitor_player.py')
    with open(path, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(lines[start:]))
    spec = importlib.util.spec_from_file_location('monitor_player', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    os.unlink(path)
    os.rmdir(tmp)
    return mod


def cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def prime(mod):
    """What the reference's main() does before its loop."""
    mod.psutil.cpu_percent(interval=None)
    mod.psutil.cpu_percent(interval=None, percpu=True)
    for pid in mod.find_procs('run_linux.py'):
        try:
            mod._proc_cache[pid] = mod.psutil.Process(pid)
            mod._proc_cache[pid].cpu_percent(interval=None)
        except Exception:
            pass


def main():
    seed = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    mod = load(seed)
    prime(mod)
    for _ in range(3):
        mod.sample()

    c0, w0 = cpu(), time.monotonic()
    for _ in range(n):
        row = mod.sample()
    c1, w1 = cpu(), time.monotonic()

    # How many programs one sample runs, and what one run costs on its own.
    runs = []
    real_run = mod._run
    mod._run = lambda args, timeout=5: runs.append(args) or real_run(args, timeout)
    mod.sample()
    mod._run = real_run
    m = max(20, n // 4)
    s0 = cpu()
    for _ in range(m):
        real_run(['vcgencmd', 'get_throttled'])
    s1 = cpu()

    print(f'ref_samples {n}')
    print(f'ref_sample_ms {(c1 - c0) / n * 1e3:.3f}')
    print(f'ref_sample_wall_ms {(w1 - w0) / n * 1e3:.3f}')
    print(f'ref_spawns_per_sample {len(runs)}')
    print(f'ref_spawn_ms {(s1 - s0) / m * 1e3:.3f}')
    print(f'ref_spawned {" | ".join(" ".join(a[1:]) for a in runs)}')
    print(f'ref_values temp_c={row["temp_c"]} volt={row["volt_core_v"]} arm_mhz={row["arm_mhz"]} '
          f'throttled={row["throttled_raw"]} player_pss_mb={row["player_pss_mb"]} '
          f'chromium_procs={row["chromium_procs"]}')
    print(f'ref_maxrss_kb {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}')


if __name__ == '__main__':
    main()
