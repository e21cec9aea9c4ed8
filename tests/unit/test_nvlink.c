/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: NVLink and the fabric. The reader (collect/nvml_read.c) on a fake function
 * table whose answers follow nvml.h 13.3 (collect/nvml_api.h cites the lines): every cell
 * of the frame against what the header says the call or field gives; the names
 * (core/nvlink.c) against the health mask's layout; the rules (detect/nvlink_rules.c):
 * which lines each change writes, and which it does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_lib.h"
#include "collect/nvml_read.h"
#include "core/nvlink.h"
#include "core/eventlog.h"
#include "core/frame.h"
#include "core/vigil.h"
#include "detect/nvlink_rules.h"
#include "resident.h"

/* The fake GPU: nlinks links, link `down` inactive; classic (up to Hopper) or NVLink5
 * counters; a fabric or none. */
static struct {
        unsigned nlinks; /* 0: no NVLink (NOT_SUPPORTED) */
        unsigned down;   /* the inactive link */
        bool nvlink5;
        bool fabric;            /* the fabric calls answer */
        bool v_refuses_version; /* GetGpuFabricInfoV answers ARGUMENT_VERSION_MISMATCH */
        unsigned state_calls, field_calls, fabric_v_calls, fabric_calls;
        int last_count;                /* values asked in the last field-values call */
        unsigned version_seen;         /* the version word GetGpuFabricInfoV was given */
        unsigned link_fields[64][400]; /* per link: how often each id was asked */
} fake;

static struct nvmlDevice_st *const dev = (struct nvmlDevice_st *)&fake;

static nvmlReturn_t f_state(nvmlDevice_t d, unsigned link, int *active)
{
        (void)d;
        fake.state_calls++;
        if (!fake.nlinks)
                return NVML_ERROR_NOT_SUPPORTED;
        if (link >= fake.nlinks)
                return NVML_ERROR_INVALID_ARGUMENT;
        *active = link == fake.down ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
        return NVML_SUCCESS;
}

/* A link counter's value: 1000 * (counter's field id) + link, so that every cell says
 * which field and link it came from. */
static unsigned long long counter_value(unsigned id, unsigned link)
{
        return 1000ULL * id + link;
}

static bool classic_id(unsigned id)
{
        return id == NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL ||
               id == NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL ||
               id == NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL ||
               id == NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL;
}

static bool nvlink5_id(unsigned id)
{
        return id == NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS ||
               id == NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS ||
               id == NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS ||
               id == NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS ||
               id == NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS;
}

