/* The simulated NVML's field values (nvmlDeviceGetFieldValues): the GPU recovery action
 * (field 230, scenario field `recovery_action`); any other field id answers
 * NOT_SUPPORTED in its own nvmlReturn. The old driver lacks the call. */
#include "sim.h"

#include <time.h>

#ifndef SIM_OLD_DRIVER
static long long now_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void fill(const struct sim_gpu *g, nvmlFieldValue_t *v, long long ts)
{
        int64_t x = 0;
        v->timestamp = ts;
        v->latencyUsec = 0;
        if (v->fieldId != NVML_FI_DEV_GET_GPU_RECOVERY_ACTION) {
                v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                return;
        }
        v->nvmlReturn = sim_get(g, F_RECOVERY, &x);
        if (v->nvmlReturn == NVML_SUCCESS) {
                v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
                v->value.uiVal = (unsigned int)x;
        }
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
