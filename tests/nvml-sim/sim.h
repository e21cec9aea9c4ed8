/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML: internal state shared by its files (not exported).
 *
 * scenario.c  reads the scenario file into the state below (README.md: the format)
 * fields.c    the names and ranges of the fields a scenario sets
 * state.c     the state itself, timelines, nvmlInit/nvmlShutdown, the call log, stalls
 * api_device.c the exported device queries
 * api_fields.c nvmlDeviceGetFieldValues (the recovery action, the NVLink counters)
 * api_nvlink.c NVLink link state and error counters, the GPU fabric
 * events.c    event sets: create, register, wait, free
 *
 * Every exported function takes sim.lock; the event wait sleeps in poll(2), woken by
 * sim_wake_waiters() or a signal. */
#ifndef VIGIL_NVML_SIM_H
#define VIGIL_NVML_SIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/nvml_api.h"
#include "collect/nvml_procs.h"

#define SIM_API __attribute__((visibility("default")))

#define SIM_MAX_GPUS     256
#define SIM_MAX_FANS     8
#define SIM_MAX_SENSORS  NVML_MAX_THERMAL_SENSORS_PER_GPU
#define SIM_MAX_NVLINKS  18     /* NVML_NVLINK_MAX_LINKS of nvml.h 12.x */
#define SIM_MAX_OPS      100000 /* timeline entries in one scenario */
#define SIM_MAX_EVSETS   64
#define SIM_EVQ_CAP      4096      /* queued events per set; more are dropped */
#define SIM_SCENARIO_MAX (1 << 20) /* bytes */
#define SIM_MAX_PROCS    300       /* `proc` lines per GPU */

/* A link's fields: its state (nvmlEnableState_t), then its error counters in the order
 * of core/frame.h's enum nvlink_counter. */
enum {
        NVL_F_STATE,
        NVL_F_CRC_FLIT,
        NVL_F_CRC_DATA,
        NVL_F_REPLAY,
        NVL_F_RECOVERY,
        NVL_F_REC_EVENTS,
        NVL_F_REC_OK,
        NVL_F_REC_FAILED,
        NVL_F_SYMBOL,
        NVL_F_EFFECTIVE,
        SIM_NVL_FIELDS
};

/* Every value a scenario can give a GPU. Families are in NVML's own order. */
enum sim_field {
        F_TEMP,
        F_POWER,
        F_LIMIT,
        F_ENFORCED,
        F_ENERGY,
        F_PSTATE,
        F_CLK_GFX, /* + NVML_CLOCK_* */
        F_CLK_SM,
        F_CLK_MEM,
        F_CLK_VIDEO,
        F_UTIL_GPU,
        F_UTIL_MEM,
        F_VRAM_TOTAL,
        F_VRAM_USED,
        F_VRAM_RESERVED,
        F_PCIE_GEN,
        F_PCIE_WIDTH,
        F_REPLAY,
        F_REASONS,
        F_EVENTS,
        F_ECC_SBE_VOL,
        F_ECC_DBE_VOL,
        F_ECC_SBE_AGG,
        F_ECC_DBE_AGG,
        F_ROWS_CORR,
        F_ROWS_UNC,
        F_ROWS_PENDING,
        F_ROWS_FAILURE,
        F_SENSORS,
        F_RECOVERY, /* field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION */
        F_REGISTER, /* only its `fail` code: what nvmlDeviceRegisterEvents returns */
        F_ECC_MODE, /* api_depth.c: ECC mode current and pending, 1 enabled */
        F_ECC_PENDING,
        F_RETIRED_SBE, /* pages retired: multiple single-bit, double-bit errors */
        F_RETIRED_DBE,
        F_RETIRED_PENDING, /* 1: a page waits for a reset */
        F_PERSISTENCE,     /* 1: persistence mode enabled */
        F_PCIE_MAX_GEN,    /* nvmlDeviceGetMaxPcieLinkGeneration, ...Width */
        F_PCIE_MAX_WIDTH,
        F_THR0,                                           /* + NVML_TEMPERATURE_THRESHOLD_* */
        F_S0 = F_THR0 + NVML_TEMPERATURE_THRESHOLD_COUNT, /* + 5 * sensor + SENSOR_* */
        F_FAN0 = F_S0 + 5 * SIM_MAX_SENSORS,              /* + fan */
        F_TARGET0 = F_FAN0 + SIM_MAX_FANS,
        F_POLICY0 = F_TARGET0 + SIM_MAX_FANS,
        F_NVL0 = F_POLICY0 + SIM_MAX_FANS, /* + SIM_NVL_FIELDS * link + NVL_F_* */
        F_FABRIC_STATE = F_NVL0 + SIM_NVL_FIELDS * SIM_MAX_NVLINKS, /* nvmlGpuFabricInfo */
        F_FABRIC_STATUS,
        F_FABRIC_CLIQUE,
        F_FABRIC_HEALTH,
        F_COUNT
};
enum { SENSOR_CTRL, SENSOR_MIN, SENSOR_MAX, SENSOR_TEMP, SENSOR_TARGET };