static nvmlReturn_t f_fields(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
        (void)d;
        fake.field_calls++;
        fake.last_count = n;
        for (int i = 0; i < n; i++) {
                unsigned id = v[i].fieldId, l = v[i].scopeId;
                bool link = classic_id(id) || nvlink5_id(id);
                v[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                if (!link)
                        continue;
                if (l < 64 && id < 400)
                        fake.link_fields[l][id]++;
                if (l >= fake.nlinks) {
                        v[i].nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
                        continue;
                }
                if (fake.nvlink5 ? classic_id(id) : nvlink5_id(id))
                        continue; /* nvml.h 2651, 2659: the DL ones are not on Blackwell */
                v[i].nvmlReturn = NVML_SUCCESS;
                v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                v[i].value.ullVal = counter_value(id, l);
        }
        return NVML_SUCCESS;
}

static nvmlReturn_t f_fabric_v(nvmlDevice_t d, nvmlGpuFabricInfoV_t *fi)
{
        (void)d;
        fake.fabric_v_calls++;
        fake.version_seen = fi->version;
        if (!fake.fabric)
                return NVML_ERROR_NOT_SUPPORTED;
        if (fake.v_refuses_version)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        fi->state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;
        fi->status = NVML_SUCCESS;
        fi->cliqueId = 7;
        fi->healthMask = 0x11aa; /* every 2-bit field false, configuration correct,
                                  * partition assigned */
        return NVML_SUCCESS;
}

static nvmlReturn_t f_fabric(nvmlDevice_t d, nvmlGpuFabricInfo_t *fi)
{
        (void)d;
        fake.fabric_calls++;
        if (!fake.fabric)
                return NVML_ERROR_NOT_SUPPORTED;
        fi->state = NVML_GPU_FABRIC_STATE_COMPLETED;
        fi->status = NVML_ERROR_UNKNOWN;
        fi->cliqueId = 9;
        return NVML_SUCCESS;
}

static void fake_lib(struct nvml_lib *lib)
{
        memset(lib, 0, sizeof(*lib));
        lib->field_values = f_fields;
        lib->nvlink_state = f_state;
        lib->fabric_info_v = f_fabric_v;
        lib->fabric_info = f_fabric;
}

static int reset(void **state)
{
        (void)state;
        memset(&fake, 0, sizeof(fake));
        fake.down = 99;
        return 0;
}

/* The identity, then one slow sample into g; its result. */
static struct nvml_read_result slow_sample(const struct nvml_lib *lib, struct nvml_gpu *gpu,
                                           struct gpu_frame *g)
{
        struct nvml_read_result res;
        gpu_frame_clear(g);
        nvml_read_sample(lib, gpu, g, NVML_READ_SLOW, &res);
        return res;
}

static void identify(const struct nvml_lib *lib, struct nvml_gpu *gpu)
{
        memset(gpu, 0, sizeof(*gpu));
        gpu->handle = dev;
        assert_int_equal(nvml_read_identity(lib, gpu), NVML_SUCCESS);
}

static struct nvml_gpu gpu;
static struct gpu_frame g;

/* Pascal to Hopper: 4 links, link 2 inactive; each link's four per-link totals (ids 38,
 * 45, 52, 59 with the link in scopeId) land in their cells; NVLink5's stay missing. */
static void test_classic_links(void **state)
{
        (void)state;
        struct nvml_lib lib;
        fake_lib(&lib);
        fake.nlinks = 4;
        fake.down = 2;
        identify(&lib, &gpu);
        fake.field_calls = 0; /* the identity's recovery action */
        struct nvml_read_result res = slow_sample(&lib, &gpu, &g);
        assert_int_equal(g.nvlinks, 4);
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS; l++) {
                if (l >= 4) {
                        assert_true(isnan(g.nvlink_up[l]));
                        for (unsigned c = 0; c < NVLINK_COUNTERS; c++)
                                assert_true(isnan(g.nvlink_errors[l][c]));
                        assert_int_equal(fake.link_fields[l][38], 0); /* never asked */
                        continue;
                }
                assert_true(g.nvlink_up[l] == (l == 2 ? 0 : 1));
                assert_true(g.nvlink_errors[l][NVL_CRC_FLIT] == counter_value(38, l));
                assert_true(g.nvlink_errors[l][NVL_CRC_DATA] == counter_value(45, l));
                assert_true(g.nvlink_errors[l][NVL_REPLAY] == counter_value(52, l));
                assert_true(g.nvlink_errors[l][NVL_RECOVERY] == counter_value(59, l));
                for (unsigned c = NVL_RECOVERY_EVENTS; c < NVLINK_COUNTERS; c++)
                        assert_true(isnan(g.nvlink_errors[l][c]));
        }
        assert_true(g.nvlink_links_up == 3);
        double sum = 0;
        for (unsigned l = 0; l < 4; l++)
                sum += counter_value(38, l) + counter_value(45, l) + counter_value(52, l) +
                       counter_value(59, l);
        assert_true(g.nvlink_error_sum == sum);
        /* the counters rode in the one batch: 15 slow fields (collect/nvml_read.c enum slow_field) + 4 links x 9 counters */
        assert_int_equal(fake.field_calls, 1);
        assert_int_equal(fake.last_count, 15 + 4 * NVLINK_COUNTERS);
        /* discovery asked links 0..17 once; the sample asked the 4 links' state */
        assert_int_equal(fake.state_calls, VIGIL_MAX_NVLINKS + 4);
        assert_int_equal(res.asked, 1 + 4 + 1); /* the batch, 4 states, the fabric */
        /* the next slow sample: no discovery again */
        fake.state_calls = 0;
        slow_sample(&lib, &gpu, &g);
        assert_int_equal(fake.state_calls, 4);
}

