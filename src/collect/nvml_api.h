/* SPDX-License-Identifier: Apache-2.0 */
/* The subset of the NVML (NVIDIA Management Library) ABI that vigil uses.
 *
 * No nvml.h exists on the machines vigil is built on, and vigil loads
 * libnvidia-ml.so.1 with dlopen, so the types, constants and call signatures are
 * declared here, once, for the collector and for the simulated library in
 * tests/nvml-sim/ (which defines functions of exactly these types).
 *
 * The type names mirror the C ABI's own names (nvmlReturn_t, nvmlDevice_t, ...), so
 * what is written here can be compared line by line with NVIDIA's header.
 * Sources: /work/shared/FACTS.md (return codes, struct layouts and offsets, version
 * words, event and clock-event bits), NVIDIA's nvml.h as published in NVIDIA/go-nvml
 * (gen/nvml/nvml.h, pkg/nvml/nvml.h: prototypes, nvmlUtilization_t, nvmlMemory_t,
 * nvmlMemoryErrorType_t, nvmlEccCounterType_t, nvmlFanControlPolicy_t, the thermal
 * settings struct and nvmlEventData_t comments), and NVIDIA's pynvml.py (buffer sizes,
 * recovery-action values). Enums are passed as int (FACTS.md). The names of the bit-mask
 * constants (NVML_EVENT_*, NVML_CLOCKS_EVENT_*) are vigil's; their values are NVIDIA's. */
#ifndef VIGIL_COLLECT_NVML_API_H
#define VIGIL_COLLECT_NVML_API_H

#include <stddef.h>

/* ---- Handles and return codes ------------------------------------------------ */

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

enum {
        NVML_SUCCESS = 0,
        NVML_ERROR_UNINITIALIZED = 1,
        NVML_ERROR_INVALID_ARGUMENT = 2,
        NVML_ERROR_NOT_SUPPORTED = 3,
        NVML_ERROR_NO_PERMISSION = 4,
        NVML_ERROR_ALREADY_INITIALIZED = 5,
        NVML_ERROR_NOT_FOUND = 6,
        NVML_ERROR_INSUFFICIENT_SIZE = 7,
        NVML_ERROR_INSUFFICIENT_POWER = 8,
        NVML_ERROR_DRIVER_NOT_LOADED = 9,
        NVML_ERROR_TIMEOUT = 10,
        NVML_ERROR_IRQ_ISSUE = 11,
        NVML_ERROR_LIBRARY_NOT_FOUND = 12,
        NVML_ERROR_FUNCTION_NOT_FOUND = 13,
        NVML_ERROR_CORRUPTED_INFOROM = 14,
        NVML_ERROR_GPU_IS_LOST = 15,
        NVML_ERROR_RESET_REQUIRED = 16,
        NVML_ERROR_OPERATING_SYSTEM = 17,
        NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
        NVML_ERROR_IN_USE = 19,
        NVML_ERROR_MEMORY = 20,
        NVML_ERROR_NO_DATA = 21,
        NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
        NVML_ERROR_DEPRECATED = 26,
        NVML_ERROR_NOT_READY = 27,
        NVML_ERROR_GPU_NOT_FOUND = 28,
        NVML_ERROR_INVALID_STATE = 29,
        NVML_ERROR_UNKNOWN = 999,
};

/* ---- Enumerations (int on the ABI) ------------------------------------------- */

/* nvmlTemperatureSensors_t */
enum { NVML_TEMPERATURE_GPU = 0 };

/* nvmlTemperatureThresholds_t */
enum {
        NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
        NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
        NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
        NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
        NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
        NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
        NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
        NVML_TEMPERATURE_THRESHOLD_COUNT = 7, /* vigil's bound, not an NVML value */
};

/* nvmlClockType_t */
enum {
        NVML_CLOCK_GRAPHICS = 0,
        NVML_CLOCK_SM = 1,
        NVML_CLOCK_MEM = 2,
        NVML_CLOCK_VIDEO = 3,
        NVML_CLOCK_COUNT = 4,
};

/* nvmlPstates_t: P0..P15, or unknown. */
enum { NVML_PSTATE_UNKNOWN = 32 };

/* nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvml.h). */
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };

/* nvmlEnableState_t (nvml.h 13, go-nvml pkg/nvml/nvml.h:891-895): what
 * nvmlDeviceGetEccMode, nvmlDeviceGetPersistenceMode and
 * nvmlDeviceGetRetiredPagesPendingStatus give. */
typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

/* nvmlPageRetirementCause_t (nvml.h 13, pkg/nvml/nvml.h:1360-1367): the cause
 * nvmlDeviceGetRetiredPages filters by. */
typedef enum {
        NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
        NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
} nvmlPageRetirementCause_t;

/* nvmlFanControlPolicy_t is `typedef unsigned int` in nvml.h (not an enum). The
 * misspelling CONTINOUS is NVIDIA's. */
typedef unsigned int nvmlFanControlPolicy_t;
#define NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW 0u
#define NVML_FAN_POLICY_MANUAL                   1u

/* nvmlThermalTarget_t */
enum {
        NVML_THERMAL_TARGET_NONE = 0,
        NVML_THERMAL_TARGET_GPU = 1,
        NVML_THERMAL_TARGET_MEMORY = 2,
        NVML_THERMAL_TARGET_POWER_SUPPLY = 4,
        NVML_THERMAL_TARGET_BOARD = 8,
        NVML_THERMAL_TARGET_VCD_BOARD = 9,
        NVML_THERMAL_TARGET_VCD_INLET = 10,
        NVML_THERMAL_TARGET_VCD_OUTLET = 11,
        NVML_THERMAL_TARGET_ALL = 15,
        NVML_THERMAL_TARGET_UNKNOWN = -1,
};

/* nvmlThermalController_t: only the values vigil names. */
enum {
        NVML_THERMAL_CONTROLLER_NONE = 0,
        NVML_THERMAL_CONTROLLER_GPU_INTERNAL = 1,
        NVML_THERMAL_CONTROLLER_UNKNOWN = -1,
};

/* nvmlDeviceGpuRecoveryAction_t: the value of field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
 * (FACTS.md; nvml.h 12.8 to 13.3). 13.3 adds 5, RECOVER_IMEX_DOMAIN (the enum as
 * cuda-python's nvml.pxd lists it; pynvml.py calls 5 GPU_RESET_BUS). */
enum {
        NVML_GPU_RECOVERY_ACTION_NONE = 0,
        NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
        NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2,
        NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
        NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4,
        NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN = 5,
};

/* Field values (nvmlDeviceGetFieldValues): the field ids vigil asks for, and
 * nvmlValueType_t (FACTS.md). The ECC, replay and remapped-row ids are nvml.h's (NVIDIA's
 * header as NVIDIA/go-nvml gen/nvml/nvml.h carries it, 13.x): 3 "Total single bit
 * volatile ECC errors", 4 "Total double bit volatile ECC errors", 94 "PCIe replay
 * counter", 142 "Number of remapped rows due to correctable errors", 143 "... due to
 * uncorrectable errors", 144 "If any rows are pending remapping. 1=yes 0=no", 145 "If
 * any rows failed to be remapped 1=yes 0=no". The ECC mode and depth ids, nvml.h 13
 * (go-nvml pkg/nvml/nvml.h:2372-2406): 1 "Current ECC mode. 1=Active. 0=Inactive", 2
 * "Pending ECC mode. 1=Active. 0=Inactive", 5 "Total single bit aggregate (persistent)
 * ECC errors", 6 "Total double bit aggregate (persistent) ECC errors", 29 "Number of
 * retired pages because of single bit errors", 30 "... because of double bit errors",
 * 31 "If any pages are pending retirement. 1=yes. 0=no.". */
#define NVML_FI_DEV_ECC_CURRENT             1u
#define NVML_FI_DEV_ECC_PENDING             2u
#define NVML_FI_DEV_ECC_SBE_VOL_TOTAL       3u
#define NVML_FI_DEV_ECC_DBE_VOL_TOTAL       4u
#define NVML_FI_DEV_ECC_SBE_AGG_TOTAL       5u
#define NVML_FI_DEV_ECC_DBE_AGG_TOTAL       6u
#define NVML_FI_DEV_RETIRED_SBE             29u
#define NVML_FI_DEV_RETIRED_DBE             30u
#define NVML_FI_DEV_RETIRED_PENDING         31u
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER     94u
#define NVML_FI_DEV_REMAPPED_COR            142u
#define NVML_FI_DEV_REMAPPED_UNC            143u
#define NVML_FI_DEV_REMAPPED_PENDING        144u
#define NVML_FI_DEV_REMAPPED_FAILURE        145u
#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230u
enum {
        NVML_VALUE_TYPE_DOUBLE = 0,
        NVML_VALUE_TYPE_UNSIGNED_INT = 1,
        NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
        NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
        NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
        NVML_VALUE_TYPE_SIGNED_INT = 5,
};

