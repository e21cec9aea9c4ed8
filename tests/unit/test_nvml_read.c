/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: reading a GPU through the NVML function table (collect/nvml_read.c) and
 * loading the library (collect/nvml_lib.c), on a fake table whose calls return what
 * each test sets and count how often they were made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/nvml_lib.h"
#include "collect/nvml_read.h"

/* The fake GPU. */
enum fake_call {
        C_TEMP,
        C_THRESH,
        C_POWER,
        C_LIMIT,
        C_ENFORCED,
        C_ENERGY,
        C_PSTATE,
        C_CLOCK,
        C_UTIL,
        C_MEM2,
        C_MEM1,
        C_GEN,
        C_WIDTH,
        C_REPLAY,
        C_REASONS,
        C_NUMFANS,
        C_FAN2,
        C_FAN1,
        C_TARGET,
        C_THERMAL,
        C_ECC,
        C_ROWS,
        C_FIELDS,
        C_NAME,
        C_PCI,
        C_COUNT
};

static struct {
        nvmlReturn_t ret[C_COUNT]; /* what each call returns */
        unsigned calls[C_COUNT];
        int pstate;
        bool v2_any_version; /* accept any version word (a broken driver) */
        unsigned mem2_version_seen;
        nvmlReturn_t dbe_field;
} fake;

static struct nvmlDevice_st *const dev = (struct nvmlDevice_st *)&fake;

#define ENTER(c)                                                                                   \
        do {                                                                                       \
                fake.calls[c]++;                                                                   \
                if (fake.ret[c])                                                                   \
                        return fake.ret[c];                                                        \
        } while (0)

static nvmlReturn_t f_temp(nvmlDevice_t d, int s, unsigned *v)
{
        (void)d;
        ENTER(C_TEMP);
        *v = s == NVML_TEMPERATURE_GPU ? 45 : 0;
        return 0;
}
static unsigned thr_gpu_max = 90; /* what GPU_MAX answers (a test changes it) */
static nvmlReturn_t f_thresh(nvmlDevice_t d, int t, unsigned *v)
{
        (void)d;
        ENTER(C_THRESH);
        if (t == NVML_TEMPERATURE_THRESHOLD_MEM_MAX)
                return NVML_ERROR_NOT_SUPPORTED;
        *v = t == 0 ? 98 : t == 1 ? 95 : thr_gpu_max;
        return 0;
}
static nvmlReturn_t f_power(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_POWER);
        *v = 85123;
        return 0;
}
static nvmlReturn_t f_limit(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_LIMIT);
        *v = 600000;
        return 0;
}
static nvmlReturn_t f_enforced(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_ENFORCED);
        *v = 450000;
        return 0;
}
static nvmlReturn_t f_energy(nvmlDevice_t d, unsigned long long *v)
{
        (void)d;
        ENTER(C_ENERGY);
        *v = 1008500ULL;
        return 0;
}
static nvmlReturn_t f_pstate(nvmlDevice_t d, int *p)
{
        (void)d;
        ENTER(C_PSTATE);
        *p = fake.pstate;
        return 0;
}
static nvmlReturn_t f_clock(nvmlDevice_t d, int t, unsigned *v)
{
        (void)d;
        ENTER(C_CLOCK);
        static const unsigned mhz[] = {1200, 1250, 9000, 1100};
        *v = mhz[t];
        return 0;
}
static nvmlReturn_t f_util(nvmlDevice_t d, nvmlUtilization_t *u)
{
        (void)d;
        ENTER(C_UTIL);
        u->gpu = 10;
        u->memory = 5;
        return 0;
}
static nvmlReturn_t f_mem2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
        (void)d;
        fake.mem2_version_seen = m->version;
        ENTER(C_MEM2);
        if (m->version != 0x02000028u && !fake.v2_any_version)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        m->total = 100ULL << 30;
        m->reserved = 512ULL << 20;
        m->used = 1ULL << 30;
        m->free = m->total - m->used - m->reserved;
        return 0;
}
static nvmlReturn_t f_mem1(nvmlDevice_t d, nvmlMemory_t *m)
{
        (void)d;
        ENTER(C_MEM1);
        m->total = 100ULL << 30;
        m->used = (1ULL << 30) + (512ULL << 20);
        m->free = m->total - m->used;
        return 0;
}
static nvmlReturn_t f_gen(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_GEN);
        *v = 5;
        return 0;
}
static nvmlReturn_t f_width(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_WIDTH);
        *v = 16;
        return 0;
}
static nvmlReturn_t f_replay(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_REPLAY);
        *v = 7;
        return 0;
}
static nvmlReturn_t f_reasons(nvmlDevice_t d, unsigned long long *v)
{
        (void)d;
        ENTER(C_REASONS);
        *v = 0x4;
        return 0;
}
static nvmlReturn_t f_numfans(nvmlDevice_t d, unsigned *n)
{
        (void)d;
        ENTER(C_NUMFANS);
        *n = 2;
        return 0;
}
static nvmlReturn_t f_fan2(nvmlDevice_t d, unsigned fan, unsigned *v)
{
        (void)d;
        ENTER(C_FAN2);
        *v = 30 + fan;
        return 0;
}
static nvmlReturn_t f_fan1(nvmlDevice_t d, unsigned *v)
{
        (void)d;
        ENTER(C_FAN1);
        *v = 44;
        return 0;
}
static nvmlReturn_t f_target(nvmlDevice_t d, unsigned fan, unsigned *v)
{
        (void)d;
        ENTER(C_TARGET);
        *v = 40 + fan;
        return 0;
}
static nvmlReturn_t f_thermal(nvmlDevice_t d, unsigned idx, nvmlGpuThermalSettings_t *t)
{
        (void)d;
        ENTER(C_THERMAL);
        t->count = idx == 0 ? 1 : 0;
        t->sensor[0].controller = 1;
        t->sensor[0].currentTemp = 46;
        t->sensor[0].target = 1;
        return 0;
}
static nvmlReturn_t f_ecc(nvmlDevice_t d, int type, int counter, unsigned long long *v)
{
        (void)d;
        ENTER(C_ECC);
        *v = counter == NVML_VOLATILE_ECC ? (type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? 3 : 1) : 99;
        return 0;
}
/* Field values: the ECC totals 30/10, replays 70, rows 20/0/1/0, recovery action 1;
 * fake.dbe_field answers the DBE field's own code (0: its value). */
