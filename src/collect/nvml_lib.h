/* SPDX-License-Identifier: Apache-2.0 */
/* The loaded NVML library and the GPUs vigil samples, shared by the NVML source
 * (nvml.c), the GPU sinks and whatever else talks to the driver (the event listener,
 * crash snapshots). The source owns it and publishes it as ctx->nvml while it runs;
 * everything here is main-thread state unless a field says otherwise.
 *
 * Hooks for other code:
 *   - the function table (lib) and each GPU's handle: call NVML directly. A handle is
 *     replaced when the GPU is re-acquired after failures; handle_gen counts that, so a
 *     listener that registered events on the old handle knows to register again.
 *   - crash_seq: +1 at the first failed sample of each failure streak (the GPU stopped
 *     answering). Code that takes crash snapshots keeps the last value it saw and polls
 *     it each tick (also in frame->gpus[slot].crash_seq).
 *   - per-GPU counters (samples, anomalies, peaks): frame->gpu_stats[slot], kept by the
 *     GPU rules (detect/gpu_rules.h), which also take critical events
 *     (gpu_rules_note_crash). */
#ifndef VIGIL_COLLECT_NVML_LIB_H
#define VIGIL_COLLECT_NVML_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/nvml_api.h"
#include "collect/nvml_procs.h"
#include "core/frame.h"

/* The entry points vigil uses. The required ones are never NULL once loaded; an
 * optional one is NULL when the library lacks it, and the field it reads is missing. */
struct nvml_lib {
        void *dl;
        char path[256]; /* the name or path that was opened */
        /* Required (newest name first, then the older one). */
        nvmlInit_v2_fn init;
        nvmlShutdown_fn shutdown;
        nvmlDeviceGetCount_v2_fn get_count;
        nvmlDeviceGetHandleByIndex_v2_fn get_handle;
        /* Optional. */
        nvmlErrorString_fn error_string;
        nvmlSystemGetDriverVersion_fn driver_version;
        nvmlDeviceGetPciInfo_v3_fn pci_info; /* _v3, else _v2 */
        nvmlDeviceGetName_fn name;
        nvmlDeviceGetUUID_fn uuid;
        nvmlDeviceGetSerial_fn serial;
        nvmlDeviceGetVbiosVersion_fn vbios;
        nvmlDeviceGetTemperature_fn temperature;
        nvmlDeviceGetTemperatureThreshold_fn temperature_threshold;
        nvmlDeviceGetThermalSettings_fn thermal_settings;
        nvmlDeviceGetPowerUsage_fn power_usage;
        nvmlDeviceGetPowerManagementLimit_fn power_limit;
        nvmlDeviceGetEnforcedPowerLimit_fn enforced_limit;
        nvmlDeviceGetTotalEnergyConsumption_fn energy;
        nvmlDeviceGetPerformanceState_fn pstate;
        nvmlDeviceGetClockInfo_fn clock_info;
        nvmlDeviceGetCurrentClocksEventReasons_fn clock_reasons; /* or ...ThrottleReasons */
        nvmlDeviceGetUtilizationRates_fn utilization;
        nvmlDeviceGetMemoryInfo_v2_fn memory_v2;
        nvmlDeviceGetMemoryInfo_fn memory_v1;
        nvmlDeviceGetCurrPcieLinkGeneration_fn pcie_gen;
        nvmlDeviceGetCurrPcieLinkWidth_fn pcie_width;
        nvmlDeviceGetPcieReplayCounter_fn pcie_replay;
        nvmlDeviceGetMaxPcieLinkGeneration_fn pcie_max_gen; /* device and slot (nvml_api.h) */
        nvmlDeviceGetMaxPcieLinkWidth_fn pcie_max_width;
        nvmlDeviceGetNumFans_fn num_fans;
        nvmlDeviceGetFanSpeed_v2_fn fan_speed_v2;
        nvmlDeviceGetFanSpeed_fn fan_speed; /* fan 0 only, for drivers without _v2 */
        nvmlDeviceGetTargetFanSpeed_fn target_fan_speed;
        nvmlDeviceGetFanControlPolicy_v2_fn fan_policy;
        nvmlDeviceGetTotalEccErrors_fn total_ecc;
        nvmlDeviceGetRemappedRows_fn remapped_rows;
        nvmlDeviceGetEccMode_fn ecc_mode;
        nvmlDeviceGetRetiredPages_fn retired_pages;
        nvmlDeviceGetRetiredPagesPendingStatus_fn retired_pending;
        nvmlDeviceGetPersistenceMode_fn persistence;
        nvmlDeviceGetFieldValues_fn field_values; /* the slow counters, the recovery action */
        nvmlDeviceGetNvLinkState_fn nvlink_state;
        nvmlDeviceGetGpuFabricInfoV_fn fabric_info_v; /* else fabric_info */
        nvmlDeviceGetGpuFabricInfo_fn fabric_info;
        nvmlDeviceGetComputeRunningProcesses_v3_fn compute_procs; /* _v3 only (FACTS.md) */
        nvmlDeviceGetGraphicsRunningProcesses_v3_fn graphics_procs;
        nvmlEventSetCreate_fn event_set_create;
        nvmlDeviceRegisterEvents_fn register_events;
        nvmlDeviceGetSupportedEventTypes_fn supported_event_types;
        nvmlEventSetWait_v2_fn event_set_wait; /* _v2, else nvmlEventSetWait */
        nvmlEventSetFree_fn event_set_free;
};