/* NVLink, per link (nvml.h 13.3 as NVIDIA/go-nvml carries it at 2f9e261, gen/nvml/nvml.h).
 * NVML_NVLINK_MAX_LINKS is 18 in the 12.x headers and 36 from 13.0 (line 455): vigil reads
 * links 0..VIGIL_MAX_NVLINKS-1 (core/frame.h). nvmlDeviceGetNvLinkState gives an
 * nvmlEnableState_t (above; line 886 there, line 9506: ENABLED "the link is active").
 * nvmlNvLinkErrorCounter_t (line 519). */
enum {
        NVML_NVLINK_ERROR_DL_REPLAY = 0,   /* data link transmit replay */
        NVML_NVLINK_ERROR_DL_RECOVERY = 1, /* data link transmit recovery */
        NVML_NVLINK_ERROR_DL_CRC_FLIT = 2, /* data link receive flow control digit CRC */
        NVML_NVLINK_ERROR_DL_CRC_DATA = 3, /* data link receive data CRC */
};
/* The per-link field ids, each asked with the link in nvmlFieldValue_t.scopeId ("Link ID
 * needs to be specified in the scopeId field", lines 2399, 2412, 2425, 2438): the per-link
 * totals over the link's lanes (lines 2407, 2420, 2433, 2446), Pascal to Hopper; and the
 * NVLink5 counters (Blackwell; lines 2760-2762, 2767, 2777), which replace the DL ones
 * there (lines 2651, 2659: "unsupported for Blackwell+"). */
#define NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL            38u
#define NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL            45u
#define NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL              52u
#define NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL            59u
#define NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS 213u /* up -> recovery -> up */
#define NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS     214u /* up -> recovery -> down */
#define NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS            215u /* up -> recovery, any end */
#define NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS                219u /* errors in packets */
#define NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS                   221u /* errors in rx symbols */

/* The GPU's place in the NVLink fabric (lines 3795-3958): the probe's state
 * (nvmlGpuFabricState_t, an unsigned char), and the health mask's 2-bit fields, each
 * 0 not supported, 1 true (the bad case), 2 false; INCORRECT_CONFIGURATION is 4 bits,
 * 0 not supported, 1 none (correct), 2.. a fault; PARTITION_ASSIGNED 1 true, 2 false. */
#define NVML_GPU_FABRIC_UUID_LEN                                  16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED                       0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED                         1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS                         2
#define NVML_GPU_FABRIC_STATE_COMPLETED                           3
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW             0
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY          2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY         4
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY 6
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION 8 /* width 0xf */
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED      12
#define NVML_GPU_FABRIC_HEALTH_MASK_TRUE                          1u /* the 2-bit fields */
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE  1u

/* ---- Bit masks ------------------------------------------------------------------ */

/* Event types (nvmlEventType*). The last two exist from NVML 12.8 / R570 on. */
#define NVML_EVENT_SINGLE_BIT_ECC        0x0000000000000001ULL
#define NVML_EVENT_DOUBLE_BIT_ECC        0x0000000000000002ULL
#define NVML_EVENT_PSTATE                0x0000000000000004ULL
#define NVML_EVENT_XID_CRITICAL_ERROR    0x0000000000000008ULL
#define NVML_EVENT_CLOCK                 0x0000000000000010ULL
#define NVML_EVENT_POWER_SOURCE_CHANGE   0x0000000000000080ULL
#define NVML_EVENT_MIG_CONFIG_CHANGE     0x0000000000000100ULL
#define NVML_EVENT_GPU_UNAVAILABLE_ERROR 0x0000000000004000ULL
#define NVML_EVENT_GPU_RECOVERY_ACTION   0x0000000000008000ULL

/* eventData of an Xid event whose code the driver does not know. */
#define NVML_XID_UNKNOWN 999ULL
/* gpuInstanceId / computeInstanceId of an event not attributable to a MIG instance. */
#define NVML_INSTANCE_ID_NONE 0xFFFFFFFFu