struct sim_value {
        int64_t val;
        bool has;     /* given by the scenario; without it the call is NOT_SUPPORTED */
        int err;      /* nonzero: the call returns this code */
        bool ramping; /* val follows from -> to over [start, start + len] */
        int64_t from, to;
        uint64_t start, len;
};

enum sim_op_kind {
        OP_SET,
        OP_RAMP,
        OP_FAIL,
        OP_EVENT,
        OP_LOST,
        OP_RECOVERED,
        OP_STALL,
        OP_WAIT_ERROR
};

/* One timeline entry: at step `step`, do `kind`. */
struct sim_op {
        uint64_t step;
        uint32_t seq; /* file order, to keep same-step entries in order */
        uint8_t kind;
        int16_t field;
        int64_t val;  /* SET/RAMP: value; FAIL, WAIT_ERROR: code; EVENT: eventData; STALL: ms */
        uint64_t arg; /* RAMP: steps; EVENT, WAIT_ERROR: count */
        unsigned long long type; /* EVENT: NVML_EVENT_* */
};

/* A process on a GPU (`proc` line), running for steps [from, until). */
struct sim_proc {
        unsigned pid;
        bool graphics;          /* listed by ...GraphicsRunningProcesses_v3, else compute */
        unsigned long long mem; /* usedGpuMemory, bytes (NVML_VALUE_NOT_AVAILABLE_ULL: n/a) */
        uint64_t from, until;   /* until 0: to the end */
};

struct sim_gpu {
        unsigned index;
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE]; /* "" = not supported */
        char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
        unsigned domain, bus, device, pci_id, subsys;
        unsigned fans;
        struct sim_value v[F_COUNT];
        struct sim_op *ops; /* sorted by (step, seq) */
        size_t nops, next;  /* next: first entry not yet applied */
        uint64_t step;      /* samples taken so far */
        bool lost;
        bool stall_armed;
        unsigned stall_ms;
        struct sim_proc *procs; /* procs.c; NULL when none */
        unsigned nprocs;
        int procs_err; /* nonzero: both process calls return it (`proc_error`) */
};

struct sim_event {
        unsigned gpu;
        unsigned long long type, data;
};

struct sim_evset {
        struct sim_evset *next;
        unsigned long long mask[SIM_MAX_GPUS]; /* registered types per GPU */
        /* SIM_EVQ_CAP entries, malloc'd apart from the set: each entry is written before
         * it is read, so the pages of a queue that never fills are never touched and the
         * simulator adds no resident memory of its own to the process it is measured in. */
        struct sim_event *q;
        size_t head, len;
        uint64_t dropped;
        unsigned waiters;
        bool dead; /* freed (or the library shut down) while a thread waited on it */
};

/* A thread in an event wait. It sleeps in poll(2) on its own eventfd, so that a signal
 * sent to it ends the wait early, as NVML's does (nvml.h: the wait "can return before
 * specified timeout passes (e.g. when interrupt arrives)", with NVML_ERROR_TIMEOUT). */
struct sim_waiter {
        int fd;
        struct sim_waiter *next;
};

