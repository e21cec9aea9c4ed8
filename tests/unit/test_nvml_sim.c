/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the simulated NVML (tests/nvml-sim/), used the way a client uses the real
 * library: dlopen of build/nvml-sim/libnvidia-ml.so.1 (next to this binary's build
 * directory, or $VIGIL_NVML_SIM_LIB) and dlsym of each entry point. The test runs from
 * the repository root, where the scenario files are. */
#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/nvml_api.h"

/* Every entry point the tests call, resolved with dlsym. */
#define NVML_FUNCS(X)                                                                              \
        X(nvmlInit_v2)                                                                             \
        X(nvmlInit)                                                                                \
        X(nvmlShutdown)                                                                            \
        X(nvmlErrorString)                                                                         \
        X(nvmlSystemGetDriverVersion)                                                              \
        X(nvmlDeviceGetCount_v2)                                                                   \
        X(nvmlDeviceGetHandleByIndex_v2)                                                           \
        X(nvmlDeviceGetPciInfo_v3)                                                                 \
        X(nvmlDeviceGetPciInfo_v2)                                                                 \
        X(nvmlDeviceGetName)                                                                       \
        X(nvmlDeviceGetUUID)                                                                       \
        X(nvmlDeviceGetSerial)                                                                     \
        X(nvmlDeviceGetVbiosVersion)                                                               \
        X(nvmlDeviceGetTemperature)                                                                \
        X(nvmlDeviceGetTemperatureThreshold)                                                       \
        X(nvmlDeviceGetThermalSettings)                                                            \
        X(nvmlDeviceGetPowerUsage)                                                                 \
        X(nvmlDeviceGetPowerManagementLimit)                                                       \
        X(nvmlDeviceGetEnforcedPowerLimit)                                                         \
        X(nvmlDeviceGetTotalEnergyConsumption)                                                     \
        X(nvmlDeviceGetPerformanceState)                                                           \
        X(nvmlDeviceGetClockInfo)                                                                  \
        X(nvmlDeviceGetCurrentClocksEventReasons)                                                  \
        X(nvmlDeviceGetCurrentClocksThrottleReasons)                                               \
        X(nvmlDeviceGetUtilizationRates)                                                           \
        X(nvmlDeviceGetMemoryInfo)                                                                 \
        X(nvmlDeviceGetMemoryInfo_v2)                                                              \
        X(nvmlDeviceGetCurrPcieLinkGeneration)                                                     \
        X(nvmlDeviceGetCurrPcieLinkWidth)                                                          \
        X(nvmlDeviceGetPcieReplayCounter)                                                          \
        X(nvmlDeviceGetNumFans)                                                                    \
        X(nvmlDeviceGetFanSpeed)                                                                   \
        X(nvmlDeviceGetFanSpeed_v2)                                                                \
        X(nvmlDeviceGetTargetFanSpeed)                                                             \
        X(nvmlDeviceGetFanControlPolicy_v2)                                                        \
        X(nvmlDeviceGetTotalEccErrors)                                                             \
        X(nvmlDeviceGetRemappedRows)                                                               \
        X(nvmlDeviceGetFieldValues)                                                                \
        X(nvmlDeviceGetNvLinkState)                                                                \
        X(nvmlDeviceGetNvLinkErrorCounter)                                                         \
        X(nvmlDeviceGetGpuFabricInfoV)                                                             \
        X(nvmlDeviceGetGpuFabricInfo)                                                              \
        X(nvmlEventSetCreate)                                                                      \
        X(nvmlDeviceRegisterEvents)                                                                \
        X(nvmlDeviceGetSupportedEventTypes)                                                        \
        X(nvmlEventSetWait_v2)                                                                     \
        X(nvmlEventSetWait)                                                                        \
        X(nvmlEventSetFree)

struct nvml {
#define FIELD(n) n##_fn n;
        NVML_FUNCS(FIELD)
#undef FIELD
};

static struct nvml N;
static char sim_dir[4096]; /* .../nvml-sim */
static char tmp_dir[64];
static unsigned scenario_seq;
static char scenario_paths[16][128]; /* the last few scenario() results */
static char stderr_text[1024];       /* what stderr_of() captured */

static void *open_lib(const char *path, struct nvml *n)
{
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return NULL;
#define LOAD(f) n->f = (f##_fn)dlsym(h, #f);
        NVML_FUNCS(LOAD)
#undef LOAD
        return h;
}

static int group_setup(void **state)
{
        (void)state;
        const char *env = getenv("VIGIL_NVML_SIM_LIB");
        char exe[4096] = "";
        if (env) {
                snprintf(exe, sizeof(exe), "%s", env);
                snprintf(sim_dir, sizeof(sim_dir), "%s", dirname(exe));
        } else {
                ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
                if (n <= 0)
                        return -1;
                exe[n] = '\0'; /* BUILD/tests/test_nvml_sim */
                snprintf(sim_dir, sizeof(sim_dir), "%s/nvml-sim", dirname(dirname(exe)));
        }
        char path[4200];
        snprintf(path, sizeof(path), "%s/libnvidia-ml.so.1", sim_dir);
        snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/vigil-nvmlsim.XXXXXX");
        if (!open_lib(path, &N) || !mkdtemp(tmp_dir))
                return -1;
        unsetenv("VIGIL_NVML_SIM_LOG");
        return 0;
}