/* Clock event (throttle) reasons (nvmlClocksEventReason*). */
#define NVML_CLOCKS_EVENT_GPU_IDLE              0x0000000000000001ULL
#define NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS   0x0000000000000002ULL
#define NVML_CLOCKS_EVENT_SW_POWER_CAP          0x0000000000000004ULL
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN           0x0000000000000008ULL
#define NVML_CLOCKS_EVENT_SYNC_BOOST            0x0000000000000010ULL
#define NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN   0x0000000000000020ULL
#define NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN   0x0000000000000040ULL
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE        0x0000000000000080ULL
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING 0x0000000000000100ULL

/* ---- Buffer sizes (pynvml.py / nvml.h) ---------------------------------------- */

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE        96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE        96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE         30
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE  32
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE     32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE  16
#define NVML_MAX_THERMAL_SENSORS_PER_GPU       3

/* ---- Structs --------------------------------------------------------------------- */

typedef struct nvmlPciInfo_st {
        char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
        unsigned int domain;
        unsigned int bus;
        unsigned int device;
        unsigned int pciDeviceId; /* device id << 16 | vendor id */
        unsigned int pciSubSystemId;
        char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
        unsigned int gpu;    /* percent */
        unsigned int memory; /* percent */
} nvmlUtilization_t;

/* v1: used includes what the driver reserves. */
typedef struct nvmlMemory_st {
        unsigned long long total; /* bytes */
        unsigned long long free;
        unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
        unsigned int version; /* must be nvmlMemory_v2 */
        unsigned long long total;
        unsigned long long reserved;
        unsigned long long free;
        unsigned long long used;
} nvmlMemory_v2_t;

/* NVML_STRUCT_VERSION(Memory, 2): sizeof | 2 << 24. A bare 2 is rejected. */
#define nvmlMemory_v2 0x02000028u

typedef struct nvmlEventData_st {
        nvmlDevice_t device;
        unsigned long long eventType; /* one NVML_EVENT_* bit */
        unsigned long long eventData; /* the Xid for Xid events, else 0 (or the recovery action) */
        unsigned int gpuInstanceId;   /* NVML_INSTANCE_ID_NONE without MIG */
        unsigned int computeInstanceId; /* NVML_INSTANCE_ID_NONE without MIG */
} nvmlEventData_t;

typedef struct nvmlGpuThermalSettings_st {
        unsigned int count; /* valid entries of sensor[] */
        struct {
                int controller; /* nvmlThermalController_t */
                int defaultMinTemp;
                int defaultMaxTemp;
                int currentTemp; /* degrees C */
                int target;      /* nvmlThermalTarget_t */
        } sensor[NVML_MAX_THERMAL_SENSORS_PER_GPU];
} nvmlGpuThermalSettings_t;

/* One field of nvmlDeviceGetFieldValues: the caller sets fieldId (and scopeId); the
 * library fills the rest. nvmlReturn is the field's own answer (check it per field). */
typedef struct nvmlFieldValue_st {
        unsigned int fieldId;
        unsigned int scopeId;
        long long timestamp;   /* microseconds since 1970 */
        long long latencyUsec; /* how stale the value may be */
        int valueType;         /* NVML_VALUE_TYPE_* */
        int nvmlReturn;
        union {
                double dVal;
                int siVal;
                unsigned int uiVal;
                unsigned long ulVal;
                unsigned long long ullVal;
                signed long long sllVal;
        } value;
} nvmlFieldValue_t;

/* nvmlGpuFabricInfo_t (line 3813, nvmlDeviceGetGpuFabricInfo, R525+) and
 * nvmlGpuFabricInfo_v3_t, nvmlGpuFabricInfoV_t (line 3941, nvmlDeviceGetGpuFabricInfoV
 * with .version = nvmlGpuFabricInfo_v3; v2 lacks healthSummary). status is meaningful
 * only once state is COMPLETED. */
typedef struct nvmlGpuFabricInfo_st {
        unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
        nvmlReturn_t status;
        unsigned int cliqueId;
        unsigned char state; /* NVML_GPU_FABRIC_STATE_* */
} nvmlGpuFabricInfo_t;
typedef struct nvmlGpuFabricInfo_v3_st {
        unsigned int version; /* nvmlGpuFabricInfo_v3 */
        unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
        nvmlReturn_t status;
        unsigned int cliqueId;
        unsigned char state;
        unsigned int healthMask;     /* NVML_GPU_FABRIC_HEALTH_MASK_* fields */
        unsigned char healthSummary; /* 0 not supported, 1 healthy, 2 unhealthy, 3 limited */
} nvmlGpuFabricInfoV_t;
/* NVML_STRUCT_VERSION(GpuFabricInfo, 3) (line 141: sizeof | ver << 24). */
#define nvmlGpuFabricInfo_v3 ((unsigned int)(sizeof(nvmlGpuFabricInfoV_t) | 3u << 24))

