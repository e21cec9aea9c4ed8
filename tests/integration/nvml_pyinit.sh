#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVIDIA's Python bindings (nvidia-ml-py) against the simulated NVML, without PyPI: a
# ctypes client that calls exactly the entry points the bindings resolve for the
# reference logger (nvmlInit() is nvmlInitWithFlags(0); nvmlDeviceGetHandleByIndex,
# ...Count and ...PciInfo are the _v2/_v2/_v3 names; nvmlDeviceGetMemoryInfo without a
# version is v1; every error's text comes from nvmlErrorString), in the reference's
# order: start, one sample, the event listener, the field values, shutdown.
. "$(dirname "$0")/../lib.sh"

if [ ! -f "$NVML_SIM" ]; then
	not_ok "nvml_pyinit: library built ($NVML_SIM missing)"
	exit 0
fi
preload=$(ldd "$NVML_SIM" | awk '/lib(asan|ubsan)[.]so/ { printf "%s ", $3 }')
[ -z "$preload" ] || export ASAN_OPTIONS=detect_leaks=0

run_client() { # run_client LIBRARY SCENARIO
	VIGIL_NVML_SCENARIO="$2" LD_PRELOAD="$preload" python3 - "$1" <<'PY'
import ctypes as C, sys

lib = C.CDLL(sys.argv[1])
out = {}

# The bindings resolve each name when first called (getattr on the CDLL): a missing
# one is NVMLError_FunctionNotFound. Record which of their start names are missing.
start_names = ["nvmlInitWithFlags", "nvmlShutdown", "nvmlErrorString",
               "nvmlSystemGetDriverVersion", "nvmlDeviceGetCount_v2",
               "nvmlDeviceGetHandleByIndex_v2"]
sample_names = ["nvmlDeviceGetNumFans", "nvmlDeviceGetName", "nvmlDeviceGetPciInfo_v3",
                "nvmlDeviceGetSerial", "nvmlDeviceGetVbiosVersion",
                "nvmlDeviceGetTemperature", "nvmlDeviceGetTemperatureThreshold",
                "nvmlDeviceGetPowerUsage", "nvmlDeviceGetPowerManagementLimit",
                "nvmlDeviceGetPerformanceState", "nvmlDeviceGetClockInfo",
                "nvmlDeviceGetUtilizationRates", "nvmlDeviceGetMemoryInfo",
                "nvmlDeviceGetFanSpeed_v2", "nvmlDeviceGetTargetFanSpeed",
                "nvmlDeviceGetThermalSettings", "nvmlDeviceGetCurrPcieLinkGeneration",
                "nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetCurrentClocksEventReasons",
                "nvmlDeviceGetFanControlPolicy_v2", "nvmlEventSetCreate",
                "nvmlDeviceGetSupportedEventTypes", "nvmlDeviceRegisterEvents",
                "nvmlEventSetWait_v2", "nvmlEventSetFree", "nvmlDeviceGetFieldValues"]
def missing(names):
    m = [n for n in names if not hasattr(lib, n)]
    return ",".join(m) if m else "none"
out["missing_start"] = missing(start_names)
out["missing_sample"] = missing(sample_names)

lib.nvmlErrorString.restype = C.c_char_p
def err(r):
    return lib.nvmlErrorString(r).decode()

# pynvml: nvmlInit() -> nvmlInitWithFlags(0); _nvmlCheckReturn raises on nonzero.
out["init"] = lib.nvmlInitWithFlags(C.c_uint(0))
if out["init"] != 0 or out["missing_sample"] != "none":
    if out["init"] == 0:
        out["shutdown"] = lib.nvmlShutdown()
    for k, v in out.items():
        print("%s=%s" % (k, v))
    sys.exit(0)

class PciInfo(C.Structure):
    _fields_ = [("busIdLegacy", C.c_char * 16), ("domain", C.c_uint), ("bus", C.c_uint),
                ("device", C.c_uint), ("pciDeviceId", C.c_uint), ("pciSubSystemId", C.c_uint),
                ("busId", C.c_char * 32)]
class Utilization(C.Structure):
    _fields_ = [("gpu", C.c_uint), ("memory", C.c_uint)]
class Memory(C.Structure):  # v1: used includes reserved
    _fields_ = [("total", C.c_ulonglong), ("free", C.c_ulonglong), ("used", C.c_ulonglong)]
class Sensor(C.Structure):
    _fields_ = [("controller", C.c_int), ("defaultMinTemp", C.c_int),
                ("defaultMaxTemp", C.c_int), ("currentTemp", C.c_int), ("target", C.c_int)]
class Thermal(C.Structure):
    _fields_ = [("count", C.c_uint), ("sensor", Sensor * 3)]
class EventData(C.Structure):
    _fields_ = [("device", C.c_void_p), ("eventType", C.c_ulonglong),
                ("eventData", C.c_ulonglong), ("gpuInstanceId", C.c_uint),
                ("computeInstanceId", C.c_uint)]
class Value(C.Union):
    _fields_ = [("dVal", C.c_double), ("siVal", C.c_int), ("uiVal", C.c_uint),
                ("ulVal", C.c_ulong), ("ullVal", C.c_ulonglong), ("sllVal", C.c_longlong)]
class FieldValue(C.Structure):
    _fields_ = [("fieldId", C.c_uint32), ("scopeId", C.c_uint32), ("timestamp", C.c_int64),
                ("latencyUsec", C.c_int64), ("valueType", C.c_int), ("nvmlReturn", C.c_int),
                ("value", Value)]

buf = C.create_string_buffer(96)
u = C.c_uint()
ull = C.c_ulonglong()
i = C.c_int()
out["sizes"] = "%d %d %d %d" % (C.sizeof(PciInfo), C.sizeof(Memory), C.sizeof(Thermal),
                                C.sizeof(FieldValue))
lib.nvmlDeviceGetCount_v2(C.byref(u))
out["count"] = u.value
h = C.c_void_p()
out["handle"] = lib.nvmlDeviceGetHandleByIndex_v2(0, C.byref(h))
lib.nvmlDeviceGetNumFans(h, C.byref(u))
out["fans"] = u.value
lib.nvmlDeviceGetName(h, buf, 96)
out["name"] = buf.value.decode()
lib.nvmlSystemGetDriverVersion(buf, 80)
out["driver"] = buf.value.decode()
pci = PciInfo()
lib.nvmlDeviceGetPciInfo_v3(h, C.byref(pci))
out["busId"] = pci.busId.decode()
r = lib.nvmlDeviceGetSerial(h, buf, 30)
out["serial"] = err(r) if r else buf.value.decode()
thr = []
for idx in (0, 1, 3):
    r = lib.nvmlDeviceGetTemperatureThreshold(h, idx, C.byref(u))
    thr.append(str(u.value) if r == 0 else err(r))
out["thresholds"] = " ".join(thr)

# One sample, in the reference's order.
s = []
lib.nvmlDeviceGetTemperature(h, 0, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetPowerUsage(h, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetPowerManagementLimit(h, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetPerformanceState(h, C.byref(i)); s.append(i.value)
lib.nvmlDeviceGetClockInfo(h, 0, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetClockInfo(h, 2, C.byref(u)); s.append(u.value)
ut = Utilization(); lib.nvmlDeviceGetUtilizationRates(h, C.byref(ut)); s += [ut.gpu, ut.memory]
mem = Memory(); lib.nvmlDeviceGetMemoryInfo(h, C.byref(mem)); s.append(mem.used)
lib.nvmlDeviceGetFanSpeed_v2(h, 0, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetTargetFanSpeed(h, 0, C.byref(u)); s.append(u.value)
th = Thermal(); lib.nvmlDeviceGetThermalSettings(h, 0, C.byref(th)); s.append(th.sensor[0].currentTemp)
lib.nvmlDeviceGetCurrPcieLinkGeneration(h, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetCurrPcieLinkWidth(h, C.byref(u)); s.append(u.value)
lib.nvmlDeviceGetCurrentClocksEventReasons(h, C.byref(ull)); s.append(hex(ull.value))
lib.nvmlDeviceGetFanControlPolicy_v2(h, 0, C.byref(u)); s.append(u.value)
out["sample"] = " ".join(str(x) for x in s)
out["unsupported_text"] = err(lib.nvmlDeviceGetSerial(h, buf, 30))

# The event listener's start, and the field the recovery action lives in.
es = C.c_void_p()
out["set_create"] = lib.nvmlEventSetCreate(C.byref(es))
lib.nvmlDeviceGetSupportedEventTypes(h, C.byref(ull))
mask = ull.value & (0x4 | 0x8 | 0x10 | 0x8000)
out["register"] = "%d 0x%04x" % (lib.nvmlDeviceRegisterEvents(h, C.c_ulonglong(mask), es), mask)
ev = EventData()
out["wait_empty"] = lib.nvmlEventSetWait_v2(es, C.byref(ev), 10)
fv = (FieldValue * 2)()
fv[0].fieldId = 230
fv[1].fieldId = 1
r = lib.nvmlDeviceGetFieldValues(h, 2, fv)
out["fields"] = "%d %d/%d/%d %d" % (r, fv[0].nvmlReturn, fv[0].valueType, fv[0].value.uiVal,
                                    fv[1].nvmlReturn)
out["set_free"] = lib.nvmlEventSetFree(es)
out["shutdown"] = lib.nvmlShutdown()
out["after_shutdown"] = err(lib.nvmlDeviceGetCount_v2(C.byref(u)))
for k, v in out.items():
    print("%s=%s" % (k, v))
PY
}

res=$(run_client "$NVML_SIM" "$TOP/tests/nvml-sim/scenarios/recovery-action" 2>"$TMP/err")
get() { printf '%s\n' "$res" | sed -n "s/^$1=//p"; }
check_eq "nvml_pyinit: every start name the bindings resolve is exported" "none" "$(get missing_start)"
check_eq "nvml_pyinit: every name the reference's calls resolve is exported" "none" "$(get missing_sample)"
check_eq "nvml_pyinit: nvmlInitWithFlags(0)" "0" "$(get init)"
check_eq "nvml_pyinit: struct sizes" "68 24 64 40" "$(get sizes)"
check_eq "nvml_pyinit: count and handle" "1 0" "$(get count) $(get handle)"
check_eq "nvml_pyinit: fans, name, driver" "2 NVIDIA RTX PRO 6000 Blackwell Workstation Edition 570.86.15" \
	"$(get fans) $(get name) $(get driver)"
check_eq "nvml_pyinit: busId" "00000000:01:00.0" "$(get busId)"
check_eq "nvml_pyinit: serial not supported, as text" "Not Supported" "$(get serial)"
check_eq "nvml_pyinit: thresholds shutdown slowdown gpu_max" "98 95 90" "$(get thresholds)"
# temp power limit pstate gfx mem util_gpu util_mem used(v1: reserved included) fan0
# target0 s0_temp gen width reasons policy0
check_eq "nvml_pyinit: one sample as the bindings read it" \
	"45 85000 600000 8 1200 9000 10 5 1073741824 30 30 45 5 16 0x1 0" "$(get sample)"
check_eq "nvml_pyinit: error text" "Not Supported" "$(get unsupported_text)"
check_eq "nvml_pyinit: event set" "0 0" "$(get set_create) $(get set_free)"
check_eq "nvml_pyinit: register PState|Xid|Clock|GpuRecoveryAction" "0 0x801c" "$(get register)"
check_eq "nvml_pyinit: an empty wait times out" "10" "$(get wait_empty)"
check_eq "nvml_pyinit: field 230 (recovery action NONE); field 1 not supported" "0 0/1/0 3" \
	"$(get fields)"
check_eq "nvml_pyinit: shutdown, then uninitialised" "0 Uninitialized" \
	"$(get shutdown) $(get after_shutdown)"
check_eq "nvml_pyinit: nothing on stderr" "" "$(cat "$TMP/err")"

# The old driver: the bindings still start (nvmlInitWithFlags exists from R418 on), and
# the names it lacks are the ones the README lists.
OLD="$BUILD_DIR/nvml-sim/old/libnvidia-ml.so.1"
res=$(run_client "$OLD" "$TOP/tests/nvml-sim/scenarios/healthy-1gpu" 2>"$TMP/err")
check_eq "nvml_pyinit: old driver: start names exported" "none" "$(get missing_start)"
check_eq "nvml_pyinit: old driver: nvmlInitWithFlags(0), shutdown" "0 0" "$(get init) $(get shutdown)"
check_eq "nvml_pyinit: old driver lacks the newer names" \
	"nvmlDeviceGetNumFans,nvmlDeviceGetPciInfo_v3,nvmlDeviceGetFanSpeed_v2,nvmlDeviceGetTargetFanSpeed,nvmlDeviceGetThermalSettings,nvmlDeviceGetCurrentClocksEventReasons,nvmlDeviceGetFanControlPolicy_v2,nvmlEventSetWait_v2,nvmlDeviceGetFieldValues" \
	"$(get missing_sample)"