static nvmlReturn_t f_fields(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
        (void)d;
        ENTER(C_FIELDS);
        for (int i = 0; i < n; i++) {
                unsigned long long x;
                switch (v[i].fieldId) {
                case NVML_FI_DEV_ECC_SBE_VOL_TOTAL:
                        x = 30;
                        break;
                case NVML_FI_DEV_ECC_DBE_VOL_TOTAL:
                        x = 10;
                        break;
                case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
                        x = 70;
                        break;
                case NVML_FI_DEV_REMAPPED_COR:
                        x = 20;
                        break;
                case NVML_FI_DEV_REMAPPED_PENDING:
                case NVML_FI_DEV_GET_GPU_RECOVERY_ACTION:
                        x = 1;
                        break;
                default:
                        x = 0;
                        break;
                }
                v[i].nvmlReturn =
                    v[i].fieldId == NVML_FI_DEV_ECC_DBE_VOL_TOTAL ? fake.dbe_field : 0;
                v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                v[i].value.ullVal = x;
        }
        return 0;
}
static nvmlReturn_t f_rows(nvmlDevice_t d, unsigned *c, unsigned *u, unsigned *p, unsigned *f)
{
        (void)d;
        ENTER(C_ROWS);
        *c = 2;
        *u = 0;
        *p = 1;
        *f = 0;
        return 0;
}
static nvmlReturn_t f_name(nvmlDevice_t d, char *buf, unsigned len)
{
        (void)d;
        ENTER(C_NAME);
        snprintf(buf, len, "Fake GPU");
        return 0;
}
static nvmlReturn_t f_pci(nvmlDevice_t d, nvmlPciInfo_t *p)
{
        (void)d;
        ENTER(C_PCI);
        memset(p, 0, sizeof(*p));
        snprintf(p->busId, sizeof(p->busId), "00000000:01:00.0");
        return 0;
}

