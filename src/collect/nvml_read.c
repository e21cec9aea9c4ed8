/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a GPU through NVML. See nvml_read.h. What one sample reads, in the
 * reference logger's order (values as NVML gives them):
 *   temperature 45 C, power 85000 mW, limit 600000 mW, P8, clocks 1200/9000 MHz,
 *   utilisation 10/5 %, memory used 1073741824 B, PCIe gen 5 x16, reasons 0x1, fan0
 *   30 % (target 30 %), thermal sensor 0 45 C, then vigil's additions on the mid
 *   cadence: SM clock, video clock; and on the slow cadence only: enforced limit,
 *   energy 1000000 mJ, replays, ECC, remapped rows, the NVLink links' error counters
 *   (with the others in one field-values call) and states, the fabric, temperature
 *   thresholds. */
#include "collect/nvml_read.h"

#include <string.h>

#include "core/frame_fields.h"
#include "util/hot.h"

struct reader {
        const struct nvml_lib *lib;
        struct nvml_gpu *gpu;
        struct nvml_read_result *res;
        unsigned what; /* NVML_READ_* */
};

VIGIL_HOT bool nvml_fatal(nvmlReturn_t r)
{
        return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_UNINITIALIZED ||
               r == NVML_ERROR_DRIVER_NOT_LOADED || r == NVML_ERROR_RESET_REQUIRED ||
               r == NVML_ERROR_GPU_NOT_FOUND || r == NVML_ERROR_LIB_RM_VERSION_MISMATCH;
}

/* Codes that will not change while vigil runs: ask once. */
static bool permanent(nvmlReturn_t r)
{
        return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_NO_PERMISSION ||
               r == NVML_ERROR_FUNCTION_NOT_FOUND;
}

/* Whether to make the call for field: the library has it, the GPU has not refused it,
 * and the GPU has not been found gone in this sample. */
static bool want(const struct reader *rd, unsigned field, bool have_fn)
{
        return have_fn && !rd->res->fatal && !(rd->gpu->unsupported & (1ULL << field));
}

/* Record what a call returned; true when its value may be used. */
VIGIL_HOT static bool got(struct reader *rd, unsigned field, nvmlReturn_t r)
{
        struct nvml_read_result *res = rd->res;
        res->asked++;
        if (r == NVML_SUCCESS) {
                rd->gpu->refused[field] = 0;
                res->answered++;
                return true;
        }
        if (permanent(r)) {
                if (field != NF_TEMP && rd->gpu->refused[field] < NVML_RETIRE_AFTER &&
                    ++rd->gpu->refused[field] >= NVML_RETIRE_AFTER)
                        rd->gpu->unsupported |= 1ULL << field;
                res->answered++;
                return false;
        }
        if (nvml_fatal(r))
                res->fatal = r;
        else if (!res->first_error)
                res->first_error = r;
        return false;
}

VIGIL_HOT static void read_u32(struct reader *rd, unsigned field,
                               nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *), double scale,
                               double *dst)
{
        unsigned int v;
        if (want(rd, field, fn != NULL) && got(rd, field, fn(rd->gpu->handle, &v)))
                *dst = (double)v / scale;
}

VIGIL_HOT static void read_clock(struct reader *rd, unsigned field, int type, double *dst)
{
        unsigned int v;
        const struct nvml_lib *lib = rd->lib;
        if (want(rd, field, lib->clock_info) &&
            got(rd, field, lib->clock_info(rd->gpu->handle, type, &v)))
                *dst = v;
}

static void read_thermal(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        nvmlDevice_t h = rd->gpu->handle;
        unsigned int t;
        if (want(rd, NF_TEMP, lib->temperature) &&
            got(rd, NF_TEMP, lib->temperature(h, NVML_TEMPERATURE_GPU, &t)))
                g->temp_c = t;
}

static void read_power(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        read_u32(rd, NF_POWER, lib->power_usage, 1000.0, &g->power_w);
        read_u32(rd, NF_LIMIT, lib->power_limit, 1000.0, &g->power_limit_w);
}