static int group_teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp_dir);
        return system(cmd) == 0 ? 0 : -1;
}

/* Leave the library uninitialised for the next test, whatever this one did. */
static int shutdown_all(void **state)
{
        (void)state;
        while (N.nvmlShutdown() == NVML_SUCCESS)
                ;
        unsetenv("VIGIL_NVML_SIM_LOG");
        return 0;
}

/* Write text to a new scenario file (a new path: the simulator loads it afresh). */
static const char *scenario(const char *text)
{
        char *path = scenario_paths[scenario_seq % 16];
        snprintf(path, 128, "%s/s%u", tmp_dir, scenario_seq);
        scenario_seq++;
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        return path;
}

static nvmlDevice_t start(const char *path, unsigned index)
{
        nvmlDevice_t d = NULL;
        setenv("VIGIL_NVML_SCENARIO", path, 1);
        assert_int_equal(N.nvmlInit_v2(), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(index, &d), NVML_SUCCESS);
        return d;
}

static unsigned temp(nvmlDevice_t d) /* one sample */
{
        unsigned t = 0;
        assert_int_equal(N.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
        return t;
}

static unsigned power(nvmlDevice_t d)
{
        unsigned p = 0;
        assert_int_equal(N.nvmlDeviceGetPowerUsage(d, &p), NVML_SUCCESS);
        return p;
}

/* Run fn with stderr going to a file; return what it wrote (static buffer). */
static const char *stderr_of(nvmlReturn_t (*fn)(void), nvmlReturn_t *ret)
{
        char *out = stderr_text;
        char path[128];
        snprintf(path, sizeof(path), "%s/stderr", tmp_dir);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int saved = dup(2);
        assert_true(fd >= 0 && saved >= 0);
        dup2(fd, 2);
        *ret = fn();
        dup2(saved, 2);
        close(saved);
        ssize_t n = pread(fd, out, sizeof(stderr_text) - 1, 0);
        close(fd);
        out[n > 0 ? n : 0] = '\0';
        return out;
}

static void test_before_init_and_errors(void **state)
{
        (void)state;
        unsigned n = 7;
        nvmlDevice_t d;
        nvmlReturn_t r;
        assert_int_equal(N.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_ERROR_UNINITIALIZED);
        assert_int_equal(N.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
        assert_int_equal(n, 7);
        assert_string_equal(N.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
        assert_string_equal(N.nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported");
        assert_string_equal(N.nvmlErrorString(NVML_ERROR_TIMEOUT), "Timeout");
        assert_string_equal(N.nvmlErrorString(NVML_SUCCESS), "Success");
        assert_string_equal(N.nvmlErrorString(12345), "Unknown Error");
        unsetenv("VIGIL_NVML_SCENARIO");
        const char *err = stderr_of(N.nvmlInit_v2, &r);
        assert_int_equal(r, NVML_ERROR_DRIVER_NOT_LOADED);
        assert_string_equal(err, "nvml-sim: VIGIL_NVML_SCENARIO is not set\n");
        setenv("VIGIL_NVML_SCENARIO", scenario("driver 1.2\ninit_error 18\n"), 1);
        assert_int_equal(N.nvmlInit_v2(), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
        assert_int_equal(N.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
}

static void test_bad_scenarios(void **state)
{
        (void)state;
        static const struct {
                const char *text, *msg;
        } cases[] = {
            {"gpu 0\nset 0 tmp=4\n", ":2: unknown field 'tmp'"},
            {"gpu 0\n# ok\nset 0 temp=-1\n", ":3: '-1' is not a number from 0 to 4294967295"},
            {"gpu 1\n", ":1: GPU 1 declared out of order (expected 0)"},
            {"gpu 0 name=\"x\nset 0 temp=1\n", ":1: unterminated quote"},
            {"gpu 0\nat 0 step 5 ramp temp=3\n", ":2: missing 'over'"},
            {"gpu 0\nat 0 step 5 explode\n", ":2: unknown action 'explode'"},
            {"gpu 0\nat 1 step 5 lost\n", ":2: GPU 1 has no 'gpu' line before this one"},
            {"gpu 0 pci=0:1:2.3\n", ":1: pci='0:1:2.3' is not DOMAIN:BUS:DEVICE.0"},
            {"gpu 0\nat 0 step 1 event boom\n", ":2: expected an event type"},
            {"gpu 0 fans=9\n", ":1: '9' is not a number from 0 to 8"},
            {"driver 1\n", ":0: no 'gpu' line"},
            {"gpu 0\nunsupported 0 fan*,nope\n", ":2: unknown field 'nope'"},
            {"gpu 0\nat 0 step 2 xid 79 count=0\n", ":2: '0' is not a number from 1 to"},
            {"gpu 0\nat 0 step 2 wait_error 10\n", ":2: wait_error 10 is a timeout, not an error"},
            {"gpu 0\nat 0 step 2 wait_error 999 data=3\n", ":2: wait_error takes only count="},
            {"gpu 0\nproc 0 pid=5\n", ":2: proc needs pid=, type= and until > from"},
            {"gpu 0\nproc 0 pid=5 type=gpu\n", ":2: bad proc attribute 'type=gpu'"},
            {"gpu 0\nproc 0 pid=5 type=compute from=9 until=3\n",
             ":2: proc needs pid=, type= and until > from"},
            {"gpu 0\nproc 0 pid=5 type=compute junk\n", ":2: 'junk': expected KEY=VALUE"},
            {"gpu 0\nproc_error 0 0\n", ":2: '0' is not a number from 1 to 999"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                nvmlReturn_t r;
                const char *path = scenario(cases[i].text);
                setenv("VIGIL_NVML_SCENARIO", path, 1);
                const char *err = stderr_of(N.nvmlInit_v2, &r);
                assert_int_equal(r, NVML_ERROR_UNKNOWN);
                char want[256];
                snprintf(want, sizeof(want), "nvml-sim: %s%s", path, cases[i].msg);
                assert_memory_equal(err, want, strlen(want));
        }
}

static void test_healthy_values(void **state)
{
        (void)state;
        nvmlDevice_t d = start("tests/nvml-sim/scenarios/healthy-1gpu", 0);
        unsigned u, n = 0;
        unsigned long long ull;
        int i;
        char s[96];
        assert_int_equal(N.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
        assert_int_equal(n, 1);
        assert_int_equal(temp(d), 45);
        assert_int_equal(power(d), 85000);
        assert_int_equal(N.nvmlDeviceGetPowerManagementLimit(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 600000);
        assert_int_equal(N.nvmlDeviceGetEnforcedPowerLimit(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 600000);
        assert_int_equal(N.nvmlDeviceGetTotalEnergyConsumption(d, &ull), NVML_SUCCESS);
        assert_int_equal(ull, 1008500); /* step 1: 1000000 + 8500 */
        assert_int_equal(N.nvmlDeviceGetPerformanceState(d, &i), NVML_SUCCESS);
        assert_int_equal(i, 8);
        assert_int_equal(N.nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &u), NVML_SUCCESS);
        assert_int_equal(u, 9000);
        assert_int_equal(N.nvmlDeviceGetClockInfo(d, NVML_CLOCK_VIDEO, &u), NVML_SUCCESS);
        assert_int_equal(u, 1100);
        assert_int_equal(N.nvmlDeviceGetClockInfo(d, 4, &u), NVML_ERROR_INVALID_ARGUMENT);
        nvmlUtilization_t ut;
        assert_int_equal(N.nvmlDeviceGetUtilizationRates(d, &ut), NVML_SUCCESS);
        assert_int_equal(ut.gpu, 10);
        assert_int_equal(ut.memory, 5);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 0, &u), NVML_SUCCESS);
        assert_int_equal(u, 98);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 3, &u), NVML_SUCCESS);
        assert_int_equal(u, 90);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 4, &u), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 7, &u),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetCurrPcieLinkGeneration(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 5);
        assert_int_equal(N.nvmlDeviceGetCurrPcieLinkWidth(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 16);
        assert_int_equal(N.nvmlDeviceGetPcieReplayCounter(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 0);
        assert_int_equal(N.nvmlDeviceGetCurrentClocksEventReasons(d, &ull), NVML_SUCCESS);
        assert_int_equal(ull, NVML_CLOCKS_EVENT_GPU_IDLE);
        assert_int_equal(N.nvmlDeviceGetCurrentClocksThrottleReasons(d, &ull), NVML_SUCCESS);
        assert_int_equal(ull, 1);
        assert_int_equal(N.nvmlSystemGetDriverVersion(s, sizeof(s)), NVML_SUCCESS);
        assert_string_equal(s, "570.86.15");
        assert_int_equal(N.nvmlSystemGetDriverVersion(s, 9), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_int_equal(N.nvmlDeviceGetName(d, s, sizeof(s)), NVML_SUCCESS);
        assert_string_equal(s, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
        assert_int_equal(N.nvmlDeviceGetUUID(d, s, sizeof(s)), NVML_SUCCESS);
        assert_string_equal(s, "GPU-3f5c8e2a-9d41-4b7e-a6c0-12d4e8f0b9a1");
        assert_int_equal(N.nvmlDeviceGetSerial(d, s, NVML_DEVICE_SERIAL_BUFFER_SIZE), NVML_SUCCESS);
        assert_string_equal(s, "1795024012345");
        assert_int_equal(N.nvmlDeviceGetVbiosVersion(d, s, 32), NVML_SUCCESS);
        assert_string_equal(s, "98.02.2E.00.03");
        assert_int_equal(N.nvmlDeviceGetName(d, NULL, 96), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetPowerUsage(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetPowerUsage((nvmlDevice_t)(void *)&u, &u),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(1, &d), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetTemperature(d, 1, &u), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_memory_pci_fans_thermal(void **state)
{
        (void)state;
        nvmlDevice_t d = start("tests/nvml-sim/scenarios/healthy-1gpu", 0);
        unsigned u;
        nvmlMemory_t m1;
        assert_int_equal(N.nvmlDeviceGetMemoryInfo(d, &m1), NVML_SUCCESS);
        assert_true(m1.total == 102642810880ULL && m1.used == 1073741824ULL &&
                    m1.free == 102642810880ULL - 1073741824ULL);
        nvmlMemory_v2_t m2 = {.version = 2};
        assert_int_equal(N.nvmlDeviceGetMemoryInfo_v2(d, &m2),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        m2.version = 0x02000028;
        assert_int_equal(N.nvmlDeviceGetMemoryInfo_v2(d, &m2), NVML_SUCCESS);
        assert_true(m2.reserved == 536870912ULL && m2.used == 536870912ULL && m2.free == m1.free &&
                    m2.total == m1.total);
        nvmlPciInfo_t pci;
        memset(&pci, 0x55, sizeof(pci));
        assert_int_equal(N.nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
        assert_string_equal((const char *)&pci + 36, "00000000:01:00.0");
        assert_string_equal(pci.busIdLegacy, "0000:01:00.0");
        assert_int_equal(pci.domain, 0);
        assert_int_equal(pci.bus, 1);
        assert_int_equal(pci.device, 0);
        assert_int_equal(N.nvmlDeviceGetNumFans(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 2);
        assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d, 1, &u), NVML_SUCCESS);
        assert_int_equal(u, 30);
        assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d, 2, &u), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetTargetFanSpeed(d, 0, &u), NVML_SUCCESS);
        assert_int_equal(u, 30);
        nvmlFanControlPolicy_t pol = 9;
        assert_int_equal(N.nvmlDeviceGetFanControlPolicy_v2(d, 1, &pol), NVML_SUCCESS);
        assert_int_equal(pol, NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW);
        nvmlGpuThermalSettings_t ts;
        assert_int_equal(N.nvmlDeviceGetThermalSettings(d, 0, &ts), NVML_SUCCESS);
        assert_int_equal(ts.count, 1);
        assert_int_equal(ts.sensor[0].controller, NVML_THERMAL_CONTROLLER_GPU_INTERNAL);
        assert_int_equal(ts.sensor[0].defaultMaxTemp, 127);
        assert_int_equal(ts.sensor[0].currentTemp, 45);
        assert_int_equal(ts.sensor[0].target, NVML_THERMAL_TARGET_GPU);
        unsigned long long ecc = 5;
        assert_int_equal(N.nvmlDeviceGetTotalEccErrors(d, 1, 1, &ecc), NVML_SUCCESS);
        assert_int_equal(ecc, 0);
        assert_int_equal(N.nvmlDeviceGetTotalEccErrors(d, 2, 0, &ecc), NVML_ERROR_INVALID_ARGUMENT);
        unsigned rows[4] = {9, 9, 9, 9};
        assert_int_equal(N.nvmlDeviceGetRemappedRows(d, &rows[0], &rows[1], &rows[2], &rows[3]),
                         NVML_SUCCESS);
        assert_true(rows[0] == 0 && rows[1] == 0 && rows[2] == 0 && rows[3] == 0);
}

static void test_steps_ramps_refcount(void **state)
{
        (void)state;
        const char *path = scenario("gpu 0\n"
                                    "set 0 temp=40 power_mw=1000\n"
                                    "at 0 step 3 set temp=50 # from the third sample on\n"
                                    "at 0 step 5 ramp temp=60 power_mw=2000 over 4\n"
                                    "at 0 step 7 set power_mw=7\n");
        nvmlDevice_t d = start(path, 0);
        static const unsigned want_t[] = {40, 40, 50, 50, 50, 53, 55, 58, 60, 60};
        static const unsigned want_p[] = {1000, 1000, 1000, 1000, 1000, 1250, 7, 7, 7, 7};
        assert_int_equal(power(d), 1000); /* step 0: before any sample */
        for (unsigned s = 1; s <= 8; s++) {
                assert_int_equal(temp(d), want_t[s - 1]);
                assert_int_equal(power(d), want_p[s - 1]);
                assert_int_equal(power(d), want_p[s - 1]); /* other calls do not step */
        }
        /* A second init is a reference; the timeline survives a shutdown/init. */
        assert_int_equal(N.nvmlInit(), NVML_SUCCESS);
        assert_int_equal(N.nvmlShutdown(), NVML_SUCCESS);
        assert_int_equal(power(d), 7);
        assert_int_equal(N.nvmlShutdown(), NVML_SUCCESS);
        unsigned u;
        assert_int_equal(N.nvmlDeviceGetPowerUsage(d, &u), NVML_ERROR_UNINITIALIZED);
        d = start(path, 0);
        assert_int_equal(temp(d), 60); /* step 9 */
        assert_int_equal(N.nvmlShutdown(), NVML_SUCCESS);
        d = start(scenario("gpu 0\nset 0 temp=40\n"), 0); /* another file starts afresh */
        assert_int_equal(temp(d), 40);
}

static void test_unsupported_and_fail(void **state)
{
        (void)state;
        nvmlDevice_t d = start("tests/nvml-sim/scenarios/unsupported-fields", 0);
        unsigned u, rows[4];
        unsigned long long ull;
        char s[32];
        nvmlGpuThermalSettings_t ts;
        assert_int_equal(temp(d), 45);
        assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d, 0, &u), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetTargetFanSpeed(d, 0, &u), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetFanControlPolicy_v2(d, 1, &u), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetTotalEccErrors(d, 0, 0, &ull), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetRemappedRows(d, &rows[0], &rows[1], &rows[2], &rows[3]),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetTotalEnergyConsumption(d, &ull), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 2, &u), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetTemperatureThreshold(d, 1, &u), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetThermalSettings(d, 0, &ts), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetSerial(d, s, sizeof(s)), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlDeviceGetPcieReplayCounter(d, &u), NVML_ERROR_NO_PERMISSION);
        assert_int_equal(N.nvmlShutdown(), NVML_SUCCESS);
        d = start(scenario("gpu 0\nset 0 temp=1 power_mw=5\n"
                           "at 0 step 2 fail power_mw=999\nat 0 step 3 fail power_mw=0\n"),
                  0);
        temp(d);
        assert_int_equal(power(d), 5);
        temp(d);
        assert_int_equal(N.nvmlDeviceGetPowerUsage(d, &u), NVML_ERROR_UNKNOWN);
        temp(d);
        assert_int_equal(power(d), 5);
}

static void test_lost_and_recovered(void **state)
{
        (void)state;
        nvmlDevice_t d = start(scenario("gpu 0 fans=1\nset 0 temp=50 power_mw=9 events=0x8\n"
                                        "at 0 step 3 xid 79\nat 0 step 3 lost\n"
                                        "at 0 step 6 recovered\n"),
                               0);
        nvmlEventSet_t set;
        nvmlEventData_t ev;
        unsigned u;
        assert_int_equal(N.nvmlEventSetCreate(&set), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceRegisterEvents(d, NVML_EVENT_XID_CRITICAL_ERROR, set),
                         NVML_SUCCESS);
        temp(d);
        temp(d);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_TIMEOUT);
        assert_int_equal(N.nvmlDeviceGetTemperature(d, 0, &u), NVML_ERROR_GPU_IS_LOST); /* 3 */
        assert_int_equal(N.nvmlDeviceGetPowerUsage(d, &u), NVML_ERROR_GPU_IS_LOST);
        assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d, 0, &u), NVML_ERROR_GPU_IS_LOST);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 1000), NVML_SUCCESS);
        assert_true(ev.eventData == 79 && ev.device == d);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 1000), NVML_ERROR_GPU_IS_LOST);
        nvmlDevice_t d2 = NULL;
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(0, &d2), NVML_ERROR_GPU_IS_LOST); /* 4 */
        assert_null(d2);
        assert_int_equal(N.nvmlDeviceGetTemperature(d, 0, &u), NVML_ERROR_GPU_IS_LOST); /* 5 */
        assert_int_equal(temp(d), 50);                                                  /* 6 */
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(0, &d2), NVML_SUCCESS);
        assert_ptr_equal(d2, d);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_TIMEOUT);
        assert_int_equal(N.nvmlEventSetFree(set), NVML_SUCCESS);
}