/* The layouts the driver expects (x86_64; FACTS.md, checked against the real header). */
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t size");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "nvmlPciInfo_t.domain");
_Static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28, "nvmlPciInfo_t.pciDeviceId");
_Static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32, "nvmlPciInfo_t.pciSubSystemId");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t size");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t size");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t size");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "nvmlMemory_v2_t.total");
_Static_assert(offsetof(nvmlMemory_v2_t, used) == 32, "nvmlMemory_v2_t.used");
_Static_assert(nvmlMemory_v2 == (sizeof(nvmlMemory_v2_t) | 2u << 24), "nvmlMemory_v2 word");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t size");
_Static_assert(offsetof(nvmlEventData_t, eventType) == 8, "nvmlEventData_t.eventType");
_Static_assert(offsetof(nvmlEventData_t, eventData) == 16, "nvmlEventData_t.eventData");
_Static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24, "nvmlEventData_t.gpuInstanceId");
_Static_assert(offsetof(nvmlEventData_t, computeInstanceId) == 28, "nvmlEventData_t.ciId");
_Static_assert(sizeof(nvmlGpuThermalSettings_t) == 64, "nvmlGpuThermalSettings_t size");
_Static_assert(offsetof(nvmlGpuThermalSettings_t, sensor[1]) == 24, "thermal sensor[1]");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t size");
_Static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8, "nvmlFieldValue_t.timestamp");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvmlFieldValue_t.valueType");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "nvmlFieldValue_t.nvmlReturn");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value");

_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t size");
_Static_assert(offsetof(nvmlGpuFabricInfo_t, cliqueId) == 20, "nvmlGpuFabricInfo_t.cliqueId");
_Static_assert(sizeof(nvmlGpuFabricInfoV_t) == 40, "nvmlGpuFabricInfo_v3_t size");
_Static_assert(offsetof(nvmlGpuFabricInfoV_t, state) == 28, "nvmlGpuFabricInfo_v3_t.state");
_Static_assert(offsetof(nvmlGpuFabricInfoV_t, healthMask) == 32, "v3.healthMask");
_Static_assert(nvmlGpuFabricInfo_v3 == 0x03000028u, "nvmlGpuFabricInfo_v3 word");

/* ---- Function types ---------------------------------------------------------------
 * One pointer type per entry point, named after the symbol with _fn appended; the
 * collector resolves each with dlsym. Newest name first where there are two (FACTS.md):
 * nvmlInit_v2 -> nvmlInit, nvmlDeviceGetCount_v2 -> nvmlDeviceGetCount,
 * nvmlDeviceGetHandleByIndex_v2 -> nvmlDeviceGetHandleByIndex, nvmlDeviceGetPciInfo_v3
 * -> _v2, nvmlDeviceGetCurrentClocksEventReasons -> ...ThrottleReasons (R535 renamed it),
 * nvmlDeviceGetMemoryInfo_v2 -> nvmlDeviceGetMemoryInfo, nvmlDeviceGetFanSpeed_v2 ->
 * nvmlDeviceGetFanSpeed (fan 0 only). */

/* Library. */
typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlInit_fn)(void);
/* What NVIDIA's Python bindings call from nvmlInit() (flags 0; FACTS.md). */
typedef nvmlReturn_t (*nvmlInitWithFlags_fn)(unsigned int flags);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char *version, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int *deviceCount);
typedef nvmlReturn_t (*nvmlDeviceGetCount_fn)(unsigned int *deviceCount);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_fn)(unsigned int index, nvmlDevice_t *device);

/* Identity. Strings are NUL-terminated; a buffer too small gives INSUFFICIENT_SIZE. */
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v2_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t device, char *name, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t device, char *uuid, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetSerial_fn)(nvmlDevice_t device, char *serial,
                                               unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetVbiosVersion_fn)(nvmlDevice_t device, char *version,
                                                     unsigned int length);

