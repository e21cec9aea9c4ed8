/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's memory depth and link maximum: the ECC mode, page retirement,
 * persistence mode and the PCIe link's maximum (nvml_api.h cites nvml.h for each), from
 * the scenario fields `ecc_mode` `ecc_pending` `retired_sbe` `retired_dbe`
 * `retired_pending` `persistence` `pcie_max_gen` `pcie_max_width`. A field the scenario
 * never sets answers NOT_SUPPORTED, as on a GPU without the feature. */
#include "sim.h"

/* Fields [first, first + n) of the GPU into out[]; out NULL: INVALID_ARGUMENT, unless a
 * field's error comes first. */
static nvmlReturn_t get_fields(nvmlDevice_t dev, const char *fn, int first, int n, int64_t *out)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        for (int i = 0; i < n && r == NVML_SUCCESS; i++)
                r = sim_get(g, first + i, out ? &out[i] : NULL);
        sim_leave();
        return r;
}

static nvmlReturn_t get_state(nvmlDevice_t dev, const char *fn, int field, nvmlEnableState_t *out)
{
        int64_t v;
        nvmlReturn_t r = get_fields(dev, fn, field, 1, out ? &v : NULL);
        if (r == NVML_SUCCESS)
                *out = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        return r;
}

static nvmlReturn_t get_uint(nvmlDevice_t dev, const char *fn, int field, unsigned int *out)
{
        int64_t v;
        nvmlReturn_t r = get_fields(dev, fn, field, 1, out ? &v : NULL);
        if (r == NVML_SUCCESS)
                *out = (unsigned int)v;
        return r;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                  nvmlEnableState_t *pending)
{
        int64_t v[2];
        nvmlReturn_t r = get_fields(device, __func__, F_ECC_MODE, 2, current && pending ? v : NULL);
        if (r == NVML_SUCCESS) {
                *current = v[0] ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
                *pending = v[1] ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        }
        return r;
}

/* pageCount in: the room in addresses; out: the pages of cause. The simulated pages'
 * addresses are 0x1000 apart; too little room answers INSUFFICIENT_SIZE with the count,
 * as nvml.h says. */
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int *pageCount, unsigned long long *addresses)
{
        int64_t v;
        if (cause != NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS &&
            cause != NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
                return get_fields(device, __func__, F_RETIRED_SBE, 1, NULL);
        nvmlReturn_t r =
            get_fields(device, __func__, F_RETIRED_SBE + (int)cause, 1, pageCount ? &v : NULL);
        if (r != NVML_SUCCESS)
                return r;
        unsigned int room = *pageCount;
        *pageCount = (unsigned int)v;
        if (room < (unsigned int)v)
                return NVML_ERROR_INSUFFICIENT_SIZE;
        if (!addresses && v > 0)
                return NVML_ERROR_INVALID_ARGUMENT;
        for (unsigned int i = 0; i < (unsigned int)v; i++)
                addresses[i] = 0x1000ull * (i + 1);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                    nvmlEnableState_t *isPending)
{
        return get_state(device, __func__, F_RETIRED_PENDING, isPending);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
        return get_state(device, __func__, F_PERSISTENCE, mode);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
        return get_uint(device, __func__, F_PCIE_MAX_GEN, maxLinkGen);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
        return get_uint(device, __func__, F_PCIE_MAX_WIDTH, maxLinkWidth);
}
