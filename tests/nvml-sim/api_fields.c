/* The simulated NVML's field values (nvmlDeviceGetFieldValues): the ECC mode (1, 2:
 * `ecc_mode`, `ecc_pending`), the volatile ECC totals (3, 4: `ecc_sbe_vol`, `ecc_dbe_vol`),
 * the aggregate ones (5, 6: `ecc_sbe_agg`, `ecc_dbe_agg`), the retired pages (29-31:
 * `retired_sbe`, `retired_dbe`, `retired_pending`), the PCIe replay counter (94: `replay`), the
 * remapped rows (142-145: `rows_corr`, `rows_unc`, `rows_pending`, `rows_failure`) and
 * the GPU recovery action (230: `recovery_action`), each with the scenario field's value
 * or error; any other field id answers NOT_SUPPORTED in its own nvmlReturn. The old
 * driver lacks the call. */
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

static void fill(const struct sim_gpu *g, nvmlFieldValue_t *v, long long ts)
{
        int64_t x = 0;
        size_t i = 0;
        v->timestamp = ts;
        v->latencyUsec = 0;
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