/* Thermal. sensorType: NVML_TEMPERATURE_GPU; thresholdType: NVML_TEMPERATURE_THRESHOLD_*. */
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t device, int sensorType,
                                                    unsigned int *temp);
typedef nvmlReturn_t (*nvmlDeviceGetTemperatureThreshold_fn)(nvmlDevice_t device, int thresholdType,
                                                             unsigned int *temp);
typedef nvmlReturn_t (*nvmlDeviceGetThermalSettings_fn)(nvmlDevice_t device,
                                                        unsigned int sensorIndex,
                                                        nvmlGpuThermalSettings_t *settings);

/* Power: milliwatts; energy: millijoules since the driver was loaded. */
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t device, unsigned int *power);
typedef nvmlReturn_t (*nvmlDeviceGetPowerManagementLimit_fn)(nvmlDevice_t device,
                                                             unsigned int *limit);
typedef nvmlReturn_t (*nvmlDeviceGetEnforcedPowerLimit_fn)(nvmlDevice_t device,
                                                           unsigned int *limit);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEnergyConsumption_fn)(nvmlDevice_t device,
                                                               unsigned long long *energy);

/* Performance: pstate 0..15 or NVML_PSTATE_UNKNOWN; clocks in MHz; reasons a bit mask. */
typedef nvmlReturn_t (*nvmlDeviceGetPerformanceState_fn)(nvmlDevice_t device, int *pState);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t device, int type,
                                                  unsigned int *clock);
typedef nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons_fn)(
    nvmlDevice_t device, unsigned long long *clocksEventReasons);
typedef nvmlReturn_t (*nvmlDeviceGetCurrentClocksThrottleReasons_fn)(
    nvmlDevice_t device, unsigned long long *clocksThrottleReasons);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t device,
                                                         nvmlUtilization_t *utilization);

/* Memory, bytes. _v2 requires memory->version == nvmlMemory_v2. */
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_v2_fn)(nvmlDevice_t device, nvmlMemory_v2_t *memory);

/* PCIe link and its replay counter. */
typedef nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkGeneration_fn)(nvmlDevice_t device,
                                                               unsigned int *currLinkGen);
typedef nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkWidth_fn)(nvmlDevice_t device,
                                                          unsigned int *currLinkWidth);
/* The most the link can train to. nvml.h 13: nvmlDeviceGetMaxPcieLinkGeneration
 * (pkg/nvml/nvml.h:5513) is "the maximum PCIe link generation possible with this device
 * and system" (a gen-2 device on a gen-1 bus reports 1); nvmlDeviceGetGpuMaxPcieLinkGeneration
 * (:5531) the device's own maximum, whatever the slot. vigil compares the current link
 * with the first: a Gen5 GPU in a Gen4 slot is not degraded. nvmlDeviceGetMaxPcieLinkWidth
 * (:5552): "possible with this device and system" (x16 device in an x8 slot: 8). */
typedef nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkGeneration_fn)(nvmlDevice_t device,
                                                              unsigned int *maxLinkGen);
typedef nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkWidth_fn)(nvmlDevice_t device,
                                                         unsigned int *maxLinkWidth);
typedef nvmlReturn_t (*nvmlDeviceGetPcieReplayCounter_fn)(nvmlDevice_t device, unsigned int *value);

/* Fans: percent of the intended speed (may exceed 100); fan < nvmlDeviceGetNumFans. */
typedef nvmlReturn_t (*nvmlDeviceGetNumFans_fn)(nvmlDevice_t device, unsigned int *numFans);
typedef nvmlReturn_t (*nvmlDeviceGetFanSpeed_fn)(nvmlDevice_t device, unsigned int *speed);
typedef nvmlReturn_t (*nvmlDeviceGetFanSpeed_v2_fn)(nvmlDevice_t device, unsigned int fan,
                                                    unsigned int *speed);
typedef nvmlReturn_t (*nvmlDeviceGetTargetFanSpeed_fn)(nvmlDevice_t device, unsigned int fan,
                                                       unsigned int *targetSpeed);
typedef nvmlReturn_t (*nvmlDeviceGetFanControlPolicy_v2_fn)(nvmlDevice_t device, unsigned int fan,
                                                            nvmlFanControlPolicy_t *policy);