static void fake_lib(struct nvml_lib *lib)
{
        memset(lib, 0, sizeof(*lib));
        lib->temperature = f_temp;
        lib->temperature_threshold = f_thresh;
        lib->power_usage = f_power;
        lib->power_limit = f_limit;
        lib->enforced_limit = f_enforced;
        lib->energy = f_energy;
        lib->pstate = f_pstate;
        lib->clock_info = f_clock;
        lib->utilization = f_util;
        lib->memory_v2 = f_mem2;
        lib->memory_v1 = f_mem1;
        lib->pcie_gen = f_gen;
        lib->pcie_width = f_width;
        lib->pcie_replay = f_replay;
        lib->clock_reasons = f_reasons;
        lib->num_fans = f_numfans;
        lib->fan_speed_v2 = f_fan2;
        lib->fan_speed = f_fan1;
        lib->target_fan_speed = f_target;
        lib->thermal_settings = f_thermal;
        lib->total_ecc = f_ecc;
        lib->remapped_rows = f_rows;
        lib->name = f_name;
        lib->pci_info = f_pci;
}

static int reset(void **state)
{
        (void)state;
        memset(&fake, 0, sizeof(fake));
        fake.pstate = 8;
        return 0;
}

static void gpu_init(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        memset(gpu, 0, sizeof(*gpu));
        gpu->handle = dev;
        assert_int_equal(nvml_read_identity(lib, gpu), NVML_SUCCESS);
}

/* One sample; slow: with the slow fields. */
static bool sample_at(const struct nvml_lib *lib, struct nvml_gpu *gpu, struct gpu_frame *g,
                      bool slow, nvmlReturn_t *err)
{
        struct nvml_read_result res;
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        nvml_read_sample(lib, gpu, g, slow ? NVML_READ_SLOW : NVML_READ_MID, &res);
        *err = 0;
        return !nvml_read_failed(&res, err);
}

static bool sample(const struct nvml_lib *lib, struct nvml_gpu *gpu, struct gpu_frame *g,
                   nvmlReturn_t *err)
{
        return sample_at(lib, gpu, g, true, err);
}

static void test_identity(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        assert_string_equal(gpu.name, "Fake GPU");
        assert_string_equal(gpu.pci_bus_id, "00000000:01:00.0");
        assert_string_equal(gpu.uuid, ""); /* no call in the table */
        assert_true(gpu.shutdown_c == 98 && gpu.slowdown_c == 95 && gpu.gpu_max_c == 90);
        assert_true(gpu.power_limit_w == 600);
        assert_int_equal(gpu.nfans, 2);
        assert_false(gpu.legacy_fan);
        assert_int_equal(fake.calls[C_TEMP], 0); /* the sim's step counter is left alone */
}

static void test_values_and_units(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(g.temp_c == 45 && g.temp_max_c == 90 && g.shutdown_temp_c == 98);
        assert_true(g.power_w == 85.123 && g.power_limit_w == 600 && g.enforced_limit_w == 450);
        assert_true(g.energy_j == 1008.5 && g.pstate == 8);
        assert_true(g.gpu_clock_mhz == 1200 && g.sm_clock_mhz == 1250);
        assert_true(g.mem_clock_mhz == 9000 && g.video_clock_mhz == 1100);
        assert_true(g.util_gpu_pct == 10 && g.util_mem_pct == 5);
        /* v2 with its version word; used in the reference's meaning (v1: reserved
         * included), and the reserved part on its own. */
        assert_int_equal(fake.mem2_version_seen, 0x02000028u);
        assert_true(g.vram_used_bytes == (double)((1ULL << 30) + (512ULL << 20)));
        assert_true(g.vram_reserved_bytes == (double)(512ULL << 20));
        assert_true(g.vram_total_bytes == (double)(100ULL << 30));
        assert_int_equal(fake.calls[C_MEM1], 0);
        assert_true(g.pcie_gen == 5 && g.pcie_width == 16 && g.pcie_replay == 7);
        assert_true(g.throttle_valid && g.throttle_mask == 4);
        assert_int_equal(g.nfans, 2);
        assert_true(g.fan_speed_pct[0] == 30 && g.fan_speed_pct[1] == 31);
        assert_true(g.fan_target_pct[0] == 40 && g.fan_target_pct[1] == 41);
        assert_true(g.s0_temp == 46 && g.s0_target == 1 && g.s0_controller == 1);
        assert_true(g.ecc_corrected == 3 && g.ecc_uncorrected == 1);
        assert_true(g.remapped_correctable == 2 && g.remap_pending == 1);
        fake.pstate = NVML_PSTATE_UNKNOWN;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(isnan(g.pstate));
}

