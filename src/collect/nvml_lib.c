/* SPDX-License-Identifier: Apache-2.0 */
/* Loading NVML at run time. See nvml_lib.h.
 *
 * Symbols are looked up newest name first (FACTS.md): nvmlInit_v2 -> nvmlInit,
 * nvmlDeviceGetPciInfo_v3 -> _v2, nvmlDeviceGetCurrentClocksEventReasons ->
 * nvmlDeviceGetCurrentClocksThrottleReasons, ... A fallback has the same C signature
 * as the newer name, so one pointer field holds either. */
#include "collect/nvml_lib.h"

#include "util/parse.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct nvml_sym {
        const char *names[3]; /* tried in order */
        size_t offset;        /* of the pointer in struct nvml_lib */
        bool required;
};

#define SYM(field, req, ...)                                                                       \
        {                                                                                          \
                {__VA_ARGS__}, offsetof(struct nvml_lib, field), req                               \
        }

static const struct nvml_sym nvml_syms[] = {
    SYM(init, true, "nvmlInit_v2", "nvmlInit"),
    SYM(shutdown, true, "nvmlShutdown"),
    SYM(get_count, true, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
    SYM(get_handle, true, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
    SYM(error_string, false, "nvmlErrorString"),
    SYM(driver_version, false, "nvmlSystemGetDriverVersion"),
    SYM(pci_info, false, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"),
    SYM(name, false, "nvmlDeviceGetName"),
    SYM(uuid, false, "nvmlDeviceGetUUID"),
    SYM(serial, false, "nvmlDeviceGetSerial"),
    SYM(vbios, false, "nvmlDeviceGetVbiosVersion"),
    SYM(temperature, false, "nvmlDeviceGetTemperature"),
    SYM(temperature_threshold, false, "nvmlDeviceGetTemperatureThreshold"),
    SYM(thermal_settings, false, "nvmlDeviceGetThermalSettings"),
    SYM(power_usage, false, "nvmlDeviceGetPowerUsage"),
    SYM(power_limit, false, "nvmlDeviceGetPowerManagementLimit"),
    SYM(enforced_limit, false, "nvmlDeviceGetEnforcedPowerLimit"),
    SYM(energy, false, "nvmlDeviceGetTotalEnergyConsumption"),
    SYM(pstate, false, "nvmlDeviceGetPerformanceState"),
    SYM(clock_info, false, "nvmlDeviceGetClockInfo"),
    SYM(clock_reasons, false, "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons"),
    SYM(utilization, false, "nvmlDeviceGetUtilizationRates"),
    SYM(memory_v2, false, "nvmlDeviceGetMemoryInfo_v2"),
    SYM(memory_v1, false, "nvmlDeviceGetMemoryInfo"),
    SYM(pcie_gen, false, "nvmlDeviceGetCurrPcieLinkGeneration"),
    SYM(pcie_width, false, "nvmlDeviceGetCurrPcieLinkWidth"),
    SYM(pcie_replay, false, "nvmlDeviceGetPcieReplayCounter"),
    SYM(pcie_max_gen, false, "nvmlDeviceGetMaxPcieLinkGeneration"),
    SYM(pcie_max_width, false, "nvmlDeviceGetMaxPcieLinkWidth"),
    SYM(num_fans, false, "nvmlDeviceGetNumFans"),
    SYM(fan_speed_v2, false, "nvmlDeviceGetFanSpeed_v2"),
    SYM(fan_speed, false, "nvmlDeviceGetFanSpeed"),
    SYM(target_fan_speed, false, "nvmlDeviceGetTargetFanSpeed"),
    SYM(fan_policy, false, "nvmlDeviceGetFanControlPolicy_v2"),
    SYM(total_ecc, false, "nvmlDeviceGetTotalEccErrors"),
    SYM(remapped_rows, false, "nvmlDeviceGetRemappedRows"),
    SYM(ecc_mode, false, "nvmlDeviceGetEccMode"),
    SYM(retired_pages, false, "nvmlDeviceGetRetiredPages"),
    SYM(retired_pending, false, "nvmlDeviceGetRetiredPagesPendingStatus"),
    SYM(persistence, false, "nvmlDeviceGetPersistenceMode"),
    SYM(field_values, false, "nvmlDeviceGetFieldValues"),
    SYM(nvlink_state, false, "nvmlDeviceGetNvLinkState"),
    SYM(fabric_info_v, false, "nvmlDeviceGetGpuFabricInfoV"),
    SYM(fabric_info, false, "nvmlDeviceGetGpuFabricInfo"),
    SYM(compute_procs, false, "nvmlDeviceGetComputeRunningProcesses_v3"),
    SYM(graphics_procs, false, "nvmlDeviceGetGraphicsRunningProcesses_v3"),
    SYM(event_set_create, false, "nvmlEventSetCreate"),
    SYM(register_events, false, "nvmlDeviceRegisterEvents"),
    SYM(supported_event_types, false, "nvmlDeviceGetSupportedEventTypes"),
    SYM(event_set_wait, false, "nvmlEventSetWait_v2", "nvmlEventSetWait"),
    SYM(event_set_free, false, "nvmlEventSetFree"),
};

#define NSYMS (sizeof(nvml_syms) / sizeof(nvml_syms[0]))

/* The driver's library by soname, then the development link. */
static const char *const defaults[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

static void *try_open(const char *name)
{
        return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

static int resolve(struct nvml_lib *lib, char *err, size_t cap)
{
        for (size_t i = 0; i < NSYMS; i++) {
                const struct nvml_sym *s = &nvml_syms[i];
                void *p = NULL;
                for (size_t k = 0; k < 3 && s->names[k] && !p; k++)
                        p = dlsym(lib->dl, s->names[k]);
                if (!p && s->required) {
                        snprintf(err, cap, "%s has no %s: not an NVML library", lib->path,
                                 s->names[0]);
                        return -ENOEXEC;
                }
                /* A data pointer from dlsym into a function-pointer field: POSIX
                 * guarantees they have the same representation. */
                memcpy((char *)lib + s->offset, &p, sizeof(p));
        }
        return 0;
}

int nvml_lib_open(struct nvml_lib *lib, const char *path, char *err, size_t cap)
{
        memset(lib, 0, sizeof(*lib));
        if (path && path[0]) {
                lib->dl = try_open(path);
                snprintf(lib->path, sizeof(lib->path), "%s", path);
        } else {
                for (size_t i = 0; i < 2 && !lib->dl; i++) {
                        lib->dl = try_open(defaults[i]);
                        snprintf(lib->path, sizeof(lib->path), "%s", defaults[i]);
                }
        }
        if (!lib->dl) {
                snprintf(err, cap, "no NVIDIA library (%s)", path && path[0] ? path : defaults[0]);
                return -ENOENT;
        }
        int r = resolve(lib, err, cap);
        if (r < 0)
                nvml_lib_close(lib);
        return r;
}

void nvml_lib_close(struct nvml_lib *lib)
{
        if (lib->dl)
                dlclose(lib->dl);
        memset(lib, 0, sizeof(*lib));
}

/* NVML's own strings for the codes FACTS.md lists, for a library without
 * nvmlErrorString. */
static const char *fallback_strerror(nvmlReturn_t r)
{
        switch (r) {
        case NVML_SUCCESS:
                return "Success";
        case NVML_ERROR_UNINITIALIZED:
                return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT:
                return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED:
                return "Not Supported";
        case NVML_ERROR_NO_PERMISSION:
                return "Insufficient Permissions";
        case NVML_ERROR_DRIVER_NOT_LOADED:
                return "Driver Not Loaded";
        case NVML_ERROR_TIMEOUT:
                return "Timeout";
        case NVML_ERROR_GPU_IS_LOST:
                return "GPU is lost";
        case NVML_ERROR_RESET_REQUIRED:
                return "GPU requires reset";
        case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
                return "Driver/library version mismatch";
        default:
                return "Unknown Error";
        }
}

const char *nvml_lib_strerror(const struct nvml_lib *lib, nvmlReturn_t r)
{
        const char *s = lib && lib->error_string ? lib->error_string(r) : NULL;
        return s ? s : fallback_strerror(r);
}

int nvml_slot_of_handle(const struct nvml_shared *sh, nvmlDevice_t dev)
{
        for (unsigned i = 0; sh && dev && i < sh->ngpus; i++)
                if (sh->gpu[i].handle == dev)
                        return (int)i;
        return -1;
}

/* "DOMAIN:BUS:DEVICE[.FN]" in hexadecimal, the domain of any width. */
static bool parse_pci(const char *s, uint64_t *dom, uint64_t *bus, uint64_t *dev)
{
        struct cursor c = cur_str(s);
        return cur_hex(&c, dom) == 0 && cur_lit(&c, ":") && cur_hex(&c, bus) == 0 &&
               cur_lit(&c, ":") && cur_hex(&c, dev) == 0 && (cur_eof(&c) || cur_lit(&c, "."));
}

int nvml_slot_of_pci(const struct nvml_shared *sh, const char *bus_id)
{
        uint64_t d, b, v, d2, b2, v2;
        if (!sh || !bus_id || !parse_pci(bus_id, &d, &b, &v))
                return -1;
        for (unsigned i = 0; i < sh->ngpus; i++)
                if (parse_pci(sh->gpu[i].pci_bus_id, &d2, &b2, &v2) && d == d2 && b == b2 &&
                    v == v2)
                        return (int)i;
        return -1;
}