static void read_perf(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        int p;
        nvmlUtilization_t u;
        if (want(rd, NF_PSTATE, lib->pstate) &&
            got(rd, NF_PSTATE, lib->pstate(rd->gpu->handle, &p)) && p >= 0 && p <= 15)
                g->pstate = p;
        read_clock(rd, NF_CLK_GFX, NVML_CLOCK_GRAPHICS, &g->gpu_clock_mhz);
        read_clock(rd, NF_CLK_MEM, NVML_CLOCK_MEM, &g->mem_clock_mhz);
        if (want(rd, NF_UTIL, lib->utilization) &&
            got(rd, NF_UTIL, lib->utilization(rd->gpu->handle, &u))) {
                g->util_gpu_pct = u.gpu;
                g->util_mem_pct = u.memory;
        }
}

/* nvmlDeviceGetMemoryInfo_v2 with its version word; v1 when the driver refuses it.
 * vram_used_bytes keeps the reference's meaning, NVML v1 `used`, which includes what the
 * driver reserves (FACTS.md; NVIDIA's Python bindings call v1 by default): from v2 that
 * is used + reserved, one call for both. */
static void read_memory(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        struct nvml_gpu *gpu = rd->gpu;
        if (lib->memory_v2 && !gpu->memory_v1 && want(rd, NF_MEMORY, true)) {
                nvmlMemory_v2_t m;
                memset(&m, 0, sizeof(m));
                m.version = nvmlMemory_v2;
                nvmlReturn_t r = lib->memory_v2(gpu->handle, &m);
                if (r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH && !permanent(r)) {
                        if (got(rd, NF_MEMORY, r)) {
                                g->vram_used_bytes = (double)m.used + (double)m.reserved;
                                g->vram_reserved_bytes = (double)m.reserved;
                                g->vram_total_bytes = (double)m.total;
                        }
                        return;
                }
                gpu->memory_v1 = true;
        }
        nvmlMemory_t m1;
        if (want(rd, NF_MEMORY, lib->memory_v1) &&
            got(rd, NF_MEMORY, lib->memory_v1(gpu->handle, &m1))) {
                g->vram_used_bytes = (double)m1.used;
                g->vram_total_bytes = (double)m1.total;
        }
}

static void read_pcie_reasons(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        unsigned long long mask;
        read_u32(rd, NF_PCIE_GEN, lib->pcie_gen, 1.0, &g->pcie_gen);
        read_u32(rd, NF_PCIE_WIDTH, lib->pcie_width, 1.0, &g->pcie_width);
        if (want(rd, NF_REASONS, lib->clock_reasons) &&
            got(rd, NF_REASONS, lib->clock_reasons(rd->gpu->handle, &mask))) {
                g->throttle_mask = mask;
                g->throttle_valid = true;
        }
}

static void read_fans(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        struct nvml_gpu *gpu = rd->gpu;
        unsigned int v;
        g->nfans = gpu->nfans;
        for (unsigned i = 0; i < gpu->nfans; i++) {
                unsigned fs = NF_FAN0 + i, ft = NF_TARGET0 + i;
                if (gpu->legacy_fan) {
                        if (want(rd, fs, lib->fan_speed) &&
                            got(rd, fs, lib->fan_speed(gpu->handle, &v)))
                                g->fan_speed_pct[i] = v;
                } else if (want(rd, fs, lib->fan_speed_v2) &&
                           got(rd, fs, lib->fan_speed_v2(gpu->handle, i, &v))) {
                        g->fan_speed_pct[i] = v;
                }
                if (want(rd, ft, lib->target_fan_speed) &&
                    got(rd, ft, lib->target_fan_speed(gpu->handle, i, &v)))
                        g->fan_target_pct[i] = v;
        }
}

static void read_sensor0(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        nvmlGpuThermalSettings_t ts;
        if (!want(rd, NF_THERMAL, lib->thermal_settings))
                return;
        memset(&ts, 0, sizeof(ts));
        if (got(rd, NF_THERMAL, lib->thermal_settings(rd->gpu->handle, 0, &ts)) && ts.count >= 1) {
                g->s0_temp = ts.sensor[0].currentTemp;
                g->s0_target = ts.sensor[0].target;
                g->s0_controller = ts.sensor[0].controller;
        }
}

/* vigil's additions to the reference's fields that change from sample to sample, on
 * the mid cadence. */
static void read_extra(struct reader *rd, struct gpu_frame *g)
{
        if (!(rd->what & NVML_READ_MID))
                return;
        read_clock(rd, NF_CLK_SM, NVML_CLOCK_SM, &g->sm_clock_mhz);
        read_clock(rd, NF_CLK_VIDEO, NVML_CLOCK_VIDEO, &g->video_clock_mhz);
}