/* wait_error: the next waits fail with the code, whatever the set; then all is as before. */
static void test_wait_error(void **state)
{
        (void)state;
        nvmlDevice_t d = start(scenario("gpu 0\nset 0 temp=1 events=0x8\n"
                                        "at 0 step 2 wait_error 999 count=2\n"
                                        "at 0 step 2 xid 31\n"),
                               0);
        nvmlEventSet_t set;
        nvmlEventData_t ev;
        assert_int_equal(N.nvmlEventSetCreate(&set), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceRegisterEvents(d, NVML_EVENT_XID_CRITICAL_ERROR, set),
                         NVML_SUCCESS);
        temp(d);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_TIMEOUT);
        temp(d); /* step 2 */
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_UNKNOWN);
        assert_int_equal(N.nvmlEventSetWait(set, &ev, 0), NVML_ERROR_UNKNOWN);
        assert_int_equal(N.nvmlEventSetWait(set, &ev, 0), NVML_SUCCESS);
        assert_true(ev.eventType == NVML_EVENT_XID_CRITICAL_ERROR && ev.eventData == 31);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_TIMEOUT);
        assert_int_equal(N.nvmlEventSetFree(set), NVML_SUCCESS);
}

static void test_events(void **state)
{
        (void)state;
        nvmlDevice_t d = start(scenario("gpu 0\nset 0 temp=1 events=0x801d\n"
                                        "at 0 step 1 xid 13\n"
                                        "at 0 step 2 event pstate\n"
                                        "at 0 step 2 xid 48 count=3\n"
                                        "at 0 step 2 event recovery data=2\n"
                                        "at 0 step 2 event clock\n"),
                               0);
        nvmlEventSet_t set, other;
        nvmlEventData_t ev;
        unsigned long long sup = 0;
        assert_int_equal(N.nvmlDeviceGetSupportedEventTypes(d, &sup), NVML_SUCCESS);
        assert_int_equal(sup, 0x801d);
        assert_int_equal(N.nvmlEventSetCreate(&set), NVML_SUCCESS);
        assert_int_equal(N.nvmlEventSetCreate(&other), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceRegisterEvents(d, NVML_EVENT_PSTATE | 0x2, set),
                         NVML_ERROR_NOT_SUPPORTED); /* dbe is not supported: nothing registered */
        temp(d); /* step 1: the Xid 13 comes before registration */
        assert_int_equal(
            N.nvmlDeviceRegisterEvents(
                d, NVML_EVENT_XID_CRITICAL_ERROR | NVML_EVENT_GPU_RECOVERY_ACTION, set),
            NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceRegisterEvents(d, NVML_EVENT_CLOCK, other), NVML_SUCCESS);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_ERROR_TIMEOUT);
        temp(d); /* step 2 */
        for (int i = 0; i < 3; i++) {
                memset(&ev, 0, sizeof(ev));
                assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_SUCCESS);
                assert_true(ev.eventType == NVML_EVENT_XID_CRITICAL_ERROR && ev.eventData == 48);
                assert_true(ev.device == d && ev.gpuInstanceId == 0xFFFFFFFFu &&
                            ev.computeInstanceId == 0xFFFFFFFFu);
        }
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 0), NVML_SUCCESS);
        assert_true(ev.eventType == NVML_EVENT_GPU_RECOVERY_ACTION && ev.eventData == 2);
        assert_int_equal(N.nvmlEventSetWait_v2(set, &ev, 10), NVML_ERROR_TIMEOUT);
        assert_int_equal(N.nvmlEventSetWait_v2(other, &ev, 0), NVML_SUCCESS);
        assert_true(ev.eventType == NVML_EVENT_CLOCK && ev.eventData == 0);
        assert_int_equal(N.nvmlEventSetWait_v2(set, NULL, 0), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlEventSetFree(other), NVML_SUCCESS);
        assert_int_equal(N.nvmlEventSetWait_v2(other, &ev, 0), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlEventSetFree(other), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlEventSetFree(set), NVML_SUCCESS);
}