/* Memory errors. errorType: NVML_MEMORY_ERROR_TYPE_*; counterType: NVML_*_ECC. */
typedef nvmlReturn_t (*nvmlDeviceGetTotalEccErrors_fn)(nvmlDevice_t device, int errorType,
                                                       int counterType,
                                                       unsigned long long *eccCounts);
typedef nvmlReturn_t (*nvmlDeviceGetRemappedRows_fn)(nvmlDevice_t device, unsigned int *corrRows,
                                                     unsigned int *uncRows, unsigned int *isPending,
                                                     unsigned int *failureOccurred);

/* ECC mode, page retirement (GPUs without row remapping: Kepler to Turing) and
 * persistence mode, nvml.h 13 (pkg/nvml/nvml.h:6907 nvmlDeviceGetEccMode, :8377
 * nvmlDeviceGetRetiredPages: pageCount 0 asks only for the count, :8428
 * nvmlDeviceGetRetiredPagesPendingStatus, :5454 nvmlDeviceGetPersistenceMode). */
typedef nvmlReturn_t (*nvmlDeviceGetEccMode_fn)(nvmlDevice_t device, nvmlEnableState_t *current,
                                                nvmlEnableState_t *pending);
typedef nvmlReturn_t (*nvmlDeviceGetRetiredPages_fn)(nvmlDevice_t device,
                                                     nvmlPageRetirementCause_t cause,
                                                     unsigned int *pageCount,
                                                     unsigned long long *addresses);
typedef nvmlReturn_t (*nvmlDeviceGetRetiredPagesPendingStatus_fn)(nvmlDevice_t device,
                                                                  nvmlEnableState_t *isPending);
typedef nvmlReturn_t (*nvmlDeviceGetPersistenceMode_fn)(nvmlDevice_t device,
                                                        nvmlEnableState_t *mode);

/* Field values: fills values[0..valuesCount) for their fieldId; each has its own
 * nvmlReturn. */
typedef nvmlReturn_t (*nvmlDeviceGetFieldValues_fn)(nvmlDevice_t device, int valuesCount,
                                                    nvmlFieldValue_t *values);

/* NVLink (Pascal and later; NOT_SUPPORTED without NVLink, INVALID_ARGUMENT for a link
 * the GPU does not have): isActive an nvmlEnableState_t; counter NVML_NVLINK_ERROR_*. */
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkState_fn)(nvmlDevice_t device, unsigned int link,
                                                    int *isActive);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkErrorCounter_fn)(nvmlDevice_t device, unsigned int link,
                                                           int counter,
                                                           unsigned long long *counterValue);
/* The fabric (Hopper and later; NOT_SUPPORTED where the GPU has none). The V form needs
 * .version set; the plain one is deprecated from 13.0 (line 7829). */
typedef nvmlReturn_t (*nvmlDeviceGetGpuFabricInfoV_fn)(nvmlDevice_t device,
                                                       nvmlGpuFabricInfoV_t *gpuFabricInfo);
typedef nvmlReturn_t (*nvmlDeviceGetGpuFabricInfo_fn)(nvmlDevice_t device,
                                                      nvmlGpuFabricInfo_t *gpuFabricInfo);

/* Events. Wait returns TIMEOUT when nothing came (or it was interrupted) and may return
 * GPU_IS_LOST; RegisterEvents returning NOT_SUPPORTED registered nothing, and the set
 * stays usable. */
typedef nvmlReturn_t (*nvmlEventSetCreate_fn)(nvmlEventSet_t *set);
typedef nvmlReturn_t (*nvmlDeviceRegisterEvents_fn)(nvmlDevice_t device,
                                                    unsigned long long eventTypes,
                                                    nvmlEventSet_t set);
typedef nvmlReturn_t (*nvmlDeviceGetSupportedEventTypes_fn)(nvmlDevice_t device,
                                                            unsigned long long *eventTypes);
typedef nvmlReturn_t (*nvmlEventSetWait_v2_fn)(nvmlEventSet_t set, nvmlEventData_t *data,
                                               unsigned int timeoutms);
/* The name before nvmlEventSetWait_v2 (same arguments; older drivers fill only the
 * first three fields of the event data). */
typedef nvmlReturn_t (*nvmlEventSetWait_fn)(nvmlEventSet_t set, nvmlEventData_t *data,
                                            unsigned int timeoutms);
typedef nvmlReturn_t (*nvmlEventSetFree_fn)(nvmlEventSet_t set);

#endif