struct sim {
        pthread_mutex_t lock;
        struct sim_waiter *waiting; /* threads in an event wait (sim_wake_waiters) */
        unsigned refcount;          /* nvmlInit minus nvmlShutdown */
        bool loaded;
        char path[4096]; /* the scenario loaded */
        char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        int init_error; /* nonzero: nvmlInit returns it */
        struct sim_gpu gpu[SIM_MAX_GPUS];
        unsigned ngpus;
        struct sim_evset *sets;
        unsigned nsets;
        uint64_t wait_errors; /* event waits still to fail (wait_error) */
        int wait_error_code;  /* with this code */
        int log_fd;
};

extern struct sim sim;

/* fields.c: a field's scenario name into buf (at least 24 bytes); the field of a name
 * (-1 when unknown); the C type its call returns. */
enum sim_kind { SIM_K_U32, SIM_K_U64, SIM_K_I32 };
void sim_field_name(int field, char *buf, size_t n);
int sim_field_find(const char *s, size_t n);
enum sim_kind sim_field_kind(int field);

/* scenario.c: parse the file at path into s (GPUs, driver, timelines; step-0 entries
 * not yet applied). 0, or -1 with a one-line message "path:line: what" in err. */
int scenario_load(struct sim *s, const char *path, char *err, size_t errlen);
/* The same on text[0..len) (need not be NUL-terminated; not kept), name standing for
 * the file in messages: the pure parser, which the scenario fuzzer drives. */
int scenario_parse(struct sim *s, const char *text, size_t len, const char *name, char *err,
                   size_t errlen);
/* Release what scenario_load allocated and clear the GPUs. */
void scenario_clear(struct sim *s);

/* procs.c: a `proc N KEY=VALUE...` line's attributes (after the GPU), and
 * `proc_error N CODE`. 0, or -1 with err set. */
int sim_proc_add(struct sim_gpu *g, const char *attrs, size_t n, char *err, size_t errlen);

/* state.c. All of these run with sim.lock held. */
/* Apply g's timeline entries up to g->step (events reach the registered sets). */
void sim_apply_timeline(struct sim_gpu *g);
/* Append "fn\n" or "fn GPU\n" to $VIGIL_NVML_SIM_LOG when it is set. */
void sim_log(const char *fn, int gpu);
/* The GPU a handle names, or NULL. */
struct sim_gpu *sim_gpu_of(nvmlDevice_t dev);
/* Start a device call: lock, check initialisation and the handle, log fn, serve an
 * armed stall (sleeping unlocked), count a sample when `sample`, then refuse a lost
 * GPU. On NVML_SUCCESS the lock is held and *ret_gpu set; otherwise it is released. */
nvmlReturn_t sim_enter(nvmlDevice_t dev, const char *fn, bool sample, struct sim_gpu **ret_gpu);
void sim_leave(void);
/* Read a field: INVALID_ARGUMENT for a NULL out, its error code, NOT_SUPPORTED when the
 * scenario never gave it, else SUCCESS with *out set. */
nvmlReturn_t sim_get(const struct sim_gpu *g, int field, int64_t *out);
/* api_nvlink.c: field k (NVL_F_*) of link of g, with the codes the real NVLink calls give
 * (NOT_SUPPORTED for a GPU without links, INVALID_ARGUMENT for a link it lacks). */
nvmlReturn_t sim_nvlink_field(const struct sim_gpu *g, unsigned link, int k, int64_t *out);

/* events.c: deliver an event of g to every set that registered its type. */
void sim_events_fire(unsigned gpu, unsigned long long type, unsigned long long data,
                     uint64_t count);
/* Free every event set (at the last nvmlShutdown); sets with waiters are marked dead. */
void sim_events_release_all(void);
/* Wake every thread in an event wait to look again (an event, a loss, a shutdown);
 * sim.lock held. */
void sim_wake_waiters(void);

/* The exported entry points, declared with exactly the types of nvml_api.h so that a
 * definition that differs from the ABI does not compile. */
#define SIM_DECLARE(name) SIM_API __typeof__(*(name##_fn)0) name