struct waiter {
        nvmlEventSet_t set;
        nvmlReturn_t r;
        nvmlEventData_t ev;
};

static void *wait_thread(void *arg)
{
        struct waiter *w = arg;
        w->r = N.nvmlEventSetWait_v2(w->set, &w->ev, 60000);
        return NULL;
}

/* One thread waits while another samples: the sample that reaches the step wakes it. */
static void test_events_across_threads(void **state)
{
        (void)state;
        nvmlDevice_t d = start("tests/nvml-sim/scenarios/xid-flood", 0);
        struct waiter w = {.r = -1};
        pthread_t t;
        assert_int_equal(N.nvmlEventSetCreate(&w.set), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceRegisterEvents(d, NVML_EVENT_XID_CRITICAL_ERROR, w.set),
                         NVML_SUCCESS);
        assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
        for (int s = 1; s <= 10; s++)
                temp(d);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(w.r, NVML_SUCCESS);
        assert_int_equal(w.ev.eventData, 62);
        unsigned long long seen[400] = {0};
        unsigned n = 0;
        nvmlEventData_t ev;
        for (int s = 11; s <= 30; s++)
                temp(d);
        while (n < 400 && N.nvmlEventSetWait_v2(w.set, &ev, 0) == NVML_SUCCESS)
                seen[n++] = ev.eventData;
        assert_int_equal(n, 353); /* the recovery event was not registered */
        assert_int_equal(seen[0], 45);
        assert_int_equal(seen[49], 45);
        assert_int_equal(seen[50], 119);
        assert_int_equal(seen[51], 154);
        assert_int_equal(seen[52], 13);
        assert_int_equal(seen[351], 13);
        assert_int_equal(seen[352], 31);
        assert_int_equal(N.nvmlEventSetFree(w.set), NVML_SUCCESS);
}