VIGIL_HOT static double read_threshold(const struct nvml_lib *lib, nvmlDevice_t h, int type,
                                       nvmlReturn_t *fatal);

/* The temperature thresholds, kept when the GPU is found gone meanwhile. */
static void read_thresholds(struct reader *rd)
{
        const struct nvml_lib *lib = rd->lib;
        struct nvml_gpu *gpu = rd->gpu;
        nvmlReturn_t fatal = rd->res->fatal;
        double shutdown =
            read_threshold(lib, gpu->handle, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &fatal);
        double slowdown =
            read_threshold(lib, gpu->handle, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &fatal);
        double gpu_max =
            read_threshold(lib, gpu->handle, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &fatal);
        if (fatal) {
                rd->res->fatal = fatal;
                return;
        }
        gpu->shutdown_c = shutdown;
        gpu->slowdown_c = slowdown;
        gpu->gpu_max_c = gpu_max;
}

/* The slow counters that have a field id, in one nvmlDeviceGetFieldValues call, with
 * the recovery action (nvml_api.h cites the ids). */
enum slow_field {
        SF_SBE,
        SF_DBE,
        SF_REPLAY,
        SF_RCOR,
        SF_RUNC,
        SF_RPEND,
        SF_RFAIL,
        SF_ACTION,
        SF_ECC_CUR,
        SF_ECC_PEND,
        SF_SBE_AGG,
        SF_DBE_AGG,
        SF_RET_SBE,
        SF_RET_DBE,
        SF_RET_PEND,
        SF_N
};
static const unsigned slow_field_ids[SF_N] = {
    NVML_FI_DEV_ECC_SBE_VOL_TOTAL,   NVML_FI_DEV_ECC_DBE_VOL_TOTAL,
    NVML_FI_DEV_PCIE_REPLAY_COUNTER, NVML_FI_DEV_REMAPPED_COR,
    NVML_FI_DEV_REMAPPED_UNC,        NVML_FI_DEV_REMAPPED_PENDING,
    NVML_FI_DEV_REMAPPED_FAILURE,    NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
    NVML_FI_DEV_ECC_CURRENT,         NVML_FI_DEV_ECC_PENDING,
    NVML_FI_DEV_ECC_SBE_AGG_TOTAL,   NVML_FI_DEV_ECC_DBE_AGG_TOTAL,
    NVML_FI_DEV_RETIRED_SBE,         NVML_FI_DEV_RETIRED_DBE,
    NVML_FI_DEV_RETIRED_PENDING,
};
#define SF_ROWS ((1u << SF_RCOR) | (1u << SF_RUNC) | (1u << SF_RPEND) | (1u << SF_RFAIL))

/* A field's value as a number; false for a type NVML does not define. */
VIGIL_HOT static bool field_number(const nvmlFieldValue_t *v, double *ret)
{
        switch (v->valueType) {
        case NVML_VALUE_TYPE_DOUBLE:
                *ret = v->value.dVal;
                return true;
        case NVML_VALUE_TYPE_UNSIGNED_INT:
                *ret = v->value.uiVal;
                return true;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
                *ret = (double)v->value.ullVal;
                return true;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
                *ret = (double)v->value.sllVal;
                return true;
        case NVML_VALUE_TYPE_SIGNED_INT:
                *ret = v->value.siVal;
                return true;
        default:
                return false;
        }
}

/* The NVLink error counters in the same call, one field per counter per link found, the
 * link in scopeId (nvml_api.h cites the ids), in enum nvlink_counter's order. */
static const unsigned nvlink_field_ids[NVLINK_COUNTERS] = {
    [NVL_CRC_FLIT] = NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL,
    [NVL_CRC_DATA] = NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
    [NVL_REPLAY] = NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL,
    [NVL_RECOVERY] = NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL,
    [NVL_RECOVERY_EVENTS] = NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS,
    [NVL_RECOVERY_SUCCESSFUL] = NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS,
    [NVL_RECOVERY_FAILED] = NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS,
    [NVL_SYMBOL] = NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS,
    [NVL_EFFECTIVE] = NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS,
};
#define SLOW_VALUES_MAX (SF_N + VIGIL_MAX_NVLINKS * NVLINK_COUNTERS)