SIM_DECLARE(nvmlInit_v2);
SIM_DECLARE(nvmlInit);
SIM_DECLARE(nvmlInitWithFlags);
SIM_DECLARE(nvmlShutdown);
SIM_DECLARE(nvmlErrorString);
SIM_DECLARE(nvmlSystemGetDriverVersion);
SIM_DECLARE(nvmlDeviceGetCount_v2);
SIM_DECLARE(nvmlDeviceGetCount);
SIM_DECLARE(nvmlDeviceGetHandleByIndex_v2);
SIM_DECLARE(nvmlDeviceGetHandleByIndex);
SIM_DECLARE(nvmlDeviceGetPciInfo_v2);
SIM_DECLARE(nvmlDeviceGetName);
SIM_DECLARE(nvmlDeviceGetUUID);
SIM_DECLARE(nvmlDeviceGetSerial);
SIM_DECLARE(nvmlDeviceGetVbiosVersion);
SIM_DECLARE(nvmlDeviceGetTemperature);
SIM_DECLARE(nvmlDeviceGetTemperatureThreshold);
SIM_DECLARE(nvmlDeviceGetPowerUsage);
SIM_DECLARE(nvmlDeviceGetPowerManagementLimit);
SIM_DECLARE(nvmlDeviceGetEnforcedPowerLimit);
SIM_DECLARE(nvmlDeviceGetTotalEnergyConsumption);
SIM_DECLARE(nvmlDeviceGetPerformanceState);
SIM_DECLARE(nvmlDeviceGetClockInfo);
SIM_DECLARE(nvmlDeviceGetCurrentClocksThrottleReasons);
SIM_DECLARE(nvmlDeviceGetUtilizationRates);
SIM_DECLARE(nvmlDeviceGetMemoryInfo);
SIM_DECLARE(nvmlDeviceGetCurrPcieLinkGeneration);
SIM_DECLARE(nvmlDeviceGetCurrPcieLinkWidth);
SIM_DECLARE(nvmlDeviceGetPcieReplayCounter);
SIM_DECLARE(nvmlDeviceGetFanSpeed);
SIM_DECLARE(nvmlDeviceGetTotalEccErrors);
SIM_DECLARE(nvmlDeviceGetRemappedRows);
SIM_DECLARE(nvmlDeviceGetEccMode);
SIM_DECLARE(nvmlDeviceGetRetiredPages);
SIM_DECLARE(nvmlDeviceGetRetiredPagesPendingStatus);
SIM_DECLARE(nvmlDeviceGetPersistenceMode);
SIM_DECLARE(nvmlDeviceGetMaxPcieLinkGeneration);
SIM_DECLARE(nvmlDeviceGetMaxPcieLinkWidth);
SIM_DECLARE(nvmlEventSetCreate);
SIM_DECLARE(nvmlDeviceRegisterEvents);
SIM_DECLARE(nvmlDeviceGetSupportedEventTypes);
SIM_DECLARE(nvmlEventSetWait_v2);
SIM_DECLARE(nvmlEventSetWait);
SIM_DECLARE(nvmlEventSetFree);
SIM_DECLARE(nvmlDeviceGetNvLinkState);
SIM_DECLARE(nvmlDeviceGetNvLinkErrorCounter);
SIM_DECLARE(nvmlDeviceGetGpuFabricInfo);
/* Names a driver older than the one modelled lacks (README.md: the old variant). */
#ifndef SIM_OLD_DRIVER
SIM_DECLARE(nvmlDeviceGetPciInfo_v3);
SIM_DECLARE(nvmlDeviceGetFieldValues);
SIM_DECLARE(nvmlDeviceGetCurrentClocksEventReasons);
SIM_DECLARE(nvmlDeviceGetMemoryInfo_v2);
SIM_DECLARE(nvmlDeviceGetNumFans);
SIM_DECLARE(nvmlDeviceGetFanSpeed_v2);
SIM_DECLARE(nvmlDeviceGetTargetFanSpeed);
SIM_DECLARE(nvmlDeviceGetFanControlPolicy_v2);
SIM_DECLARE(nvmlDeviceGetThermalSettings);
SIM_DECLARE(nvmlDeviceGetComputeRunningProcesses_v3);
SIM_DECLARE(nvmlDeviceGetGraphicsRunningProcesses_v3);
SIM_DECLARE(nvmlDeviceGetGpuFabricInfoV);
#endif

#endif