/* One GPU vigil samples; slot i here is frame->gpus[i]. */
struct nvml_gpu {
        unsigned index;      /* NVML index */
        nvmlDevice_t handle; /* NULL until acquired */
        uint64_t handle_gen; /* +1 each time handle is (re)acquired */
        unsigned nfans;      /* fans sampled (at most VIGIL_MAX_FANS) */
        bool legacy_fan;     /* only nvmlDeviceGetFanSpeed: fan 0 */
        double shutdown_c;   /* static thresholds, NAN when not supported */
        double slowdown_c;
        double gpu_max_c;
        double pcie_max_gen;   /* the link's maximum, device and slot; NAN when not */
        double pcie_max_width; /* supported (read with the identity: fixed until a reset) */
        double power_limit_w;  /* at (re)initialisation, for the start-up line */
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        char pci_bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
        char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE];
        char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
        /* Failure state (the reference logger's run() loop, per GPU). */
        unsigned consecutive_failures;
        uint64_t crash_seq;       /* +1 at the first failure of each streak */
        int64_t next_try_mono_ns; /* a failing GPU is not asked before this */
        /* Reading state. */
        uint64_t unsupported;     /* bit per field (nvml_read.h): retired, not asked until the
                               * next re-probe (nvml_read_reprobe) */
        uint8_t refused[64];      /* per field: NOT_SUPPORTED answers in a row */
        bool memory_v1;           /* nvmlDeviceGetMemoryInfo_v2 refused: use v1 */
        bool recovery_valid;      /* recovery_action was read at the slow cadence */
        unsigned recovery_action; /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION's value */
        bool slow_read;           /* the slow fields were read since the identity */
        /* The last values of the fields read at the mid and slow cadences (the rows of
         * core/gpu_values.c with .cadence FC_MID, FC_SLOW), carried into the samples in
         * between; every value missing until its cadence's first read. */
        struct gpu_frame held;
        bool fields_off; /* nvmlDeviceGetFieldValues refused: own calls only */
        /* NVLink: the links that answered nvmlDeviceGetNvLinkState when they were last
         * discovered (bit per link), and whether to discover them at the next slow read
         * (after the identity and each re-probe while none answered). */
        uint32_t nvlink_mask;
        bool nvlink_probe;
        bool fabric_v1; /* nvmlDeviceGetGpuFabricInfoV refused its version: the plain call */
};

struct nvml_shared {
        struct nvml_lib lib;
        char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        uint64_t driver_gen;   /* +1 when the driver version read changes */
        unsigned device_count; /* GPUs NVML reports */
        unsigned ngpus;        /* GPUs sampled */
        struct nvml_gpu gpu[VIGIL_MAX_GPUS];
        /* A fresh process list is wanted at the GPU's next answered sample (an Xid, a
         * critical event): set by whoever saw it, cleared by the source when it reads. */
        bool procs_wanted[VIGIL_MAX_GPUS];
        /* The event listener did not end when stopped (nvml_events.h): a wait is still
         * in the driver, so NVML is not shut down at exit. */
        bool listener_left;
};

/* Open the NVML library: path, or "" for libnvidia-ml.so.1 then libnvidia-ml.so
 * (RTLD_NOW | RTLD_LOCAL), and resolve its entry points. Does not call nvmlInit.
 * 0, -ENOENT (no library; err says which) or -ENOEXEC (a required symbol is missing;
 * err names it). err gets one line (cap bytes). */
int nvml_lib_open(struct nvml_lib *lib, const char *path, char *err, size_t cap);
/* dlclose; accepts a zeroed or closed lib. Only for a library nvmlInit was never
 * called on: one that was initialised stays mapped until exit. */
void nvml_lib_close(struct nvml_lib *lib);
/* NVML's text for a return code ("GPU is lost"); vigil's own when the library lacks
 * nvmlErrorString. Never NULL; static storage. */
const char *nvml_lib_strerror(const struct nvml_lib *lib, nvmlReturn_t r);

/* The slot of the GPU with this handle (an event's device), or -1. */
int nvml_slot_of_handle(const struct nvml_shared *sh, nvmlDevice_t dev);
/* The slot of the GPU at this PCI address, or -1. bus_id may be NVML's
 * "00000000:01:00.0", sysfs' "0000:01:00.0" or the kernel log's "0000:01:00" (the
 * "PCI:" prefix of an Xid line removed): domain, bus and device are compared as numbers. */
int nvml_slot_of_pci(const struct nvml_shared *sh, const char *bus_id);

#endif