/* One call for the fields of slow_field_ids into out[] (a bit per field that answered,
 * returned) and the NVLink counters of the links in gpu->nvlink_mask into g (missing
 * where a counter did not answer). The call refused for good (NOT_SUPPORTED and the
 * like) is not made again until the identity is read anew. */
VIGIL_HOT static unsigned read_slow_fields(struct reader *rd, double out[SF_N], struct gpu_frame *g)
{
        struct nvml_gpu *gpu = rd->gpu;
        nvmlFieldValue_t v[SLOW_VALUES_MAX];
        unsigned char link_of[SLOW_VALUES_MAX]; /* not the driver's scopeId: ours */
        unsigned mask = 0, n = SF_N;
        if (!rd->lib->field_values || gpu->fields_off || rd->res->fatal)
                return 0;
        memset(v, 0, sizeof(v));
        for (unsigned i = 0; i < SF_N; i++)
                v[i].fieldId = slow_field_ids[i];
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS; l++)
                for (unsigned c = 0; (gpu->nvlink_mask >> l & 1) && c < NVLINK_COUNTERS; c++) {
                        v[n].fieldId = nvlink_field_ids[c];
                        v[n].scopeId = l;
                        link_of[n++] = (unsigned char)l;
                }
        nvmlReturn_t r = rd->lib->field_values(gpu->handle, (int)n, v);
        rd->res->asked++;
        gpu->fields_off = permanent(r);
        if (r == NVML_SUCCESS || permanent(r))
                rd->res->answered++;
        else if (nvml_fatal(r))
                rd->res->fatal = r;
        else if (!rd->res->first_error)
                rd->res->first_error = r;
        if (r != NVML_SUCCESS)
                return 0;
        for (unsigned i = 0; i < SF_N; i++)
                if (v[i].nvmlReturn == NVML_SUCCESS && field_number(&v[i], &out[i]))
                        mask |= 1u << i;
        for (unsigned i = SF_N; i < n; i++) {
                double x;
                unsigned c = (i - SF_N) % NVLINK_COUNTERS;
                if (v[i].nvmlReturn == NVML_SUCCESS && field_number(&v[i], &x) && x >= 0)
                        g->nvlink_errors[link_of[i]][c] = x;
        }
        return mask;
}

/* The links of the GPU: those of 0..VIGIL_MAX_NVLINKS-1 whose state answers. A GPU
 * without NVLink answers NOT_SUPPORTED for link 0; a link it lacks, INVALID_ARGUMENT or
 * NOT_SUPPORTED. At most VIGIL_MAX_NVLINKS calls, once per identity and re-probe. */
static void discover_nvlinks(struct reader *rd)
{
        struct nvml_gpu *gpu = rd->gpu;
        gpu->nvlink_probe = false;
        gpu->nvlink_mask = 0;
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS && !rd->res->fatal; l++) {
                int active;
                nvmlReturn_t r = rd->lib->nvlink_state(gpu->handle, l, &active);
                if (nvml_fatal(r))
                        rd->res->fatal = r;
                if (r == NVML_SUCCESS)
                        gpu->nvlink_mask |= 1u << l;
                else if (l == 0 && r == NVML_ERROR_NOT_SUPPORTED)
                        break;
        }
}

/* Each link's state and the sums of the CSV cells (after the counters are read). */
static void read_nvlinks(struct reader *rd, struct gpu_frame *g)
{
        struct nvml_gpu *gpu = rd->gpu;
        double up = 0, sum = 0;
        bool any_up = false, any_err = false;
        if (!rd->lib->nvlink_state)
                return;
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS; l++) {
                int active;
                if (!(gpu->nvlink_mask >> l & 1) || !want(rd, NF_NVLINK, true))
                        continue;
                if (got(rd, NF_NVLINK, rd->lib->nvlink_state(gpu->handle, l, &active))) {
                        g->nvlink_up[l] = active == NVML_FEATURE_ENABLED ? 1 : 0;
                        up += g->nvlink_up[l];
                        any_up = true;
                }
                for (unsigned c = 0; c < NVLINK_COUNTERS; c++)
                        if (VAL_OK(g->nvlink_errors[l][c])) {
                                sum += g->nvlink_errors[l][c];
                                any_err = true;
                        }
        }
        g->nvlink_links_up = any_up ? up : VAL_MISSING;
        g->nvlink_error_sum = any_err ? sum : VAL_MISSING;
}

