#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A re-creation of the reference GPU logger's per-sample work, for benchmarks.

The reference (seeds/000_*, gpu-telemetry-deep.py v2.5.0) cannot be run here as it
is: it imports pynvml (nvidia-ml-py), which is not installable on these machines, and
its Python indentation was lost when it was saved from a web page. So this file
re-creates, in order, what one iteration of its main loop does on a healthy GPU:

- run(): the disk-guard time check, _rotate_csv()'s date check, _sample(),
  _maybe_log_summary()'s time check;
- _sample(): the timestamp, _read_thermal, _read_power, _read_clocks_and_util, PCIe
  generation and width, clock-event reasons with decode_throttle and the transition
  check, the TDP-change check, _read_fans with the spike check, _check_anomalies,
  _read_thermal_sensors, peaks, the row, csv.writer.writerow to a line-buffered file;
- every NVML call through nvml_safe() and a pynvml-style ctypes binding: a cached
  function-pointer lookup, ctypes out-parameters passed byref, a return-code check
  that raises NVMLError, the same C entry points pynvml calls (nvmlDeviceGetMemoryInfo
  v1 when no version is given, nvmlDeviceGetFanSpeed_v2, ...).

What it leaves out happens only on anomalies (spike and crash snapshots, events.log
lines) or every 5 minutes (the summary), or runs in its event thread.

