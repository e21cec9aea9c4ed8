/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's field values (nvmlDeviceGetFieldValues): the ECC mode (1, 2:
 * `ecc_mode`, `ecc_pending`), the volatile ECC totals (3, 4: `ecc_sbe_vol`, `ecc_dbe_vol`),
 * the aggregate ones (5, 6: `ecc_sbe_agg`, `ecc_dbe_agg`), the retired pages (29-31:
 * `retired_sbe`, `retired_dbe`, `retired_pending`), the PCIe replay counter (94: `replay`), the
 * remapped rows (142-145: `rows_corr`, `rows_unc`, `rows_pending`, `rows_failure`) and
 * the GPU recovery action (230: `recovery_action`), each with the scenario field's value
 * or error; the NVLink error counters of the link in scopeId (38, 45, 52, 59: `nvlL_crc_flit`,
 * `nvlL_crc_data`, `nvlL_replay`, `nvlL_recovery`; NVLink5's 215, 213, 214, 221, 219:
 * `nvlL_rec_events`, `nvlL_rec_ok`, `nvlL_rec_failed`, `nvlL_symbol`, `nvlL_effective`),
 * with api_nvlink.c's codes; any other field id answers NOT_SUPPORTED in its own
 * nvmlReturn. The old driver lacks the call. */
#include "sim.h"

#include <time.h>

#ifndef SIM_OLD_DRIVER
static long long now_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The field ids the simulator answers, the scenario field behind each and the type it
 * comes in (ids: nvml_api.h). */
static const struct {
        unsigned id;
        int field;
        int type;
} served[] = {
    {NVML_FI_DEV_ECC_SBE_VOL_TOTAL, F_ECC_SBE_VOL, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_ECC_DBE_VOL_TOTAL, F_ECC_DBE_VOL, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_PCIE_REPLAY_COUNTER, F_REPLAY, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_COR, F_ROWS_CORR, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_UNC, F_ROWS_UNC, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_PENDING, F_ROWS_PENDING, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_REMAPPED_FAILURE, F_ROWS_FAILURE, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, F_RECOVERY, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ECC_CURRENT, F_ECC_MODE, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ECC_PENDING, F_ECC_PENDING, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_ECC_SBE_AGG_TOTAL, F_ECC_SBE_AGG, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_ECC_DBE_AGG_TOTAL, F_ECC_DBE_AGG, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
    {NVML_FI_DEV_RETIRED_SBE, F_RETIRED_SBE, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_RETIRED_DBE, F_RETIRED_DBE, NVML_VALUE_TYPE_UNSIGNED_INT},
    {NVML_FI_DEV_RETIRED_PENDING, F_RETIRED_PENDING, NVML_VALUE_TYPE_UNSIGNED_INT},
};

/* The per-link NVLink counters, by field id (the link in scopeId). */
static const struct {
        unsigned id;
        int k;
} link_served[] = {
    {NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, NVL_F_CRC_FLIT},
    {NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, NVL_F_CRC_DATA},
    {NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, NVL_F_REPLAY},
    {NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, NVL_F_RECOVERY},
    {NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS, NVL_F_REC_EVENTS},
    {NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS, NVL_F_REC_OK},
    {NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS, NVL_F_REC_FAILED},
    {NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, NVL_F_SYMBOL},
    {NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS, NVL_F_EFFECTIVE},
};

/* A per-link field into v; false when v's id is not one. */
static bool fill_link(const struct sim_gpu *g, nvmlFieldValue_t *v)
{
        int64_t x = 0;
        for (size_t i = 0; i < sizeof(link_served) / sizeof(link_served[0]); i++) {
                if (link_served[i].id != v->fieldId)
                        continue;
                v->nvmlReturn = sim_nvlink_field(g, v->scopeId, link_served[i].k, &x);
                if (v->nvmlReturn == NVML_SUCCESS) {
                        v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                        v->value.ullVal = (unsigned long long)x;
                }
                return true;
        }
        return false;
}

static void fill(const struct sim_gpu *g, nvmlFieldValue_t *v, long long ts)
{
        int64_t x = 0;
        size_t i = 0;
        v->timestamp = ts;
        v->latencyUsec = 0;
        if (fill_link(g, v))
                return;
        while (i < sizeof(served) / sizeof(served[0]) && served[i].id != v->fieldId)
                i++;
        if (i == sizeof(served) / sizeof(served[0])) {
                v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                return;
        }
        v->nvmlReturn = sim_get(g, served[i].field, &x);
        if (v->nvmlReturn != NVML_SUCCESS)
                return;
        v->valueType = served[i].type;
        if (served[i].type == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
                v->value.ullVal = (unsigned long long)x;
        else
                v->value.uiVal = (unsigned int)x;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t *values)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        if (valuesCount < 0 || (valuesCount > 0 && !values)) {
                sim_leave();
                return NVML_ERROR_INVALID_ARGUMENT;
        }
        long long ts = now_us();
        for (int i = 0; i < valuesCount; i++)
                fill(g, &values[i], ts);
        sim_leave();
        return NVML_SUCCESS;
}
#endif