/* The fabric: nvmlDeviceGetGpuFabricInfoV (v3, with the health mask), or the plain call
 * where the driver lacks it or refuses the version. NOT_SUPPORTED (no NVSwitch fabric,
 * or before Hopper) leaves every fabric value missing. */
static void read_fabric(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        struct nvml_gpu *gpu = rd->gpu;
        if (lib->fabric_info_v && !gpu->fabric_v1 && want(rd, NF_FABRIC, true)) {
                nvmlGpuFabricInfoV_t fi;
                memset(&fi, 0, sizeof(fi));
                fi.version = nvmlGpuFabricInfo_v3;
                nvmlReturn_t r = lib->fabric_info_v(gpu->handle, &fi);
                if (r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH &&
                    (r != NVML_ERROR_FUNCTION_NOT_FOUND || !lib->fabric_info)) {
                        if (got(rd, NF_FABRIC, r) &&
                            fi.state != NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
                                g->fabric_state = fi.state;
                                g->fabric_status = fi.status;
                                g->fabric_clique = fi.cliqueId;
                                g->fabric_health_mask = fi.healthMask;
                        }
                        return;
                }
                gpu->fabric_v1 = true;
        }
        nvmlGpuFabricInfo_t f1;
        memset(&f1, 0, sizeof(f1));
        if (want(rd, NF_FABRIC, lib->fabric_info) &&
            got(rd, NF_FABRIC, lib->fabric_info(gpu->handle, &f1)) &&
            f1.state != NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
                g->fabric_state = f1.state;
                g->fabric_status = f1.status;
                g->fabric_clique = f1.cliqueId;
        }
}

/* An ECC total of type and counter (NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC) through its
 * own call, when the fields did not give it. */
static void read_ecc(struct reader *rd, unsigned field, int type, int counter, double *dst)
{
        unsigned long long v;
        if (want(rd, field, rd->lib->total_ecc) &&
            got(rd, field, rd->lib->total_ecc(rd->gpu->handle, type, counter, &v)))
                *dst = (double)v;
}

/* f[i] into *dst when the fields gave it; true when they did. */
static bool from_field(unsigned m, const double f[SF_N], unsigned i, double *dst)
{
        if (!(m & (1u << i)))
                return false;
        *dst = f[i];
        return true;
}

/* An nvmlEnableState_t call's answer as 1 or 0. */
static double enabled(nvmlEnableState_t s)
{
        return s == NVML_FEATURE_ENABLED ? 1.0 : 0.0;
}

/* The count of pages retired for cause (nvmlDeviceGetRetiredPages with no buffer: NVML
 * gives the count with SUCCESS, or with INSUFFICIENT_SIZE when pages exist, nvml.h
 * pkg/nvml/nvml.h:8360-8378). */
VIGIL_HOT static void read_retired(struct reader *rd, unsigned field,
                                   nvmlPageRetirementCause_t cause, double *dst)
{
        unsigned int n = 0;
        if (!want(rd, field, rd->lib->retired_pages))
                return;
        nvmlReturn_t r = rd->lib->retired_pages(rd->gpu->handle, cause, &n, NULL);
        if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                r = NVML_SUCCESS;
        if (got(rd, field, r))
                *dst = n;
}

/* The memory's depth (nvml_api.h): the aggregate ECC totals, the ECC mode, the retired
 * pages, from the fields when they answered, else from their own calls (a GPU that
 * refuses one is not asked again, want()); then the persistence mode, which has no
 * field. */