static void test_stall_and_log(void **state)
{
        (void)state;
        char log[128], buf[1024];
        snprintf(log, sizeof(log), "%s/calls.log", tmp_dir);
        setenv("VIGIL_NVML_SIM_LOG", log, 1);
        nvmlDevice_t d =
            start(scenario("gpu 0\nset 0 temp=3 power_mw=4\nat 0 step 1 stall 50\n"), 0);
        struct timespec a, b;
        unsigned u;
        temp(d);
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(power(d), 4); /* this call sleeps 50 ms first */
        clock_gettime(CLOCK_MONOTONIC, &b);
        int64_t ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
        assert_true(ms >= 50);
        assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d, 0, &u), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(N.nvmlShutdown(), NVML_SUCCESS);
        int fd = open(log, O_RDONLY | O_CLOEXEC);
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        assert_string_equal(buf, "nvmlInit_v2\n"
                                 "nvmlDeviceGetHandleByIndex_v2 0\n"
                                 "nvmlDeviceGetTemperature 0\n"
                                 "nvmlDeviceGetPowerUsage 0\n"
                                 "nvmlDeviceGetFanSpeed_v2 0\n"
                                 "nvmlShutdown\n");
}

static void test_eight_gpus(void **state)
{
        (void)state;
        nvmlDevice_t d[8];
        unsigned n;
        setenv("VIGIL_NVML_SCENARIO", "tests/nvml-sim/scenarios/healthy-8gpu", 1);
        assert_int_equal(N.nvmlInit_v2(), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
        assert_int_equal(n, 8);
        for (unsigned i = 0; i < 8; i++) {
                nvmlPciInfo_t pci;
                assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(i, &d[i]), NVML_SUCCESS);
                assert_int_equal(N.nvmlDeviceGetPciInfo_v3(d[i], &pci), NVML_SUCCESS);
                assert_int_equal(pci.bus, 0x18 + 0x10 * i);
                assert_int_equal(temp(d[i]), 30 + i);
                assert_int_equal(power(d[i]), 70000 + 1000 * i);
                assert_int_equal(N.nvmlDeviceGetNumFans(d[i], &n), NVML_SUCCESS);
                assert_int_equal(n, 0);
                assert_int_equal(N.nvmlDeviceGetFanSpeed_v2(d[i], 0, &n), NVML_ERROR_NOT_SUPPORTED);
        }
        char s[96];
        assert_int_equal(N.nvmlDeviceGetPciInfo_v2(d[7], &(nvmlPciInfo_t){0}), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetUUID(d[7], s, sizeof(s)), NVML_SUCCESS);
        assert_string_equal(s, "GPU-8c0e4a1f-2b3d-4e5f-9a6b-7c8d9e0f1a07");
}

