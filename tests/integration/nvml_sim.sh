#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The simulated NVML serves a client that is not vigil, unchanged: a Python ctypes
# client written from NVML's documented ABI (pynvml's way, without pynvml) reads values,
# version-checked structs, an Xid event from a second thread, and a GPU that is lost and
# comes back.
. "$(dirname "$0")/../lib.sh"

if [ ! -f "$NVML_SIM" ]; then
	not_ok "nvml_sim: library built ($NVML_SIM missing)"
	exit 0
fi
# A sanitized build of the library needs its runtimes loaded first in a plain interpreter
# (whose own allocations the leak checker would otherwise report).
preload=$(ldd "$NVML_SIM" | awk '/lib(asan|ubsan)[.]so/ { printf "%s ", $3 }')
[ -z "$preload" ] || export ASAN_OPTIONS=detect_leaks=0

run_client() { # run_client SCENARIO
	VIGIL_NVML_SCENARIO="$1" VIGIL_NVML_SIM_LOG="$TMP/calls.log" LD_PRELOAD="$preload" \
		python3 - "$NVML_SIM" <<'PY'
import ctypes as C, sys, threading

lib = C.CDLL(sys.argv[1])

class PciInfo(C.Structure):  # nvmlPciInfo_t, 68 bytes
    _fields_ = [("busIdLegacy", C.c_char * 16), ("domain", C.c_uint), ("bus", C.c_uint),
                ("device", C.c_uint), ("pciDeviceId", C.c_uint), ("pciSubSystemId", C.c_uint),
                ("busId", C.c_char * 32)]

class MemoryV2(C.Structure):  # nvmlMemory_v2_t, 40 bytes
    _fields_ = [("version", C.c_uint), ("total", C.c_ulonglong), ("reserved", C.c_ulonglong),
                ("free", C.c_ulonglong), ("used", C.c_ulonglong)]

class EventData(C.Structure):  # nvmlEventData_t, 32 bytes
    _fields_ = [("device", C.c_void_p), ("eventType", C.c_ulonglong),
                ("eventData", C.c_ulonglong), ("gpuInstanceId", C.c_uint),
                ("computeInstanceId", C.c_uint)]

lib.nvmlErrorString.restype = C.c_char_p
out = {}
out["sizes"] = "%d %d %d" % (C.sizeof(PciInfo), C.sizeof(MemoryV2), C.sizeof(EventData))
out["init"] = lib.nvmlInit_v2()
buf = C.create_string_buffer(96)
lib.nvmlSystemGetDriverVersion(buf, 80)
out["driver"] = buf.value.decode()
n = C.c_uint()
lib.nvmlDeviceGetCount_v2(C.byref(n))
out["count"] = n.value
h = C.c_void_p()
lib.nvmlDeviceGetHandleByIndex_v2(0, C.byref(h))
lib.nvmlDeviceGetName(h, buf, 96)
out["name"] = buf.value.decode()
pci = PciInfo()
lib.nvmlDeviceGetPciInfo_v3(h, C.byref(pci))
out["busId"] = pci.busId.decode()
mem = MemoryV2(version=2)
out["mem_bare_2"] = lib.nvmlDeviceGetMemoryInfo_v2(h, C.byref(mem))
mem.version = C.sizeof(MemoryV2) | (2 << 24)
out["mem_v2"] = "%d %d %d" % (lib.nvmlDeviceGetMemoryInfo_v2(h, C.byref(mem)), mem.used, mem.reserved)

# An event thread, as monitors run one: wait while the main thread samples.
es = C.c_void_p()
lib.nvmlEventSetCreate(C.byref(es))
out["register"] = lib.nvmlDeviceRegisterEvents(h, C.c_ulonglong(0x8), es)
got = []
def listen():
    ev = EventData()
    while True:
        r = lib.nvmlEventSetWait_v2(es, C.byref(ev), 2000)
        got.append((r, ev.eventType, ev.eventData) if r == 0 else (r,))
        if r != 0 and r != 10:
            return
t = threading.Thread(target=listen)
t.start()
temps, codes = [], []
t_ = C.c_uint()
for step in range(1, 63):
    r = lib.nvmlDeviceGetTemperature(h, 0, C.byref(t_))
    codes.append(r)
    if step in (1, 25, 30, 60, 62):
        temps.append("%d:%s" % (step, t_.value if r == 0 else lib.nvmlErrorString(r).decode()))
    if step == 30:
        t.join()  # the listener ends on GPU_IS_LOST; the GPU stays lost until we sample on
out["temps"] = " ".join(temps)
out["lost_samples"] = "%d-%d" % (codes.index(15) + 1, len(codes) - codes[::-1].index(15))
out["events"] = " ".join(",".join(str(x) for x in e) for e in got if e[0] != 10)
lib.nvmlEventSetFree(es)
out["shutdown"] = lib.nvmlShutdown()
for k, v in out.items():
    print("%s=%s" % (k, v))
PY
}

res=$(run_client "$TOP/tests/nvml-sim/scenarios/xid-79-lost-recovered" 2>"$TMP/err")
get() { printf '%s\n' "$res" | sed -n "s/^$1=//p"; }
check_eq "nvml_sim: ctypes struct sizes" "68 40 32" "$(get sizes)"
check_eq "nvml_sim: init" "0" "$(get init)"
check_eq "nvml_sim: driver version" "570.86.15" "$(get driver)"
check_eq "nvml_sim: device count" "1" "$(get count)"
check_eq "nvml_sim: name" "NVIDIA RTX PRO 6000 Blackwell Workstation Edition" "$(get name)"
check_eq "nvml_sim: pci busId" "00000000:01:00.0" "$(get busId)"
check_eq "nvml_sim: memory v2 rejects a bare 2" "25" "$(get mem_bare_2)"
check_eq "nvml_sim: memory v2 with its version word" "0 536870912 536870912" "$(get mem_v2)"
check_eq "nvml_sim: register Xid events" "0" "$(get register)"
check_eq "nvml_sim: temperatures by step" "1:45 25:72 30:GPU is lost 60:45 62:45" "$(get temps)"
check_eq "nvml_sim: lost from step 30 to 59" "30-59" "$(get lost_samples)"
check_eq "nvml_sim: event thread saw Xid 79, then the loss" "0,8,79 15" "$(get events)"
check_eq "nvml_sim: shutdown" "0" "$(get shutdown)"
check_eq "nvml_sim: nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "nvml_sim: call log counts 62 temperature calls" "62" \
	"$(grep -c '^nvmlDeviceGetTemperature 0$' "$TMP/calls.log")"