static void read_memory_depth(struct reader *rd, struct gpu_frame *g, unsigned m,
                              const double f[SF_N])
{
        const struct nvml_lib *lib = rd->lib;
        nvmlDevice_t h = rd->gpu->handle;
        nvmlEnableState_t cur, pend;
        if (!from_field(m, f, SF_SBE_AGG, &g->ecc_corrected_agg))
                read_ecc(rd, NF_ECC_AGG_CORR, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC,
                         &g->ecc_corrected_agg);
        if (!from_field(m, f, SF_DBE_AGG, &g->ecc_uncorrected_agg))
                read_ecc(rd, NF_ECC_AGG_UNC, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
                         &g->ecc_uncorrected_agg);
        if (!(from_field(m, f, SF_ECC_CUR, &g->ecc_mode) &&
              from_field(m, f, SF_ECC_PEND, &g->ecc_mode_pending)) &&
            want(rd, NF_ECC_MODE, lib->ecc_mode) &&
            got(rd, NF_ECC_MODE, lib->ecc_mode(h, &cur, &pend))) {
                g->ecc_mode = enabled(cur);
                g->ecc_mode_pending = enabled(pend);
        }
        if (!from_field(m, f, SF_RET_SBE, &g->retired_sbe))
                read_retired(rd, NF_RETIRED_SBE,
                             NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                             &g->retired_sbe);
        if (!from_field(m, f, SF_RET_DBE, &g->retired_dbe))
                read_retired(rd, NF_RETIRED_DBE, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
                             &g->retired_dbe);
        if (!from_field(m, f, SF_RET_PEND, &g->retired_pending) &&
            want(rd, NF_RETIRED_PENDING, lib->retired_pending) &&
            got(rd, NF_RETIRED_PENDING, lib->retired_pending(h, &pend)))
                g->retired_pending = enabled(pend);
        if (want(rd, NF_PERSISTENCE, lib->persistence) &&
            got(rd, NF_PERSISTENCE, lib->persistence(h, &cur)))
                g->persistence_mode = enabled(cur);
}

/* The slow fields into the sample g (each left missing unless it answered) and the
 * recovery action: what the field values gave, then the calls of the rest. */
static void read_slow(struct reader *rd, struct gpu_frame *g)
{
        const struct nvml_lib *lib = rd->lib;
        double f[SF_N];
        unsigned int corr, unc, pend, fail;
        rd->gpu->slow_read = true;
        if (rd->gpu->nvlink_probe && rd->lib->nvlink_state)
                discover_nvlinks(rd); /* before the batch, which asks for the links' counters */
        unsigned m = read_slow_fields(rd, f, g);
        if (!rd->res->fatal) { /* a GPU found gone keeps the action read before */
                rd->gpu->recovery_valid =
                    (m & (1u << SF_ACTION)) && f[SF_ACTION] >= 0 && f[SF_ACTION] <= 0xffffffffu;
                if (rd->gpu->recovery_valid)
                        rd->gpu->recovery_action = (unsigned)f[SF_ACTION];
        }
        read_u32(rd, NF_ENFORCED, lib->enforced_limit, 1000.0, &g->enforced_limit_w);
        unsigned long long mj;
        if (want(rd, NF_ENERGY, lib->energy) &&
            got(rd, NF_ENERGY, lib->energy(rd->gpu->handle, &mj)))
                g->energy_j = (double)mj / 1000.0;
        if (m & (1u << SF_REPLAY))
                g->pcie_replay = f[SF_REPLAY];
        else
                read_u32(rd, NF_REPLAY, lib->pcie_replay, 1.0, &g->pcie_replay);
        if (m & (1u << SF_SBE))
                g->ecc_corrected = f[SF_SBE];
        else
                read_ecc(rd, NF_ECC_CORR, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
                         &g->ecc_corrected);
        if (m & (1u << SF_DBE))
                g->ecc_uncorrected = f[SF_DBE];
        else
                read_ecc(rd, NF_ECC_UNC, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                         &g->ecc_uncorrected);
        if ((m & SF_ROWS) == SF_ROWS) {
                g->remapped_correctable = f[SF_RCOR];
                g->remapped_uncorrectable = f[SF_RUNC];
                g->remap_pending = f[SF_RPEND];
                g->remap_failure = f[SF_RFAIL];
        } else if (want(rd, NF_REMAP, lib->remapped_rows) &&
                   got(rd, NF_REMAP,
                       lib->remapped_rows(rd->gpu->handle, &corr, &unc, &pend, &fail))) {
                g->remapped_correctable = corr;
                g->remapped_uncorrectable = unc;
                g->remap_pending = pend;
                g->remap_failure = fail;
        }
        read_memory_depth(rd, g, m, f);
        read_nvlinks(rd, g);
        read_fabric(rd, g);
        read_thresholds(rd);
}

/* The thresholds, the link's maximum and the recovery action into a sample. */
static void copy_thresholds(const struct nvml_gpu *gpu, struct gpu_frame *g)
{
        g->temp_max_c = gpu->gpu_max_c;
        g->shutdown_temp_c = gpu->shutdown_c;
        g->slowdown_temp_c = gpu->slowdown_c;
        g->pcie_max_gen = gpu->pcie_max_gen;
        g->pcie_max_width = gpu->pcie_max_width;
        g->recovery_valid = gpu->recovery_valid;
        g->recovery_action = gpu->recovery_action;
}