/* NOT_SUPPORTED / NO_PERMISSION: missing (NAN, not 0), retired after 3 answers in a row;
 * each fan on its own. */
static void test_unsupported_asked_once(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        fake.ret[C_TARGET] = NVML_ERROR_NOT_SUPPORTED;
        fake.ret[C_ECC] = NVML_ERROR_NOT_SUPPORTED;
        fake.ret[C_REPLAY] = NVML_ERROR_NO_PERMISSION;
        fake.ret[C_ENERGY] = NVML_ERROR_FUNCTION_NOT_FOUND;
        fake.ret[C_THERMAL] = NVML_ERROR_UNKNOWN; /* a passing failure: asked again */
        for (int i = 0; i < 5; i++) {
                assert_true(sample(&lib, &gpu, &g, &err));
                assert_true(isnan(g.fan_target_pct[0]) && isnan(g.fan_target_pct[1]));
                assert_true(isnan(g.ecc_corrected) && isnan(g.ecc_uncorrected));
                assert_true(isnan(g.ecc_corrected_agg) && isnan(g.ecc_uncorrected_agg));
                assert_true(isnan(g.pcie_replay) && isnan(g.energy_j) && isnan(g.s0_temp));
                assert_true(g.fan_speed_pct[1] == 31);
        }
        assert_int_equal(fake.calls[C_TARGET], 6); /* 3 times per fan */
        assert_int_equal(fake.calls[C_ECC], 12);   /* volatile, aggregate; corrected, uncorrected */
        assert_int_equal(fake.calls[C_REPLAY], 3);
        assert_int_equal(fake.calls[C_ENERGY], 3);
        assert_int_equal(fake.calls[C_THERMAL], 5);
        assert_int_equal(fake.calls[C_POWER], 5);
        /* The temperature is every sample's first call: never cached. */
        fake.ret[C_TEMP] = NVML_ERROR_NOT_SUPPORTED;
        for (int i = 0; i < 3; i++) {
                assert_true(sample(&lib, &gpu, &g, &err));
                assert_true(isnan(g.temp_c));
        }
        assert_int_equal(fake.calls[C_TEMP], 8);
        /* Re-initialisation (after a recovery) asks again. */
        gpu_init(&lib, &gpu);
        fake.ret[C_TARGET] = 0;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(g.fan_target_pct[1] == 41);
}

/* A lost GPU: the first call says so and no other call is made. */
/* One NOT_SUPPORTED is not forever: the power limit answering it at one sample is
 * missing there only (the TDP, PWR+ and SPUR_THROT rules need it back); two in a row,
 * then a success, start the count again. */
static void test_transient_not_supported(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        fake.ret[C_LIMIT] = NVML_ERROR_NOT_SUPPORTED;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(isnan(g.power_limit_w));
        fake.ret[C_LIMIT] = 0;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(g.power_limit_w == 600);
        fake.ret[C_LIMIT] = NVML_ERROR_NOT_SUPPORTED;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(sample(&lib, &gpu, &g, &err));
        fake.ret[C_LIMIT] = 0;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(g.power_limit_w == 600);
        fake.ret[C_LIMIT] = NVML_ERROR_NOT_SUPPORTED;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_LIMIT], 1 + 7); /* the identity read, then 7 */
        assert_true(sample(&lib, &gpu, &g, &err));    /* the third in a row: retired */
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_LIMIT], 1 + 8);
        assert_true(isnan(g.power_limit_w));
}

