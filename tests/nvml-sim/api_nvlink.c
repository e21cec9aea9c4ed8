/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's NVLink and fabric calls (nvml.h 13.3, collect/nvml_api.h):
 *   nvmlDeviceGetNvLinkState: `nvlL_state` (1 active, 0 inactive). A GPU whose scenario
 *     gives no link answers NOT_SUPPORTED, as one without NVLink does; a link it does
 *     not give, INVALID_ARGUMENT, as a link the GPU lacks does.
 *   nvmlDeviceGetNvLinkErrorCounter: NVML_NVLINK_ERROR_DL_REPLAY, _RECOVERY, _CRC_FLIT,
 *     _CRC_DATA from `nvlL_replay`, `nvlL_recovery`, `nvlL_crc_flit`, `nvlL_crc_data`.
 *   nvmlDeviceGetGpuFabricInfoV (v3 only; another version word: ARGUMENT_VERSION_MISMATCH)
 *     and nvmlDeviceGetGpuFabricInfo: `fabric_state`, `fabric_status`, `fabric_clique`,
 *     `fabric_health` (V only); without `fabric_state`, NOT_SUPPORTED. The old driver
 *     lacks the V call.
 * Each field's `fail` code is the call's answer. */
#include "sim.h"

#include <string.h>

/* Whether the scenario gives GPU g any link. */
static bool has_nvlink(const struct sim_gpu *g)
{
        for (int l = 0; l < SIM_MAX_NVLINKS; l++) {
                const struct sim_value *v = &g->v[F_NVL0 + SIM_NVL_FIELDS * l + NVL_F_STATE];
                if (v->has || v->err)
                        return true;
        }
        return false;
}

/* Field k of link l of g into *out, with the codes the real calls give. */
static nvmlReturn_t link_get(const struct sim_gpu *g, unsigned l, int k, int64_t *out)
{
        if (!has_nvlink(g))
                return NVML_ERROR_NOT_SUPPORTED;
        if (l >= SIM_MAX_NVLINKS)
                return NVML_ERROR_INVALID_ARGUMENT;
        const struct sim_value *st = &g->v[F_NVL0 + SIM_NVL_FIELDS * (int)l + NVL_F_STATE];
        if (!st->has && !st->err)
                return NVML_ERROR_INVALID_ARGUMENT;
        return sim_get(g, F_NVL0 + SIM_NVL_FIELDS * (int)l + k, out);
}

nvmlReturn_t sim_nvlink_field(const struct sim_gpu *g, unsigned link, int k, int64_t *out)
{
        return link_get(g, link, k, out);
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int *isActive)
{
        struct sim_gpu *g;
        int64_t v = 0;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = isActive ? link_get(g, link, NVL_F_STATE, &v) : NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS)
                *isActive = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        sim_leave();
        return r;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, int counter,
                                             unsigned long long *counterValue)
{
        static const int fields[] = {
            [NVML_NVLINK_ERROR_DL_REPLAY] = NVL_F_REPLAY,
            [NVML_NVLINK_ERROR_DL_RECOVERY] = NVL_F_RECOVERY,
            [NVML_NVLINK_ERROR_DL_CRC_FLIT] = NVL_F_CRC_FLIT,
            [NVML_NVLINK_ERROR_DL_CRC_DATA] = NVL_F_CRC_DATA,
        };
        struct sim_gpu *g;
        int64_t v = 0;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (!counterValue || counter < 0 || counter >= (int)(sizeof(fields) / sizeof(fields[0])))
                r = NVML_ERROR_INVALID_ARGUMENT;
        else
                r = link_get(g, link, fields[counter], &v);
        if (r == NVML_SUCCESS)
                *counterValue = (unsigned long long)v;
        sim_leave();
        return r;
}

/* The fabric's state, status and clique into the caller's fields; *health when asked. */
static nvmlReturn_t fabric_get(const struct sim_gpu *g, unsigned char *state, nvmlReturn_t *status,
                               unsigned int *clique, unsigned int *health)
{
        int64_t st, x;
        nvmlReturn_t r = sim_get(g, F_FABRIC_STATE, &st);
        if (r != NVML_SUCCESS)
                return r;
        *state = (unsigned char)st;
        *status = sim_get(g, F_FABRIC_STATUS, &x) == NVML_SUCCESS ? (nvmlReturn_t)x : 0;
        *clique = sim_get(g, F_FABRIC_CLIQUE, &x) == NVML_SUCCESS ? (unsigned int)x : 0;
        if (health)
                *health = sim_get(g, F_FABRIC_HEALTH, &x) == NVML_SUCCESS ? (unsigned int)x : 0;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (!gpuFabricInfo) {
                r = NVML_ERROR_INVALID_ARGUMENT;
        } else {
                memset(gpuFabricInfo, 0, sizeof(*gpuFabricInfo));
                r = fabric_get(g, &gpuFabricInfo->state, &gpuFabricInfo->status,
                               &gpuFabricInfo->cliqueId, NULL);
        }
        sim_leave();
        return r;
}

#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (!gpuFabricInfo) {
                r = NVML_ERROR_INVALID_ARGUMENT;
        } else if (gpuFabricInfo->version != nvmlGpuFabricInfo_v3) {
                r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
                unsigned int version = gpuFabricInfo->version;
                memset(gpuFabricInfo, 0, sizeof(*gpuFabricInfo));
                gpuFabricInfo->version = version;
                r = fabric_get(g, &gpuFabricInfo->state, &gpuFabricInfo->status,
                               &gpuFabricInfo->cliqueId, &gpuFabricInfo->healthMask);
        }
        sim_leave();
        return r;
}
#endif