/* NVLink and the fabric as nvml.h says: a GPU without NVLink answers NOT_SUPPORTED, a
 * link the GPU lacks INVALID_ARGUMENT; the counters by call and by field with the link
 * in scopeId; the fabric's v3 version word checked, the plain call without the mask. */
static void test_nvlink_fabric(void **state)
{
        (void)state;
        nvmlDevice_t d = start("tests/nvml-sim/scenarios/nvlink-down", 0), pcie;
        int active = -1;
        unsigned long long ull = 0;
        assert_int_equal(N.nvmlDeviceGetHandleByIndex_v2(1, &pcie), NVML_SUCCESS);
        assert_int_equal(N.nvmlDeviceGetNvLinkState(d, 5, &active), NVML_SUCCESS);
        assert_int_equal(active, NVML_FEATURE_ENABLED);
        assert_int_equal(N.nvmlDeviceGetNvLinkState(d, 18, &active), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(N.nvmlDeviceGetNvLinkState(pcie, 0, &active), NVML_ERROR_NOT_SUPPORTED);
        for (int s = 0; s < 30; s++)
                temp(d);
        assert_int_equal(N.nvmlDeviceGetNvLinkState(d, 5, &active), NVML_SUCCESS);
        assert_int_equal(active, NVML_FEATURE_DISABLED); /* down from step 20 */
        assert_int_equal(N.nvmlDeviceGetNvLinkErrorCounter(d, 7, NVML_NVLINK_ERROR_DL_REPLAY, &ull),
                         NVML_SUCCESS);
        assert_int_equal(ull, 4);
        assert_int_equal(N.nvmlDeviceGetNvLinkErrorCounter(d, 7, 9, &ull),
                         NVML_ERROR_INVALID_ARGUMENT);
        nvmlFieldValue_t v[3];
        memset(v, 0, sizeof(v));
        v[0].fieldId = NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL;
        v[0].scopeId = 7;
        v[1].fieldId = NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS; /* NVLink5 only */
        v[1].scopeId = 7;
        v[2].fieldId = NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL;
        v[2].scopeId = 30;
        assert_int_equal(N.nvmlDeviceGetFieldValues(d, 3, v), NVML_SUCCESS);
        assert_int_equal(v[0].nvmlReturn, NVML_SUCCESS);
        assert_int_equal(v[0].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
        assert_int_equal(v[0].value.ullVal, 4);
        assert_int_equal(v[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(v[2].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT);
        nvmlGpuFabricInfoV_t fi;
        memset(&fi, 0, sizeof(fi));
        fi.version = 0x02000028u; /* v2's word: refused */
        assert_int_equal(N.nvmlDeviceGetGpuFabricInfoV(d, &fi),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        fi.version = nvmlGpuFabricInfo_v3;
        assert_int_equal(N.nvmlDeviceGetGpuFabricInfoV(d, &fi), NVML_SUCCESS);
        assert_int_equal(fi.state, NVML_GPU_FABRIC_STATE_COMPLETED);
        assert_int_equal(fi.status, NVML_SUCCESS);
        assert_int_equal(fi.cliqueId, 4);
        assert_int_equal(fi.healthMask, 0xaa);
        nvmlGpuFabricInfo_t f1;
        assert_int_equal(N.nvmlDeviceGetGpuFabricInfo(d, &f1), NVML_SUCCESS);
        assert_int_equal(f1.state, NVML_GPU_FABRIC_STATE_COMPLETED);
        assert_int_equal(f1.cliqueId, 4);
        assert_int_equal(N.nvmlDeviceGetGpuFabricInfoV(pcie, &fi), NVML_ERROR_NOT_SUPPORTED);
}

static void test_old_driver(void **state)
{
        (void)state;
        struct nvml old;
        char path[4200];
        snprintf(path, sizeof(path), "%s/old/libnvidia-ml.so.1", sim_dir);
        void *h = open_lib(path, &old);
        assert_non_null(h);
        assert_null(old.nvmlDeviceGetCurrentClocksEventReasons);
        assert_null(old.nvmlDeviceGetPciInfo_v3);
        assert_null(old.nvmlDeviceGetMemoryInfo_v2);
        assert_null(old.nvmlDeviceGetFanSpeed_v2);
        assert_null(old.nvmlDeviceGetNumFans);
        assert_null(old.nvmlDeviceGetThermalSettings);
        assert_null(old.nvmlEventSetWait_v2);
        assert_null(old.nvmlDeviceGetGpuFabricInfoV);
        assert_non_null(old.nvmlDeviceGetGpuFabricInfo);
        assert_non_null(old.nvmlEventSetWait);
        assert_non_null(old.nvmlInit_v2);
        setenv("VIGIL_NVML_SCENARIO", "tests/nvml-sim/scenarios/fan-spike", 1);
        assert_int_equal(old.nvmlInit(), NVML_SUCCESS);
        nvmlDevice_t d;
        unsigned u;
        unsigned long long reasons;
        nvmlPciInfo_t pci;
        assert_int_equal(old.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
        for (int s = 0; s < 20; s++)
                assert_int_equal(old.nvmlDeviceGetTemperature(d, 0, &u), NVML_SUCCESS);
        assert_int_equal(old.nvmlDeviceGetFanSpeed(d, &u), NVML_SUCCESS);
        assert_int_equal(u, 60); /* step 20 */
        assert_int_equal(old.nvmlDeviceGetCurrentClocksThrottleReasons(d, &reasons), NVML_SUCCESS);
        assert_int_equal(reasons, 1);
        assert_int_equal(old.nvmlDeviceGetPciInfo_v2(d, &pci), NVML_SUCCESS);
        assert_string_equal(pci.busId, "00000000:01:00.0");
        assert_int_equal(old.nvmlShutdown(), NVML_SUCCESS);
        /* not dlclose()d: its scenario memory stays reachable for the leak checker */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_before_init_and_errors, shutdown_all),
            cmocka_unit_test_teardown(test_bad_scenarios, shutdown_all),
            cmocka_unit_test_teardown(test_healthy_values, shutdown_all),
            cmocka_unit_test_teardown(test_memory_pci_fans_thermal, shutdown_all),
            cmocka_unit_test_teardown(test_steps_ramps_refcount, shutdown_all),
            cmocka_unit_test_teardown(test_unsupported_and_fail, shutdown_all),
            cmocka_unit_test_teardown(test_lost_and_recovered, shutdown_all),
            cmocka_unit_test_teardown(test_events, shutdown_all),
            cmocka_unit_test_teardown(test_events_across_threads, shutdown_all),
            cmocka_unit_test_teardown(test_stall_and_log, shutdown_all),
            cmocka_unit_test_teardown(test_wait_error, shutdown_all),
            cmocka_unit_test_teardown(test_eight_gpus, shutdown_all),
            cmocka_unit_test_teardown(test_nvlink_fabric, shutdown_all),
            cmocka_unit_test_teardown(test_old_driver, shutdown_all),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
