/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's device queries: each returns the scenario's value for the
 * GPU's current step, in NVML's units, or the error the scenario gives the field. */
#include "sim.h"

#include <stdio.h>
#include <string.h>

/* One field into an unsigned int or unsigned long long. */
static nvmlReturn_t get_u32(nvmlDevice_t dev, const char *fn, bool sample, int field,
                            unsigned int *out)
{
        struct sim_gpu *g;
        int64_t v;
        nvmlReturn_t r = sim_enter(dev, fn, sample, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = sim_get(g, field, out ? &v : NULL);
        if (r == NVML_SUCCESS)
                *out = (unsigned int)v;
        sim_leave();
        return r;
}

static nvmlReturn_t get_u64(nvmlDevice_t dev, const char *fn, int field, unsigned long long *out)
{
        struct sim_gpu *g;
        int64_t v;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = sim_get(g, field, out ? &v : NULL);
        if (r == NVML_SUCCESS)
                *out = (unsigned long long)v;
        sim_leave();
        return r;
}

/* A field of an indexed family (clock, threshold, fan): INVALID_ARGUMENT past `count`. */
static nvmlReturn_t get_indexed(nvmlDevice_t dev, const char *fn, int base, long idx, long count,
                                bool per_fan, unsigned int *out)
{
        struct sim_gpu *g;
        int64_t v;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (per_fan && g->fans == 0)
                r = NVML_ERROR_NOT_SUPPORTED;
        else if (idx < 0 || idx >= (per_fan ? (long)g->fans : count) || !out)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else
                r = sim_get(g, base + (int)idx, &v);
        if (r == NVML_SUCCESS)
                *out = (unsigned int)v;
        sim_leave();
        return r;
}

/* ---- PCI ---------------------------------------------------------------------------- */

static nvmlReturn_t get_pci(nvmlDevice_t dev, const char *fn, nvmlPciInfo_t *pci)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (pci) {
                memset(pci, 0, sizeof(*pci));
                pci->domain = g->domain;
                pci->bus = g->bus;
                pci->device = g->device;
                pci->pciDeviceId = g->pci_id;
                pci->pciSubSystemId = g->subsys;
                snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0",
                         g->domain & 0xffff, g->bus, g->device);
                snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", g->domain, g->bus,
                         g->device);
        }
        sim_leave();
        return pci ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
        return get_pci(device, __func__, pci);
}

#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
        return get_pci(device, __func__, pci);
}
#endif

/* ---- Thermal ------------------------------------------------------------------------ */

/* The sample call: every call with a valid handle advances the GPU one step first. */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp)
{
        struct sim_gpu *g;
        int64_t v;
        nvmlReturn_t r = sim_enter(device, __func__, true, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = sensorType != NVML_TEMPERATURE_GPU ? NVML_ERROR_INVALID_ARGUMENT
                                               : sim_get(g, F_TEMP, temp ? &v : NULL);
        if (r == NVML_SUCCESS)
                *temp = (unsigned int)v;
        sim_leave();
        return r;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, int thresholdType,
                                               unsigned int *temp)
{
        return get_indexed(device, __func__, F_THR0, thresholdType,
                           NVML_TEMPERATURE_THRESHOLD_COUNT, false, temp);
}

#ifndef SIM_OLD_DRIVER
static int sensor_value(const struct sim_gpu *g, int field)
{
        int64_t v;
        return sim_get(g, field, &v) == NVML_SUCCESS ? (int)v : 0;
}

/* Every sensor the scenario gives (sensors=N, sK_*), whatever sensorIndex < 3 or
 * NVML_THERMAL_TARGET_ALL asks for. */
nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t device, unsigned int sensorIndex,
                                          nvmlGpuThermalSettings_t *settings)
{
        struct sim_gpu *g;
        int64_t n;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (!settings || (sensorIndex >= SIM_MAX_SENSORS && sensorIndex != NVML_THERMAL_TARGET_ALL))
                r = NVML_ERROR_INVALID_ARGUMENT;
        else
                r = sim_get(g, F_SENSORS, &n);
        if (r == NVML_SUCCESS) {
                memset(settings, 0, sizeof(*settings));
                settings->count = (unsigned int)(n < SIM_MAX_SENSORS ? n : SIM_MAX_SENSORS);
                for (unsigned s = 0; s < settings->count; s++) {
                        int base = F_S0 + 5 * (int)s;
                        settings->sensor[s].controller = sensor_value(g, base + SENSOR_CTRL);
                        settings->sensor[s].defaultMinTemp = sensor_value(g, base + SENSOR_MIN);
                        settings->sensor[s].defaultMaxTemp = sensor_value(g, base + SENSOR_MAX);
                        settings->sensor[s].currentTemp = sensor_value(g, base + SENSOR_TEMP);
                        settings->sensor[s].target = sensor_value(g, base + SENSOR_TARGET);
                }
        }
        sim_leave();
        return r;
}
#endif