/* Blackwell: NVLink5's counters (213-215, 219, 221) in their cells, the DL ones missing. */
static void test_nvlink5_links(void **state)
{
        (void)state;
        struct nvml_lib lib;
        fake_lib(&lib);
        fake.nlinks = 18;
        fake.nvlink5 = true;
        identify(&lib, &gpu);
        slow_sample(&lib, &gpu, &g);
        assert_int_equal(g.nvlinks, 18);
        for (unsigned l = 0; l < 18; l++) {
                assert_true(g.nvlink_up[l] == 1);
                for (unsigned c = NVL_CRC_FLIT; c <= NVL_RECOVERY; c++)
                        assert_true(isnan(g.nvlink_errors[l][c]));
                assert_true(g.nvlink_errors[l][NVL_RECOVERY_EVENTS] == counter_value(215, l));
                assert_true(g.nvlink_errors[l][NVL_RECOVERY_SUCCESSFUL] == counter_value(213, l));
                assert_true(g.nvlink_errors[l][NVL_RECOVERY_FAILED] == counter_value(214, l));
                assert_true(g.nvlink_errors[l][NVL_SYMBOL] == counter_value(221, l));
                assert_true(g.nvlink_errors[l][NVL_EFFECTIVE] == counter_value(219, l));
        }
        assert_true(g.nvlink_links_up == 18);
}

/* A GPU without NVLink (NOT_SUPPORTED at link 0) and without a fabric: no link asked in
 * the batch, every cell missing (never 0), the fabric call retired after its refusals
 * and the links asked again (one call) only at a re-probe. */
static void test_no_nvlink_no_fabric(void **state)
{
        (void)state;
        struct nvml_lib lib;
        fake_lib(&lib);
        identify(&lib, &gpu);
        for (int i = 0; i < 5; i++)
                slow_sample(&lib, &gpu, &g);
        assert_int_equal(g.nvlinks, 0);
        assert_int_equal(fake.state_calls, 1); /* link 0 once: NOT_SUPPORTED */
        assert_int_equal(fake.last_count, 15); /* the batch without link fields */
        for (unsigned l = 0; l < VIGIL_MAX_NVLINKS; l++) {
                assert_true(isnan(g.nvlink_up[l]));
                for (unsigned c = 0; c < NVLINK_COUNTERS; c++)
                        assert_true(isnan(g.nvlink_errors[l][c]));
        }
        assert_true(isnan(g.nvlink_links_up));
        assert_true(isnan(g.nvlink_error_sum));
        assert_true(isnan(g.fabric_state));
        assert_true(isnan(g.fabric_status));
        assert_true(isnan(g.fabric_clique));
        assert_true(isnan(g.fabric_health_mask));
        assert_int_equal(fake.fabric_v_calls, NVML_RETIRE_AFTER);
        nvml_read_reprobe(&gpu);
        slow_sample(&lib, &gpu, &g);
        assert_int_equal(fake.state_calls, 2);
        assert_int_equal(fake.fabric_v_calls, NVML_RETIRE_AFTER + 1);
}

/* nvmlDeviceGetGpuFabricInfoV gets the v3 version word (NVML_STRUCT_VERSION: sizeof | 3
 * << 24 = 0x03000028) and its answer lands cell for cell. */
static void test_fabric_v3(void **state)
{
        (void)state;
        struct nvml_lib lib;
        fake_lib(&lib);
        fake.fabric = true;
        identify(&lib, &gpu);
        slow_sample(&lib, &gpu, &g);
        assert_int_equal(fake.version_seen, 0x03000028u);
        assert_true(g.fabric_state == NVML_GPU_FABRIC_STATE_IN_PROGRESS);
        assert_true(g.fabric_status == 0);
        assert_true(g.fabric_clique == 7);
        assert_true(g.fabric_health_mask == 0x11aa);
        assert_int_equal(fake.fabric_calls, 0);
}

/* A driver that refuses the version: the plain call, without a health mask, and the V
 * call not asked again. */
