#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""nvml_call_cost.py LIBRARY [N]: the cost of each NVML call vigil or the reference
logger makes per GPU sample (and of vigil's slow fields and process lists), on GPU 0, N times each (default 200): CPU time
(CLOCK_PROCESS_CPUTIME_ID) and wall time per call, and the return code. On a real
driver the calls differ by orders of magnitude (some are answered from the driver's
cache, some are a round trip to the GPU's firmware), which the simulator cannot show.
Types and constants from collect/nvml_api.h (NVIDIA's nvml.h)."""
import ctypes, sys, time
from ctypes import byref, c_int, c_uint, c_ulonglong, create_string_buffer

lib = ctypes.CDLL(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
init = getattr(lib, 'nvmlInit_v2', None) or lib.nvmlInit
assert init() == 0, 'nvmlInit failed'
h = ctypes.c_void_p()
assert lib.nvmlDeviceGetHandleByIndex_v2(0, byref(h)) == 0
u, ull, i = c_uint(), c_ulonglong(), c_int()
buf = create_string_buffer(256)
mem2 = create_string_buffer(40)
ctypes.memmove(mem2, (0x02000028).to_bytes(4, 'little'), 4)
fv = create_string_buffer(40 * 8)
def field_values():  # nvmlFieldValue_t is 40 bytes, fieldId at 0 (FACTS.md)
    for k, fid in enumerate((3, 4, 94, 142, 143, 144, 145, 230)):
        ctypes.memmove(ctypes.addressof(fv) + 40 * k, fid.to_bytes(4, 'little'), 4)
    return lib.nvmlDeviceGetFieldValues(h, 8, fv)
pbuf = create_string_buffer(24 * 64)
def procs(name):  # nvmlProcessInfo_t v2 is 24 bytes (FACTS.md)
    count = c_uint(64)
    return getattr(lib, name)(h, byref(count), pbuf)
calls = [  # (name, who makes it per sample, the call)
    ('nvmlDeviceGetTemperature', 'both', lambda: lib.nvmlDeviceGetTemperature(h, 0, byref(u))),
    ('nvmlDeviceGetTemperatureThreshold GPU_MAX', 'reference', lambda: lib.nvmlDeviceGetTemperatureThreshold(h, 3, byref(u))),
    ('nvmlDeviceGetPowerUsage', 'both', lambda: lib.nvmlDeviceGetPowerUsage(h, byref(u))),
    ('nvmlDeviceGetPowerManagementLimit', 'both', lambda: lib.nvmlDeviceGetPowerManagementLimit(h, byref(u))),
    ('nvmlDeviceGetPerformanceState', 'both', lambda: lib.nvmlDeviceGetPerformanceState(h, byref(i))),
    ('nvmlDeviceGetClockInfo GRAPHICS', 'both', lambda: lib.nvmlDeviceGetClockInfo(h, 0, byref(u))),
    ('nvmlDeviceGetClockInfo MEM', 'both', lambda: lib.nvmlDeviceGetClockInfo(h, 2, byref(u))),
    ('nvmlDeviceGetClockInfo SM', 'vigil', lambda: lib.nvmlDeviceGetClockInfo(h, 1, byref(u))),
    ('nvmlDeviceGetClockInfo VIDEO', 'vigil', lambda: lib.nvmlDeviceGetClockInfo(h, 3, byref(u))),
    ('nvmlDeviceGetUtilizationRates', 'both', lambda: lib.nvmlDeviceGetUtilizationRates(h, buf)),
    ('nvmlDeviceGetMemoryInfo (v1)', 'reference', lambda: lib.nvmlDeviceGetMemoryInfo(h, buf)),
    ('nvmlDeviceGetMemoryInfo_v2', 'vigil', lambda: lib.nvmlDeviceGetMemoryInfo_v2(h, mem2)),
    ('nvmlDeviceGetCurrPcieLinkGeneration', 'both', lambda: lib.nvmlDeviceGetCurrPcieLinkGeneration(h, byref(u))),
    ('nvmlDeviceGetCurrPcieLinkWidth', 'both', lambda: lib.nvmlDeviceGetCurrPcieLinkWidth(h, byref(u))),
    ('nvmlDeviceGetCurrentClocksEventReasons', 'both', lambda: lib.nvmlDeviceGetCurrentClocksEventReasons(h, byref(ull))),
    ('nvmlDeviceGetFanSpeed_v2 0', 'both', lambda: lib.nvmlDeviceGetFanSpeed_v2(h, 0, byref(u))),
    ('nvmlDeviceGetThermalSettings 0', 'both', lambda: lib.nvmlDeviceGetThermalSettings(h, 0, buf)),
    ('nvmlDeviceGetTotalEnergyConsumption', 'slow', lambda: lib.nvmlDeviceGetTotalEnergyConsumption(h, byref(ull))),
    ('nvmlDeviceGetEnforcedPowerLimit', 'slow', lambda: lib.nvmlDeviceGetEnforcedPowerLimit(h, byref(u))),
    ('nvmlDeviceGetFieldValues (8 slow ids)', 'slow', lambda: field_values()),
    ('nvmlDeviceGetComputeRunningProcesses_v3', 'procs', lambda: procs('nvmlDeviceGetComputeRunningProcesses_v3')),
    ('nvmlDeviceGetGraphicsRunningProcesses_v3', 'procs', lambda: procs('nvmlDeviceGetGraphicsRunningProcesses_v3')),
]
rows = []
for name, who, fn in calls:
    ctypes.memmove(mem2, (0x02000028).to_bytes(4, 'little'), 4)
    rc = fn()
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        fn()
    c1, w1 = time.process_time(), time.perf_counter()
    rows.append(((c1 - c0) / n * 1e6, (w1 - w0) / n * 1e6, name, who, rc))
print(f"{'call':<44} {'made by':<10} {'rc':>3} {'CPU us':>9} {'wall us':>9}")
for cpu, wall, name, who, rc in rows:
    print(f"{name:<44} {who:<10} {rc:>3} {cpu:>9.1f} {wall:>9.1f}")
for who in ('vigil', 'reference'):
    sel = [r for r in rows if r[3] in (who, 'both') and r[4] == 0]  # slow, procs: not per sample
    print(f"sum per sample, {who}'s calls that answer: CPU {sum(r[0] for r in sel):.0f} us, "
          f"wall {sum(r[1] for r in sel):.0f} us ({len(sel)} calls)")