usage: ref_gpu_sample.py LIBRARY SAMPLES [GPU_INDEX]
(VIGIL_NVML_SCENARIO names the simulator's scenario.) Prints "key value" lines.
"""
import csv
import os
import shutil
import sys
import tempfile
import threading
import time
from ctypes import (CDLL, POINTER, Structure, byref, c_int, c_uint, c_ulonglong,
                    create_string_buffer)
from datetime import datetime

# ---- a pynvml-style binding (the parts the logger uses) ---------------------------
NVML_SUCCESS = 0
NVML_TEMPERATURE_GPU = 0
NVML_CLOCK_GRAPHICS = 0
NVML_CLOCK_MEM = 2
_lib = None
_fn_cache = {}
_lib_lock = threading.RLock()


class NVMLError(Exception):
    def __init__(self, value):
        super().__init__(value)
        self.value = value


class struct_c_nvmlDevice_t(Structure):
    pass


c_nvmlDevice_t = POINTER(struct_c_nvmlDevice_t)


class c_nvmlUtilization_t(Structure):
    _fields_ = [('gpu', c_uint), ('memory', c_uint)]


class c_nvmlMemory_t(Structure):
    _fields_ = [('total', c_ulonglong), ('free', c_ulonglong), ('used', c_ulonglong)]


class c_nvmlGpuThermalSensor_t(Structure):
    _fields_ = [('controller', c_int), ('defaultMinTemp', c_int), ('defaultMaxTemp', c_int),
                ('currentTemp', c_int), ('target', c_int)]


class c_nvmlGpuThermalSettings_t(Structure):
    _fields_ = [('count', c_uint), ('sensor', c_nvmlGpuThermalSensor_t * 3)]


def _fn(name):
    if name in _fn_cache:
        return _fn_cache[name]
    with _lib_lock:
        _fn_cache[name] = getattr(_lib, name)
        return _fn_cache[name]


def _check(ret):
    if ret != NVML_SUCCESS:
        raise NVMLError(ret)
    return ret


def nvmlInit(path):
    global _lib
    _lib = CDLL(path)
    _check(_fn('nvmlInit_v2')())


def nvmlDeviceGetHandleByIndex(index):
    h = c_nvmlDevice_t()
    _check(_fn('nvmlDeviceGetHandleByIndex_v2')(c_uint(index), byref(h)))
    return h


def _uint_call(name, handle, *args):
    v = c_uint()
    _check(_fn(name)(handle, *args, byref(v)))
    return v.value


def _str_call(name, handle, size):
    buf = create_string_buffer(size)
    _check(_fn(name)(handle, buf, c_uint(size)))
    return buf.value.decode()


def nvmlDeviceGetNumFans(h):
    return _uint_call('nvmlDeviceGetNumFans', h)


def nvmlDeviceGetName(h):
    return _str_call('nvmlDeviceGetName', h, 96)


def nvmlDeviceGetTemperature(h, sensor):
    return _uint_call('nvmlDeviceGetTemperature', h, c_uint(sensor))


def nvmlDeviceGetTemperatureThreshold(h, kind):
    return _uint_call('nvmlDeviceGetTemperatureThreshold', h, c_uint(kind))


def nvmlDeviceGetPowerUsage(h):
    return _uint_call('nvmlDeviceGetPowerUsage', h)


def nvmlDeviceGetPowerManagementLimit(h):
    return _uint_call('nvmlDeviceGetPowerManagementLimit', h)


def nvmlDeviceGetPerformanceState(h):
    return _uint_call('nvmlDeviceGetPerformanceState', h)


def nvmlDeviceGetClockInfo(h, kind):
    return _uint_call('nvmlDeviceGetClockInfo', h, c_uint(kind))


def nvmlDeviceGetUtilizationRates(h):
    u = c_nvmlUtilization_t()
    _check(_fn('nvmlDeviceGetUtilizationRates')(h, byref(u)))
    return u


def nvmlDeviceGetMemoryInfo(h, version=None):
    m = c_nvmlMemory_t()
    _check(_fn('nvmlDeviceGetMemoryInfo')(h, byref(m)))
    return m


def nvmlDeviceGetCurrPcieLinkGeneration(h):
    return _uint_call('nvmlDeviceGetCurrPcieLinkGeneration', h)


def nvmlDeviceGetCurrPcieLinkWidth(h):
    return _uint_call('nvmlDeviceGetCurrPcieLinkWidth', h)


def nvmlDeviceGetCurrentClocksEventReasons(h):
    v = c_ulonglong()
    _check(_fn('nvmlDeviceGetCurrentClocksEventReasons')(h, byref(v)))
    return v.value


def nvmlDeviceGetFanSpeed_v2(h, fan):
    return _uint_call('nvmlDeviceGetFanSpeed_v2', h, c_uint(fan))


def nvmlDeviceGetTargetFanSpeed(h, fan):
    return _uint_call('nvmlDeviceGetTargetFanSpeed', h, c_uint(fan))


def nvmlDeviceGetThermalSettings(h, index):
    s = c_nvmlGpuThermalSettings_t()
    _check(_fn('nvmlDeviceGetThermalSettings')(h, c_uint(index), byref(s)))
    return s.sensor[:s.count]


# ---- the logger's per-sample work ---------------------------------------------------
THROTTLE_REASONS = {
    0x001: "GpuIdle", 0x002: "AppClocks", 0x004: "SwPowerCap", 0x008: "HwSlowdown",
    0x010: "SyncBoost", 0x020: "SwThermalSlowdown", 0x040: "HwThermalSlowdown",
    0x080: "HwPowerBrakeSlowdown", 0x100: "DisplayClocks", 0x200: "UserDefinedClocks",
}
FAN_TEMP_INVERSION_TEMP, FAN_TEMP_INVERSION_FAN = 85, 55
SPURIOUS_THROTTLE_POWER_PCT, ANOMALY_LOG_COOLDOWN_SEC = 0.25, 60.0
TDP_CHANGE_EPSILON_W, SUMMARY_INTERVAL_SEC, DISK_CHECK_INTERVAL_SEC = 5, 300.0, 30.0


def log(msg):
    print(f"[gpu-telemetry] {msg}", file=sys.stderr, flush=True)


def decode_throttle(bitmask):
    if bitmask == 0:
        return "None"
    reasons = [name for bit, name in THROTTLE_REASONS.items() if bitmask & bit]
    return "|".join(reasons) if reasons else f"Unknown(0x{bitmask:x})"


def nvml_safe(func, *args, default=0):
    try:
        return func(*args)
    except NVMLError:
        return default


class Monitor:
    def __init__(self, index, log_dir):
        self.log_dir = log_dir
        self.fan_spike_threshold = 15
        self._handle = nvmlDeviceGetHandleByIndex(index)
        self._num_fans = int(nvml_safe(nvmlDeviceGetNumFans, self._handle, default=0))
        self._prev_fan_speeds = [0] * self._num_fans
        self._gpu_name = nvml_safe(nvmlDeviceGetName, self._handle, default="Unknown")
        for idx in (0, 1, 3):
            nvml_safe(nvmlDeviceGetTemperatureThreshold, self._handle, idx, default="N/A")
        self._start_time = time.monotonic()
        self._total_samples = self._period_samples = 0
        self._total_power_breaches = self._period_power_breaches = 0
        self._total_fan_inversions = self._period_fan_inversions = 0
        self._total_spurious_throttles = self._period_spurious_throttles = 0
        self._total_tdp_changes = self._period_tdp_changes = 0
        self._total_spikes = 0
        self._peak_temp, self._peak_power = 0, 0.0
        self._last_fan_inversion_log = self._last_spurious_throttle_log = 0.0
        self._last_disk_check = time.monotonic()
        self._last_summary_time = time.monotonic()  # the first summary is not timed
        self._prev_throttle, self._prev_power_limit_w = 0, None
        self._reopen_logs, self._csv_date = False, ""
        self._rotate_csv()

    def _rotate_csv(self):
        today = datetime.now().strftime("%Y-%m-%d")
        if today == self._csv_date and not self._reopen_logs:
            return
        self._csv_date = today
        fields = ["timestamp", "gpu_temp", "gpu_tlimit", "power_instant", "power_limit",
                  "pstate", "gpu_clock", "mem_clock", "gpu_util", "mem_util", "vram_used_mb",
                  "pcie_gen", "pcie_width", "throttle_bitmask", "throttle_reasons"]
        for i in range(self._num_fans):
            fields.extend([f"fan{i}_speed_pct", f"fan{i}_target_pct"])
        fields.extend(["sensor0_temp", "sensor0_target", "sensor0_controller", "flags"])
        self._csv_fh = open(os.path.join(self.log_dir, f"gpu-deep-{today}.csv"), "a",
                            newline="", buffering=1)
        self._csv_writer = csv.writer(self._csv_fh)
        self._csv_writer.writerow(fields)
        self._csv_columns = len(fields)

    def _read_thermal(self):
        gpu_temp = int(nvml_safe(nvmlDeviceGetTemperature, self._handle, NVML_TEMPERATURE_GPU))
        gpu_max = int(nvml_safe(nvmlDeviceGetTemperatureThreshold, self._handle, 3, default=0))
        return gpu_temp, (gpu_max - gpu_temp) if gpu_max else ""

    def _read_power(self):
        power_mw = int(nvml_safe(nvmlDeviceGetPowerUsage, self._handle))
        power_limit_mw = int(nvml_safe(nvmlDeviceGetPowerManagementLimit, self._handle, default=0))
        return power_mw, power_mw / 1000.0, power_limit_mw / 1000.0

    def _read_clocks_and_util(self):
        h = self._handle
        pstate = int(nvml_safe(nvmlDeviceGetPerformanceState, h))
        gpu_clock = int(nvml_safe(nvmlDeviceGetClockInfo, h, NVML_CLOCK_GRAPHICS))
        mem_clock = int(nvml_safe(nvmlDeviceGetClockInfo, h, NVML_CLOCK_MEM))
        util = nvml_safe(nvmlDeviceGetUtilizationRates, h, default=None)
        gpu_util = util.gpu if util else 0
        mem_util = util.memory if util else 0
        mem_info = nvml_safe(nvmlDeviceGetMemoryInfo, h, default=None)
        vram_used_mb = int(mem_info.used) // (1024 * 1024) if mem_info else 0
        return pstate, gpu_clock, mem_clock, gpu_util, mem_util, vram_used_mb

    def _read_fans(self):
        fan_data, spike = [], False
        for i in range(self._num_fans):
            speed = int(nvml_safe(nvmlDeviceGetFanSpeed_v2, self._handle, i))
            target = int(nvml_safe(nvmlDeviceGetTargetFanSpeed, self._handle, i))
            fan_data.extend([speed, target])
            if self._total_samples > 2:
                if abs(speed - self._prev_fan_speeds[i]) >= self.fan_spike_threshold:
                    spike = True
            self._prev_fan_speeds[i] = speed
        return fan_data, spike

    def _read_thermal_sensors(self):
        sensors = nvml_safe(nvmlDeviceGetThermalSettings, self._handle, 0, default=[])
        s0 = sensors[0] if sensors else None
        return (s0.currentTemp if s0 else 0, s0.target if s0 else 0, s0.controller if s0 else 0)

    def _check_anomalies(self, gpu_temp, power_mw, power_w, power_limit_mw, throttle,
                         max_fan_speed, flags):
        now = time.monotonic()
        if (gpu_temp >= FAN_TEMP_INVERSION_TEMP and max_fan_speed <= FAN_TEMP_INVERSION_FAN
                and self._total_samples > 10):
            self._total_fan_inversions += 1
            self._period_fan_inversions += 1
            flags.append(f"TEMP_FAN_INV({gpu_temp}C@{max_fan_speed}%)")
            if now - self._last_fan_inversion_log >= ANOMALY_LOG_COOLDOWN_SEC:
                self._last_fan_inversion_log = now
                log(f"ANOMALY: {gpu_temp}C but fans at {max_fan_speed}%")
        if (throttle & 0x04 and power_limit_mw > 0
                and 0 < power_mw < power_limit_mw * SPURIOUS_THROTTLE_POWER_PCT
                and self._total_samples > 10):
            self._total_spurious_throttles += 1
            self._period_spurious_throttles += 1
            pct = (power_mw / power_limit_mw) * 100
            flags.append(f"SPUR_THROT({pct:.0f}%ofLim)")
            if now - self._last_spurious_throttle_log >= ANOMALY_LOG_COOLDOWN_SEC:
                self._last_spurious_throttle_log = now
                log(f"ANOMALY: SwPowerCap at {power_w:.0f}W")
        if power_limit_mw > 0 and power_mw > power_limit_mw:
            self._total_power_breaches += 1
            self._period_power_breaches += 1
            overage_w = (power_mw - power_limit_mw) / 1000.0
            if overage_w > 50:
                flags.append(f"PWR+{overage_w:.0f}W")

    def _sample(self):
        ts = datetime.now().strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
        flags = []
        gpu_temp, gpu_tlimit = self._read_thermal()
        power_mw, power_w, power_limit_w = self._read_power()
        power_limit_mw = int(power_limit_w * 1000)
        pstate, gpu_clock, mem_clock, gpu_util, mem_util, vram_used_mb = \
            self._read_clocks_and_util()
        pcie_gen = int(nvml_safe(nvmlDeviceGetCurrPcieLinkGeneration, self._handle))
        pcie_width = int(nvml_safe(nvmlDeviceGetCurrPcieLinkWidth, self._handle))
        throttle = int(nvml_safe(nvmlDeviceGetCurrentClocksEventReasons, self._handle))
        throttle_str = decode_throttle(throttle)
        if throttle != self._prev_throttle and self._total_samples > 0:
            log(f"Throttle: {decode_throttle(self._prev_throttle)} -> {throttle_str}")
        self._prev_throttle = throttle
        if self._prev_power_limit_w is not None:
            delta_w = power_limit_w - self._prev_power_limit_w
            if abs(delta_w) >= TDP_CHANGE_EPSILON_W:
                direction = "RESTORED" if delta_w > 0 else "REDUCED"
                flags.append(f"TDP_{direction}({power_limit_w:.0f}W)")
                self._total_tdp_changes += 1
                self._period_tdp_changes += 1
        self._prev_power_limit_w = power_limit_w
        fan_data, spike_detected = self._read_fans()
        if spike_detected:
            flags.append("FAN_SPIKE")
        max_fan_speed = max((fan_data[i * 2] for i in range(self._num_fans)), default=0)
        self._check_anomalies(gpu_temp, power_mw, power_w, power_limit_mw, throttle,
                              max_fan_speed, flags)
        s0_temp, s0_target, s0_ctrl = self._read_thermal_sensors()
        if gpu_temp > self._peak_temp:
            self._peak_temp = gpu_temp
        if power_w > self._peak_power:
            self._peak_power = power_w
        row = [ts, gpu_temp, gpu_tlimit, f"{power_w:.2f}", f"{power_limit_w:.0f}",
               pstate, gpu_clock, mem_clock, gpu_util, mem_util, vram_used_mb,
               pcie_gen, pcie_width, f"0x{throttle:04x}", throttle_str]
        row.extend(fan_data)
        row.extend([s0_temp, s0_target, s0_ctrl])
        row.append("|".join(flags))
        if self._csv_writer:
            self._csv_writer.writerow(row)
        self._total_samples += 1
        self._period_samples += 1
        if spike_detected:
            self._total_spikes += 1

    def iteration(self):
        """One pass of run()'s loop, less its wait."""
        now = time.monotonic()
        if now - self._last_disk_check >= DISK_CHECK_INTERVAL_SEC:
            self._last_disk_check = now
            shutil.disk_usage(self.log_dir)
        self._rotate_csv()
        self._sample()
        if time.monotonic() - self._last_summary_time < SUMMARY_INTERVAL_SEC:
            return


def cpu():
    return time.process_time()  # CLOCK_PROCESS_CPUTIME_ID: no children run here


def main():
    lib, n = sys.argv[1], int(sys.argv[2])
    index = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    nvmlInit(lib)
    tmp = tempfile.mkdtemp(prefix='vigil-bench-ref-gpu-')
    mon = Monitor(index, tmp)
    for _ in range(10):
        mon.iteration()
    c0 = cpu()
    for _ in range(n):
        mon.iteration()
    c1 = cpu()
    mon._csv_fh.close()
    with open(mon._csv_fh.name) as fh:
        last = fh.read().splitlines()[-1]
    shutil.rmtree(tmp)
    print(f'ref_gpu_samples {n}')
    print(f'ref_gpu_sample_us {(c1 - c0) / n * 1e6:.1f}')
    print(f'ref_gpu_fans {mon._num_fans}')
    print(f'ref_gpu_last_row {last}')


if __name__ == '__main__':
    main()