static void test_fabric_version_fallback(void **state)
{
        (void)state;
        struct nvml_lib lib;
        fake_lib(&lib);
        fake.fabric = true;
        fake.v_refuses_version = true;
        identify(&lib, &gpu);
        slow_sample(&lib, &gpu, &g);
        slow_sample(&lib, &gpu, &g);
        assert_int_equal(fake.fabric_v_calls, 1);
        assert_int_equal(fake.fabric_calls, 2);
        assert_true(g.fabric_state == NVML_GPU_FABRIC_STATE_COMPLETED);
        assert_true(g.fabric_status == NVML_ERROR_UNKNOWN);
        assert_true(g.fabric_clique == 9);
        assert_true(isnan(g.fabric_health_mask));
}

/* The health mask's fields as nvml.h lays them out (lines 3822-3886). */
static void test_health_faults(void **state)
{
        (void)state;
        static const struct {
                unsigned mask;
                const char *want;
        } cases[] = {
            {0x0000, ""},                /* nothing supported */
            {0x11aa, ""},                /* every field healthy */
            {0x0001, "degraded_bw"},     /* DEGRADED_BW_TRUE at shift 0 */
            {0x0002, ""},                /* DEGRADED_BW_FALSE */
            {0x0004, "route_recovery"},  /* shift 2 */
            {0x0010, "route_unhealthy"}, /* shift 4 */
            {0x0040, "access_timeout_recovery"},
            {0x0100, ""},                        /* INCORRECT_CONFIGURATION_NONE */
            {0x0500, "incorrect_configuration"}, /* 5: insufficient NVLinks */
            {0x2000, "no_partition"},            /* PARTITION_ASSIGNED_FALSE */
            {0x0015, "degraded_bw,route_recovery,route_unhealthy"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char buf[128];
                struct strbuf sb;
                sb_init_fixed(&sb, buf, sizeof(buf));
                bool any = fabric_health_faults(cases[i].mask, &sb);
                assert_string_equal(buf, cases[i].want);
                assert_int_equal(any, cases[i].want[0] != '\0');
        }
        assert_string_equal(fabric_state_name(2), "in_progress");
        assert_string_equal(fabric_state_name(3), "completed");
        assert_string_equal(nvlink_counter_name(NVL_RECOVERY_FAILED), "recovery_failed");
}

/* ---- The rules ---- */

static char lines[16][200];
static unsigned nlines;

static void collect(void *arg, enum event_kind kind, const char *text)
{
        (void)arg;
        assert_true(nlines < 16);
        snprintf(lines[nlines++], sizeof(lines[0]), "%s%s", event_kind(kind)->name, text);
}

static void frame_with_links(struct gpu_frame *f, unsigned n)
{
        gpu_frame_clear(f);
        f->index = 0;
        f->nvlinks = n;
        for (unsigned l = 0; l < n; l++) {
                f->nvlink_up[l] = 1;
                for (unsigned c = 0; c < NVL_RECOVERY_EVENTS; c++)
                        f->nvlink_errors[l][c] = 0;
        }
}

#define S(n) ((int64_t)(n)*1000000000LL)

/* A counter that rises: no line for the baseline, one for the rise, the rises within a
 * minute summed into the next line, none for a counter that falls (a reload). */
static void test_rules_counters(void **state)
{
        (void)state;
        struct nvlink_watch w;
        nvlink_watch_init(&w);
        nlines = 0;
        frame_with_links(&g, 4);
        g.nvlink_errors[3][NVL_RECOVERY] = 5; /* history before vigil: a baseline */
        nvlink_watch_step(&w, &g, 1000, S(10), collect, NULL);
        assert_int_equal(nlines, 0);
        g.nvlink_errors[3][NVL_RECOVERY] = 7;
        nvlink_watch_step(&w, &g, 1000, S(20), collect, NULL);
        assert_int_equal(nlines, 1);
        assert_string_equal(lines[0],
                            "NVLINK gpu=0 link=3 state=errors counter=recovery delta=2 total=7");
        g.nvlink_errors[3][NVL_RECOVERY] = 8;
        nvlink_watch_step(&w, &g, 1000, S(40), collect, NULL);
        g.nvlink_errors[3][NVL_RECOVERY] = 10;
        nvlink_watch_step(&w, &g, 1000, S(60), collect, NULL);
        assert_int_equal(nlines, 1); /* within the minute: held */
        nvlink_watch_step(&w, &g, 1000, S(80), collect, NULL);
        assert_int_equal(nlines, 2);
        assert_string_equal(lines[1],
                            "NVLINK gpu=0 link=3 state=errors counter=recovery delta=3 total=10");
        g.nvlink_errors[3][NVL_RECOVERY] = 0; /* the driver reloaded */
        nvlink_watch_step(&w, &g, 1000, S(200), collect, NULL);
        nvlink_watch_step(&w, &g, 1000, S(300), collect, NULL);
        assert_int_equal(nlines, 2);
        g.nvlink_errors[3][NVL_RECOVERY] = 1;
        nvlink_watch_step(&w, &g, 1000, S(400), collect, NULL);
        assert_int_equal(nlines, 3);
        assert_string_equal(lines[2],
                            "NVLINK gpu=0 link=3 state=errors counter=recovery delta=1 total=1");
}

/* A link that was up and goes down: one line, one when it is back; a link down from the
 * start (never up) is no line. */
static void test_rules_link_state(void **state)
{
        (void)state;
        struct nvlink_watch w;
        nvlink_watch_init(&w);
        nlines = 0;
        frame_with_links(&g, 4);
        g.nvlink_up[1] = 0;
        nvlink_watch_step(&w, &g, 1000, S(1), collect, NULL);
        assert_int_equal(nlines, 0);
        g.nvlink_up[2] = 0;
        nvlink_watch_step(&w, &g, 1000, S(2), collect, NULL);
        nvlink_watch_step(&w, &g, 1000, S(3), collect, NULL);
        assert_int_equal(nlines, 1);
        assert_string_equal(lines[0], "NVLINK gpu=0 link=2 state=down");
        g.nvlink_up[2] = VAL_MISSING; /* not answered: no change */
        nvlink_watch_step(&w, &g, 1000, S(4), collect, NULL);
        g.nvlink_up[2] = 1;
        nvlink_watch_step(&w, &g, 1000, S(5), collect, NULL);
        assert_int_equal(nlines, 2);
        assert_string_equal(lines[1], "NVLINK gpu=0 link=2 state=up");
}

/* The fabric: in progress within the grace is nothing; past it, incomplete; completed
 * after that, a line; a completed probe with an error, failed; health faults and their
 * end. A GPU without a fabric (missing) is nothing. */
static void test_rules_fabric(void **state)
{
        (void)state;
        struct nvlink_watch w;
        nvlink_watch_init(&w);
        nlines = 0;
        frame_with_links(&g, 0);
        nvlink_watch_step(&w, &g, 10000, S(1), collect, NULL);
        assert_int_equal(nlines, 0);
        g.fabric_state = 2;
        g.fabric_status = 0;
        nvlink_watch_step(&w, &g, FABRIC_GRACE_S - 1, S(2), collect, NULL);
        assert_int_equal(nlines, 0);
        nvlink_watch_step(&w, &g, FABRIC_GRACE_S, S(3), collect, NULL);
        nvlink_watch_step(&w, &g, FABRIC_GRACE_S + 10, S(4), collect, NULL);
        assert_int_equal(nlines, 1);
        assert_string_equal(lines[0], "FABRIC gpu=0 state=incomplete fabric=in_progress");
        g.fabric_state = 3;
        nvlink_watch_step(&w, &g, 2000, S(5), collect, NULL);
        assert_int_equal(nlines, 2);
        assert_string_equal(lines[1], "FABRIC gpu=0 state=completed fabric=completed");
        g.fabric_status = NVML_ERROR_UNKNOWN;
        nvlink_watch_step(&w, &g, 2000, S(6), collect, NULL);
        assert_string_equal(lines[2], "FABRIC gpu=0 state=failed fabric=completed status=999");
        g.fabric_status = 0;
        g.fabric_health_mask = 0x11a9; /* degraded bandwidth */
        nvlink_watch_step(&w, &g, 2000, S(7), collect, NULL);
        nvlink_watch_step(&w, &g, 2000, S(8), collect, NULL);
        assert_int_equal(nlines, 5);
        assert_string_equal(lines[3], "FABRIC gpu=0 state=completed fabric=completed");
        assert_string_equal(lines[4], "FABRIC gpu=0 state=degraded health=degraded_bw");
        g.fabric_health_mask = 0x11aa;
        nvlink_watch_step(&w, &g, 2000, S(9), collect, NULL);
        assert_int_equal(nlines, 6);
        assert_string_equal(lines[5], "FABRIC gpu=0 state=healthy");
        /* Faults that outlive a failed probe are said again after its completed line
         * (which clears gpuN.fabric); their end while it failed is not a healthy line. */
        nlines = 0;
        g.fabric_health_mask = 0x11a9;
        g.fabric_status = NVML_ERROR_UNKNOWN;
        nvlink_watch_step(&w, &g, 2000, S(10), collect, NULL);
        g.fabric_health_mask = 0x11aa;
        nvlink_watch_step(&w, &g, 2000, S(11), collect, NULL);
        assert_int_equal(nlines, 2);
        assert_string_equal(lines[0], "FABRIC gpu=0 state=failed fabric=completed status=999");
        assert_string_equal(lines[1], "FABRIC gpu=0 state=degraded health=degraded_bw");
        g.fabric_health_mask = 0x11a9;
        g.fabric_status = 0;
        nvlink_watch_step(&w, &g, 2000, S(12), collect, NULL);
        assert_int_equal(nlines, 4);
        assert_string_equal(lines[2], "FABRIC gpu=0 state=completed fabric=completed");
        assert_string_equal(lines[3], "FABRIC gpu=0 state=degraded health=degraded_bw");
}

/* The detector keeps a watch for every GPU slot, but writes only the watches of the GPUs
 * it is fed: with one GPU the others' pages are never touched (they were all written at
 * start, 430 kB resident on every machine with NVML). */
static void test_detector_touches_sampled_gpus_only(void **state)
{
        (void)state;
        struct frame *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        frame_init(f);
        f->ngpus = 1;
        frame_with_links(&f->gpus[0], 18);
        f->gpus[0].present = f->gpus[0].ok = f->gpus[0].sampled = true;
        struct vigil_ctx ctx;
        memset(&ctx, 0, sizeof(ctx));
        ctx.frame = f;
        ctx.nvml = (struct nvml_shared *)&ctx; /* only whether there is one is looked at */
        assert_int_equal(eventlog_open_none(&ctx.events), 0);
        long before = self_anon_kb();
        void *st = NULL;
        assert_int_equal(vigil_detector_nvlink.init(&ctx, &st), 0);
        struct tick t = {.mono_ns = S(1), .real_ns = S(1764770000)};
        vigil_detector_nvlink.feed(st, &ctx, &t);
        f->gpus[0].nvlink_up[3] = 0;
        t.mono_ns = S(2);
        vigil_detector_nvlink.feed(st, &ctx, &t);
        long grown = self_anon_kb() - before;
        assert_true(before > 0);
#ifndef __SANITIZE_ADDRESS__ /* ASan's allocator and shadow write memory of their own */
        assert_true(grown < 64);
#else
        (void)grown;
#endif
        vigil_detector_nvlink.fini(st);
        eventlog_close(ctx.events);
        free(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup(test_classic_links, reset),
            cmocka_unit_test_setup(test_nvlink5_links, reset),
            cmocka_unit_test_setup(test_no_nvlink_no_fabric, reset),
            cmocka_unit_test_setup(test_fabric_v3, reset),
            cmocka_unit_test_setup(test_fabric_version_fallback, reset),
            cmocka_unit_test(test_health_faults),
            cmocka_unit_test(test_rules_counters),
            cmocka_unit_test(test_rules_link_state),
            cmocka_unit_test(test_rules_fabric),
            cmocka_unit_test(test_detector_touches_sampled_gpus_only),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