/* The fields of cadence c (core/gpu_values.c's .cadence): a sample that read them keeps
 * what it read, missing where the call did not answer, for the samples in between;
 * one that did not gets the last values kept. */
static void carry(struct nvml_gpu *gpu, struct gpu_frame *g, bool read, enum field_cadence c)
{
        if (read)
                fields_copy_cadence(&gpu->held, g, gpu_fields, gpu_fields_count, c);
        else
                fields_copy_cadence(g, &gpu->held, gpu_fields, gpu_fields_count, c);
}

VIGIL_HOT void nvml_read_sample(const struct nvml_lib *lib, struct nvml_gpu *gpu,
                                struct gpu_frame *g, unsigned what, struct nvml_read_result *res)
{
        struct reader rd = {lib, gpu, res, what};
        memset(res, 0, sizeof(*res));
        read_thermal(&rd, g);
        read_power(&rd, g);
        read_perf(&rd, g);
        read_memory(&rd, g);
        read_pcie_reasons(&rd, g);
        read_fans(&rd, g);
        read_sensor0(&rd, g);
        read_extra(&rd, g);
        if (what & NVML_READ_SLOW_ONLY)
                read_slow(&rd, g); /* finds the NVLink links first after the identity */
        g->nvlinks = gpu->nvlink_mask ? 32 - (unsigned)__builtin_clz(gpu->nvlink_mask) : 0;
        copy_thresholds(gpu, g);
        carry(gpu, g, what & NVML_READ_MID, FC_MID);
        carry(gpu, g, what & NVML_READ_SLOW_ONLY, FC_SLOW);
}

VIGIL_HOT bool nvml_read_failed(const struct nvml_read_result *res, nvmlReturn_t *ret_error)
{
        if (res->fatal) {
                *ret_error = res->fatal;
                return true;
        }
        if (res->asked > 0 && res->answered == 0) {
                *ret_error = res->first_error ? res->first_error : NVML_ERROR_UNKNOWN;
                return true;
        }
        return false;
}

/* A string call into buf; "" when it fails. Returns the code. */
static nvmlReturn_t read_string(nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned int),
                                nvmlDevice_t h, char *buf, unsigned int cap)
{
        buf[0] = '\0';
        if (!fn)
                return NVML_ERROR_FUNCTION_NOT_FOUND;
        nvmlReturn_t r = fn(h, buf, cap);
        buf[cap - 1] = '\0';
        if (r != NVML_SUCCESS)
                buf[0] = '\0';
        return r;
}

VIGIL_HOT static double read_threshold(const struct nvml_lib *lib, nvmlDevice_t h, int type,
                                       nvmlReturn_t *fatal)
{
        unsigned int v;
        if (!lib->temperature_threshold || *fatal)
                return VAL_MISSING;
        nvmlReturn_t r = lib->temperature_threshold(h, type, &v);
        if (nvml_fatal(r))
                *fatal = r;
        return r == NVML_SUCCESS ? (double)v : VAL_MISSING;
}

/* The fan count: nvmlDeviceGetNumFans, or one fan when only the old single-fan call
 * exists and answers. */
static nvmlReturn_t read_fan_count(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        unsigned int n = 0;
        nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
        gpu->nfans = 0;
        gpu->legacy_fan = false;
        if (lib->num_fans) {
                r = lib->num_fans(gpu->handle, &n);
                if (r == NVML_SUCCESS)
                        gpu->nfans = n < VIGIL_MAX_FANS ? n : VIGIL_MAX_FANS;
                gpu->legacy_fan = gpu->nfans > 0 && !lib->fan_speed_v2 && lib->fan_speed;
                if (gpu->legacy_fan)
                        gpu->nfans = 1;
        } else if (lib->fan_speed) {
                r = lib->fan_speed(gpu->handle, &n);
                gpu->legacy_fan = r == NVML_SUCCESS;
                gpu->nfans = r == NVML_SUCCESS ? 1 : 0;
        }
        return nvml_fatal(r) ? r : NVML_SUCCESS;
}