/* The power management limit is asked at every sample, as the reference asks it; the
 * mid cadence: the SM and video clocks are asked only at a sample with NVML_READ_MID
 * (or SLOW); the samples between carry the last answer, a failed answer included
 * (missing, not the value before it). */
static void test_mid_cadence(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        struct nvml_read_result res;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        memset(&g, 0, sizeof(g));
        gpu_frame_clear(&g);
        int limits = fake.calls[C_LIMIT];
        nvml_read_sample(&lib, &gpu, &g, 0, &res); /* before any mid read: missing */
        assert_true(isnan(g.sm_clock_mhz) && isnan(g.video_clock_mhz));
        assert_true(g.power_limit_w == 600 && g.gpu_clock_mhz == 1200);
        assert_int_equal(fake.calls[C_LIMIT], limits + 1);
        nvml_read_sample(&lib, &gpu, &g, NVML_READ_MID, &res);
        assert_true(g.sm_clock_mhz == 1250 && g.video_clock_mhz == 1100);
        int clocks = fake.calls[C_CLOCK];
        gpu_frame_clear(&g);
        nvml_read_sample(&lib, &gpu, &g, 0, &res);
        assert_int_equal(fake.calls[C_LIMIT], limits + 3);
        assert_int_equal(fake.calls[C_CLOCK], clocks + 2); /* graphics, memory */
        assert_true(g.sm_clock_mhz == 1250 && g.video_clock_mhz == 1100);
        /* A limit that fails is missing at once, and back at the next sample. */
        fake.ret[C_LIMIT] = NVML_ERROR_UNKNOWN;
        gpu_frame_clear(&g);
        nvml_read_sample(&lib, &gpu, &g, 0, &res);
        assert_true(isnan(g.power_limit_w));
        fake.ret[C_LIMIT] = 0;
        gpu_frame_clear(&g);
        nvml_read_sample(&lib, &gpu, &g, 0, &res);
        assert_true(g.power_limit_w == 600);
        fake.ret[C_CLOCK] = NVML_ERROR_UNKNOWN;
        gpu_frame_clear(&g);
        nvml_read_sample(&lib, &gpu, &g, NVML_READ_MID, &res);
        assert_int_equal(fake.calls[C_CLOCK], clocks + 10); /* 4 at the mid sample */
        assert_true(isnan(g.video_clock_mhz) && isnan(g.sm_clock_mhz));
        fake.ret[C_CLOCK] = 0;
        gpu_frame_clear(&g);
        nvml_read_sample(&lib, &gpu, &g, 0, &res);
        assert_true(isnan(g.video_clock_mhz) && isnan(g.sm_clock_mhz) && g.gpu_clock_mhz == 1200);
}

/* The slow cadence: a retired field is asked once more (one refusal retires it again;
 * an answer brings it back) and the thresholds are read again. */
static void test_reprobe(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        fake.ret[C_LIMIT] = NVML_ERROR_NOT_SUPPORTED;
        for (int i = 0; i < 5; i++)
                assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_LIMIT], 3 + 1); /* the identity read, then 3 */
        nvml_read_reprobe(&gpu);
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_LIMIT], 5); /* one more refusal: retired again */
        fake.ret[C_LIMIT] = 0;
        thr_gpu_max = 87;
        unsigned thresh_calls = fake.calls[C_THRESH];
        nvml_read_reprobe(&gpu);
        assert_int_equal(fake.calls[C_THRESH], thresh_calls); /* the slow sample reads them */
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_THRESH], thresh_calls + 3);
        assert_true(g.power_limit_w == 600 && g.temp_max_c == 87 && g.shutdown_temp_c == 98);
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_LIMIT], 7);
        thr_gpu_max = 90;
}