/* ---- Power, performance, memory, PCIe --------------------------------------------- */

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
        return get_u32(device, __func__, false, F_POWER, power);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
        return get_u32(device, __func__, false, F_LIMIT, limit);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
        return get_u32(device, __func__, false, F_ENFORCED, limit);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
        return get_u64(device, __func__, F_ENERGY, energy);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int *pState)
{
        return get_u32(device, __func__, false, F_PSTATE, (unsigned int *)(void *)pState);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock)
{
        return get_indexed(device, __func__, F_CLK_GFX, type, NVML_CLOCK_COUNT, false, clock);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long *clocksThrottleReasons)
{
        return get_u64(device, __func__, F_REASONS, clocksThrottleReasons);
}

#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long *clocksEventReasons)
{
        return get_u64(device, __func__, F_REASONS, clocksEventReasons);
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
        struct sim_gpu *g;
        int64_t gpu, mem;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = sim_get(g, F_UTIL_GPU, utilization ? &gpu : NULL);
        if (r == NVML_SUCCESS)
                r = sim_get(g, F_UTIL_MEM, &mem);
        if (r == NVML_SUCCESS) {
                utilization->gpu = (unsigned int)gpu;
                utilization->memory = (unsigned int)mem;
        }
        sim_leave();
        return r;
}

/* vram_used is what v1 reports as used (it includes vram_reserved); v2 splits it. */
static nvmlReturn_t get_memory(struct sim_gpu *g, int64_t *total, int64_t *used, int64_t *resv)
{
        nvmlReturn_t r = sim_get(g, F_VRAM_TOTAL, total);
        if (r == NVML_SUCCESS)
                r = sim_get(g, F_VRAM_USED, used);
        if (r == NVML_SUCCESS && sim_get(g, F_VRAM_RESERVED, resv) != NVML_SUCCESS)
                *resv = 0;
        if (r == NVML_SUCCESS && *used > *total)
                *used = *total;
        if (r == NVML_SUCCESS && *resv > *used)
                *resv = *used;
        return r;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
        struct sim_gpu *g;
        int64_t total, used, resv;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = memory ? get_memory(g, &total, &used, &resv) : NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS) {
                memory->total = (unsigned long long)total;
                memory->used = (unsigned long long)used;
                memory->free = (unsigned long long)(total - used);
        }
        sim_leave();
        return r;
}

#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
        struct sim_gpu *g;
        int64_t total, used, resv;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (!memory)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else if (memory->version != nvmlMemory_v2)
                r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        else
                r = get_memory(g, &total, &used, &resv);
        if (r == NVML_SUCCESS) {
                memory->total = (unsigned long long)total;
                memory->reserved = (unsigned long long)resv;
                memory->used = (unsigned long long)(used - resv);
                memory->free = (unsigned long long)(total - used);
        }
        sim_leave();
        return r;
}
#endif

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
        return get_u32(device, __func__, false, F_PCIE_GEN, currLinkGen);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
        return get_u32(device, __func__, false, F_PCIE_WIDTH, currLinkWidth);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
        return get_u32(device, __func__, false, F_REPLAY, value);
}

/* ---- Fans ----------------------------------------------------------------------------- */

/* The old single-fan call: fan 0. */
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
        return get_indexed(device, __func__, F_FAN0, 0, 0, true, speed);
}

#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (numFans)
                *numFans = g->fans;
        sim_leave();
        return numFans ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
        return get_indexed(device, __func__, F_FAN0, (long)fan, 0, true, speed);
}

nvmlReturn_t nvmlDeviceGetTargetFanSpeed(nvmlDevice_t device, unsigned int fan,
                                         unsigned int *targetSpeed)
{
        return get_indexed(device, __func__, F_TARGET0, (long)fan, 0, true, targetSpeed);
}

nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan,
                                              nvmlFanControlPolicy_t *policy)
{
        return get_indexed(device, __func__, F_POLICY0, (long)fan, 0, true, policy);
}
#endif

/* ---- Memory errors ------------------------------------------------------------------ */

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                         unsigned long long *eccCounts)
{
        bool ok = (errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ||
                   errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED) &&
                  (counterType == NVML_VOLATILE_ECC || counterType == NVML_AGGREGATE_ECC);
        /* fields: sbe_vol, dbe_vol, sbe_agg, dbe_agg */
        int field = ok ? F_ECC_SBE_VOL + errorType + 2 * counterType : F_ECC_SBE_VOL;
        return get_u64(device, __func__, field, ok ? eccCounts : NULL);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
                                       unsigned int *uncRows, unsigned int *isPending,
                                       unsigned int *failureOccurred)
{
        unsigned int *out[4] = {corrRows, uncRows, isPending, failureOccurred};
        int64_t v[4];
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        for (int i = 0; i < 4 && r == NVML_SUCCESS; i++)
                r = sim_get(g, F_ROWS_CORR + i, out[i] ? &v[i] : NULL);
        for (int i = 0; i < 4 && r == NVML_SUCCESS; i++)
                *out[i] = (unsigned int)v[i];
        sim_leave();
        return r;
}