nvmlReturn_t nvml_read_recovery_action(const struct nvml_lib *lib, nvmlDevice_t h,
                                       unsigned *ret_action)
{
        nvmlFieldValue_t v;
        if (!lib->field_values)
                return NVML_ERROR_FUNCTION_NOT_FOUND;
        memset(&v, 0, sizeof(v));
        v.fieldId = NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
        nvmlReturn_t r = lib->field_values(h, 1, &v);
        if (r != NVML_SUCCESS)
                return r;
        if (v.nvmlReturn != NVML_SUCCESS)
                return v.nvmlReturn;
        switch (v.valueType) {
        case NVML_VALUE_TYPE_UNSIGNED_INT:
                *ret_action = v.value.uiVal;
                return NVML_SUCCESS;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
                if (v.value.ullVal > 0xffffffffULL)
                        return NVML_ERROR_UNKNOWN;
                *ret_action = (unsigned)v.value.ullVal;
                return NVML_SUCCESS;
        case NVML_VALUE_TYPE_SIGNED_INT:
                if (v.value.siVal < 0)
                        return NVML_ERROR_UNKNOWN;
                *ret_action = (unsigned)v.value.siVal;
                return NVML_SUCCESS;
        default:
                return NVML_ERROR_UNKNOWN; /* not a type an enum comes in */
        }
}

/* A number of the identity (fixed until the GPU is reset) through fn; NAN when the call
 * is absent or fails, and *fatal set when it found the GPU gone. */
static double read_identity_u32(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *), nvmlDevice_t h,
                                nvmlReturn_t *fatal)
{
        unsigned int v;
        if (!fn || *fatal)
                return VAL_MISSING;
        nvmlReturn_t r = fn(h, &v);
        if (nvml_fatal(r))
                *fatal = r;
        return r == NVML_SUCCESS ? (double)v : VAL_MISSING;
}

void nvml_read_reprobe(struct nvml_gpu *gpu)
{
        for (unsigned f = 0; f < NF_COUNT; f++)
                if (gpu->unsupported & (1ULL << f))
                        gpu->refused[f] = NVML_RETIRE_AFTER - 1;
        gpu->unsupported = 0;
        if (!gpu->nvlink_mask)
                gpu->nvlink_probe = true;
}

nvmlReturn_t nvml_read_identity(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        nvmlDevice_t h = gpu->handle;
        nvmlReturn_t fatal = NVML_SUCCESS, r;
        nvmlPciInfo_t pci;
        unsigned int mw;
        gpu->unsupported = 0;
        memset(gpu->refused, 0, sizeof(gpu->refused));
        unsigned action;
        gpu->recovery_valid = nvml_read_recovery_action(lib, h, &action) == NVML_SUCCESS;
        gpu->recovery_action = gpu->recovery_valid ? action : 0;
        gpu->memory_v1 = false;
        gpu->fields_off = false;
        gpu->slow_read = false;
        gpu->nvlink_mask = 0;
        gpu->nvlink_probe = true;
        gpu->fabric_v1 = false;
        gpu_frame_clear(&gpu->held);
        r = read_string(lib->name, h, gpu->name, sizeof(gpu->name));
        if (nvml_fatal(r))
                return r;
        read_string(lib->uuid, h, gpu->uuid, sizeof(gpu->uuid));
        read_string(lib->serial, h, gpu->serial, sizeof(gpu->serial));
        read_string(lib->vbios, h, gpu->vbios, sizeof(gpu->vbios));
        gpu->pci_bus_id[0] = '\0';
        memset(&pci, 0, sizeof(pci));
        if (lib->pci_info && lib->pci_info(h, &pci) == NVML_SUCCESS) {
                pci.busId[sizeof(pci.busId) - 1] = '\0';
                memcpy(gpu->pci_bus_id, pci.busId, sizeof(gpu->pci_bus_id));
        }
        gpu->shutdown_c = read_threshold(lib, h, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &fatal);
        gpu->slowdown_c = read_threshold(lib, h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &fatal);
        gpu->gpu_max_c = read_threshold(lib, h, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &fatal);
        gpu->pcie_max_gen = read_identity_u32(lib->pcie_max_gen, h, &fatal);
        gpu->pcie_max_width = read_identity_u32(lib->pcie_max_width, h, &fatal);
        gpu->power_limit_w = VAL_MISSING;
        if (lib->power_limit && lib->power_limit(h, &mw) == NVML_SUCCESS)
                gpu->power_limit_w = mw / 1000.0;
        if (!fatal)
                fatal = read_fan_count(lib, gpu);
        return fatal;
}