static unsigned slow_calls(void)
{
        return fake.calls[C_ENFORCED] + fake.calls[C_ENERGY] + fake.calls[C_REPLAY] +
               fake.calls[C_ECC] + fake.calls[C_ROWS] + fake.calls[C_THRESH];
}

static void assert_slow_values(const struct gpu_frame *g, bool ecc)
{
        assert_true(g->enforced_limit_w == 450 && g->pcie_replay == 7);
        assert_true(g->energy_j == 1008.5);
        assert_true(g->remapped_correctable == 2 && g->remap_pending == 1);
        assert_true(g->remapped_uncorrectable == 0 && g->remap_failure == 0);
        assert_true(g->temp_max_c == 90 && g->shutdown_temp_c == 98);
        if (ecc)
                assert_true(g->ecc_corrected == 3 && g->ecc_uncorrected == 1 &&
                            g->ecc_corrected_agg == 99 && g->ecc_uncorrected_agg == 99);
        else
                assert_true(isnan(g->ecc_corrected) && isnan(g->ecc_uncorrected) &&
                            isnan(g->ecc_corrected_agg) && isnan(g->ecc_uncorrected_agg));
}

/* The slow fields: read only by a slow sample, their last values in every sample in
 * between, missing before the first read and after a read that failed. */
static void test_slow_fields(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        unsigned base = slow_calls();
        assert_true(sample_at(&lib, &gpu, &g, false, &err));
        assert_int_equal(slow_calls(), base);
        assert_true(isnan(g.enforced_limit_w) && isnan(g.pcie_replay) && isnan(g.energy_j));
        assert_true(isnan(g.ecc_corrected) && isnan(g.remapped_correctable));
        assert_true(g.power_w > 0 && g.sm_clock_mhz > 0);
        assert_true(sample_at(&lib, &gpu, &g, true, &err));
        /* enforced, energy, replay, 4 ECC (volatile and aggregate), rows, 3 thresholds */
        assert_int_equal(slow_calls(), base + 11);
        assert_slow_values(&g, true);
        for (int i = 0; i < 5; i++) {
                assert_true(sample_at(&lib, &gpu, &g, false, &err));
                assert_slow_values(&g, true);
        }
        assert_int_equal(slow_calls(), base + 11);
        fake.ret[C_ECC] = NVML_ERROR_UNKNOWN;
        assert_true(sample_at(&lib, &gpu, &g, true, &err));
        assert_slow_values(&g, false);
        assert_true(sample_at(&lib, &gpu, &g, false, &err));
        assert_slow_values(&g, false);
        fake.ret[C_ECC] = 0;
        assert_true(sample_at(&lib, &gpu, &g, true, &err));
        assert_slow_values(&g, true);
        assert_int_equal(slow_calls(), base + 33);
}

/* With nvmlDeviceGetFieldValues, one call gives the ECC totals, the replays, the
 * remapped rows and the recovery action; a field it does not give is asked by its own
 * call; a driver that refuses the call is asked by the calls from then on. */
static void test_slow_field_values(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        lib.field_values = f_fields;
        gpu_init(&lib, &gpu); /* reads the recovery action: one call */
        unsigned ecc = fake.calls[C_ECC], fields = fake.calls[C_FIELDS];
        assert_true(sample_at(&lib, &gpu, &g, true, &err));
        assert_int_equal(fake.calls[C_FIELDS], fields + 1);
        assert_int_equal(fake.calls[C_ECC] + fake.calls[C_REPLAY] + fake.calls[C_ROWS], ecc);
        assert_true(g.ecc_corrected == 30 && g.ecc_uncorrected == 10 && g.pcie_replay == 70);
        assert_true(g.remapped_correctable == 20 && g.remap_pending == 1 && g.remap_failure == 0);
        assert_true(g.recovery_valid && g.recovery_action == 1);
        assert_true(g.enforced_limit_w == 450); /* no field id: its own call */
        fake.dbe_field = NVML_ERROR_NOT_SUPPORTED;
        assert_true(sample_at(&lib, &gpu, &g, true, &err));
        assert_int_equal(fake.calls[C_ECC], ecc + 1); /* the uncorrected total alone */
        assert_true(g.ecc_corrected == 30 && g.ecc_uncorrected == 1);
        fake.ret[C_FIELDS] = NVML_ERROR_NOT_SUPPORTED;
        for (int i = 0; i < 3; i++)
                assert_true(sample_at(&lib, &gpu, &g, true, &err));
        assert_int_equal(fake.calls[C_FIELDS], fields + 3); /* refused once: not asked again */
        assert_true(g.ecc_corrected == 3 && g.ecc_uncorrected == 1 && g.pcie_replay == 7);
        assert_true(g.remapped_correctable == 2 && !g.recovery_valid);
}

static void test_lost_gpu_stops_at_once(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        for (int c = 0; c < C_COUNT; c++)
                fake.ret[c] = NVML_ERROR_GPU_IS_LOST;
        memset(fake.calls, 0, sizeof(fake.calls));
        assert_false(sample(&lib, &gpu, &g, &err));
        assert_int_equal(err, NVML_ERROR_GPU_IS_LOST);
        unsigned total = 0;
        for (int c = 0; c < C_COUNT; c++)
                total += fake.calls[c];
        assert_int_equal(total, 1);
        assert_int_equal(gpu.unsupported, 0);
        assert_true(isnan(g.temp_c) && isnan(g.power_w));
        /* Lost in the middle of a sample: failed all the same. */
        memset(fake.ret, 0, sizeof(fake.ret));
        fake.ret[C_UTIL] = NVML_ERROR_GPU_IS_LOST;
        assert_false(sample(&lib, &gpu, &g, &err));
        assert_int_equal(err, NVML_ERROR_GPU_IS_LOST);
        assert_int_equal(nvml_read_identity(&lib, &(struct nvml_gpu){.handle = dev}), NVML_SUCCESS);
        fake.ret[C_NAME] = NVML_ERROR_GPU_IS_LOST;
        assert_int_equal(nvml_read_identity(&lib, &(struct nvml_gpu){.handle = dev}),
                         NVML_ERROR_GPU_IS_LOST);
}

/* Every call failing (no fatal code) is a failed sample too, never a row of zeros; one
 * failing field is only that field missing. */
static void test_every_call_failing(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        for (int c = 0; c < C_COUNT; c++)
                fake.ret[c] = NVML_ERROR_UNKNOWN;
        assert_false(sample(&lib, &gpu, &g, &err));
        assert_int_equal(err, NVML_ERROR_UNKNOWN);
        memset(fake.ret, 0, sizeof(fake.ret));
        fake.ret[C_LIMIT] = NVML_ERROR_UNKNOWN;
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_true(isnan(g.power_limit_w));
        assert_true(g.power_w == 85.123);
}

/* A driver that refuses the v2 version word: v1 from then on, in the same sample. */
static void test_memory_v1_fallback(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        gpu_init(&lib, &gpu);
        fake.ret[C_MEM2] = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        for (int i = 0; i < 3; i++) {
                assert_true(sample(&lib, &gpu, &g, &err));
                assert_true(g.vram_used_bytes == (double)((1ULL << 30) + (512ULL << 20)));
        }
        assert_int_equal(fake.calls[C_MEM2], 1);
        assert_int_equal(fake.calls[C_MEM1], 3);
        /* A library without _v2 goes straight to v1. */
        lib.memory_v2 = NULL;
        gpu_init(&lib, &gpu);
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(fake.calls[C_MEM1], 4);
}

/* An old driver: no nvmlDeviceGetNumFans/_v2: the single-fan call gives fan 0. */
static void test_legacy_fan(void **state)
{
        (void)state;
        struct nvml_lib lib;
        struct nvml_gpu gpu;
        struct gpu_frame g;
        nvmlReturn_t err;
        fake_lib(&lib);
        lib.num_fans = NULL;
        lib.fan_speed_v2 = NULL;
        lib.target_fan_speed = NULL;
        gpu_init(&lib, &gpu);
        assert_int_equal(gpu.nfans, 1);
        assert_true(gpu.legacy_fan);
        assert_true(sample(&lib, &gpu, &g, &err));
        assert_int_equal(g.nfans, 1);
        assert_true(g.fan_speed_pct[0] == 44);
        assert_true(isnan(g.fan_target_pct[0]));
        /* And without any fan call at all, no fans. */
        lib.fan_speed = NULL;
        gpu_init(&lib, &gpu);
        assert_int_equal(gpu.nfans, 0);
}

static void test_library_loading(void **state)
{
        (void)state;
        struct nvml_lib lib;
        char err[300];
        assert_int_equal(nvml_lib_open(&lib, "/nonexistent/libnvidia-ml.so.1", err, sizeof(err)),
                         -ENOENT);
        assert_string_equal(err, "no NVIDIA library (/nonexistent/libnvidia-ml.so.1)");
        assert_null(lib.dl);
        /* A library that is not NVML. */
        assert_int_equal(nvml_lib_open(&lib, "libm.so.6", err, sizeof(err)), -ENOEXEC);
        assert_string_equal(err, "libm.so.6 has no nvmlInit_v2: not an NVML library");
        assert_null(lib.dl);
        nvml_lib_close(&lib);
        /* Without nvmlErrorString, NVML's own words. */
        memset(&lib, 0, sizeof(lib));
        assert_string_equal(nvml_lib_strerror(&lib, NVML_ERROR_GPU_IS_LOST), "GPU is lost");
        assert_string_equal(nvml_lib_strerror(NULL, 12345), "Unknown Error");
        assert_true(nvml_fatal(NVML_ERROR_GPU_IS_LOST) && !nvml_fatal(NVML_ERROR_UNKNOWN));
}

static void test_slot_lookup(void **state)
{
        (void)state;
        struct nvml_shared sh;
        memset(&sh, 0, sizeof(sh));
        sh.ngpus = 2;
        sh.gpu[0].handle = dev;
        snprintf(sh.gpu[0].pci_bus_id, sizeof(sh.gpu[0].pci_bus_id), "00000000:01:00.0");
        sh.gpu[1].handle = (nvmlDevice_t)&sh;
        snprintf(sh.gpu[1].pci_bus_id, sizeof(sh.gpu[1].pci_bus_id), "00000000:2B:00.0");
        assert_int_equal(nvml_slot_of_handle(&sh, dev), 0);
        assert_int_equal(nvml_slot_of_handle(&sh, (nvmlDevice_t)&sh), 1);
        assert_int_equal(nvml_slot_of_handle(&sh, (nvmlDevice_t)&fake.calls), -1);
        assert_int_equal(nvml_slot_of_pci(&sh, "0000:01:00"), 0);
        assert_int_equal(nvml_slot_of_pci(&sh, "0000:2b:00.0"), 1);
        assert_int_equal(nvml_slot_of_pci(&sh, "00000000:2B:00.0"), 1);
        assert_int_equal(nvml_slot_of_pci(&sh, "0000:2c:00.0"), -1);
        assert_int_equal(nvml_slot_of_pci(&sh, "garbage"), -1);
        assert_int_equal(nvml_slot_of_pci(NULL, "0000:01:00"), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup(test_identity, reset),
            cmocka_unit_test_setup(test_values_and_units, reset),
            cmocka_unit_test_setup(test_mid_cadence, reset),
            cmocka_unit_test_setup(test_unsupported_asked_once, reset),
            cmocka_unit_test_setup(test_transient_not_supported, reset),
            cmocka_unit_test_setup(test_reprobe, reset),
            cmocka_unit_test_setup(test_slow_fields, reset),
            cmocka_unit_test_setup(test_slow_field_values, reset),
            cmocka_unit_test_setup(test_lost_gpu_stops_at_once, reset),
            cmocka_unit_test_setup(test_every_call_failing, reset),
            cmocka_unit_test_setup(test_memory_v1_fallback, reset),
            cmocka_unit_test_setup(test_legacy_fan, reset),
            cmocka_unit_test_setup(test_library_loading, reset),
            cmocka_unit_test_setup(test_slot_lookup, reset),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
