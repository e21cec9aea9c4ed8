/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: a GPU's memory and PCIe link conditions (detect/gpu_condition.c), the
 * events.log lines the rules write for them (detect/gpu_rules.c) and the health states
 * those lines give (core/health_rules.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/health.h"
#include "core/options.h"
#include "detect/gpu_condition.h"
#include "detect/gpu_rules.h"
#include "detect/xid_catalog.h"

#define T0 1764770000.0

static void clear(struct gpu_frame *g)
{
        memset(g, 0, sizeof(*g));
        gpu_frame_clear(g);
        g->present = g->sampled = g->ok = true;
}

/* A V100-like GPU: no row remapping (missing), page retirement pending; then the worse
 * conditions win; missing values judge nothing (never read as 0 = "fine" or 1). */
static void test_memory_condition(void **state)
{
        (void)state;
        struct gpu_frame g;
        clear(&g);
        assert_int_equal(gpu_memory_condition(&g), GMC_OK);
        g.ecc_mode = 1;
        g.ecc_mode_pending = 0;
        assert_int_equal(gpu_memory_condition(&g), GMC_ECC_MODE_PENDING);
        g.retired_pending = 1;
        assert_int_equal(gpu_memory_condition(&g), GMC_RETIREMENT_PENDING);
        g.remap_pending = 1;
        assert_int_equal(gpu_memory_condition(&g), GMC_REMAP_PENDING);
        g.remap_failure = 1;
        assert_int_equal(gpu_memory_condition(&g), GMC_REMAP_FAILED);
        assert_string_equal(gpu_memory_cond_name(GMC_REMAP_FAILED), "remap_failed");
        clear(&g);
        g.ecc_mode = 1; /* pending missing: no verdict */
        g.retired_pending = 0;
        assert_int_equal(gpu_memory_condition(&g), GMC_OK);
}

/* Width below the maximum is degraded at any load; a lower generation only in P0, and
 * the P0 judgement is kept while the GPU idles (the link slows down at idle). */
static void test_link_degraded(void **state)
{
        (void)state;
        struct gpu_frame g;
        struct gpu_link_judge j = {0};
        clear(&g);
        g.pcie_max_gen = 4;
        g.pcie_max_width = 16;
        g.pcie_gen = 1;
        g.pcie_width = 16;
        g.pstate = 8;
        assert_false(gpu_link_degraded(&j, &g)); /* idle, slowed down: fine */
        g.pstate = 0;
        assert_true(gpu_link_degraded(&j, &g)); /* busy and still gen 1 */
        g.pstate = 8;
        assert_true(gpu_link_degraded(&j, &g)); /* idle: the busy verdict stays */
        g.pstate = 0;
        g.pcie_gen = 4;
        assert_false(gpu_link_degraded(&j, &g));
        g.pcie_width = 8; /* a riser at x8: at any load */
        g.pstate = 8;
        g.pcie_gen = 1;
        assert_true(gpu_link_degraded(&j, &g));
        g.pcie_max_width = NAN; /* no maximum read: the last verdict stays */
        assert_true(gpu_link_degraded(&j, &g));
        struct gpu_link_judge fresh = {0};
        assert_false(gpu_link_degraded(&fresh, &g));
}

struct rig {
        struct vigil_options opt;
        struct gpu_rules rules;
        struct gpu_stats stats;
        struct gpu_rules_out out;
        struct health h;
};

static struct rig *rig_new(void)
{
        struct rig *r = calloc(1, sizeof(*r));
        assert_non_null(r);
        options_defaults(&r->opt);
        gpu_rules_init(&r->rules, &r->opt, &r->stats, 1);
        health_init(&r->h, "5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10", xid_event_action, NULL);
        return r;
}

/* One sample through the rules; its lines of kind prefix fed to the health model.
 * Returns how many such lines it wrote. */
static unsigned step(struct rig *r, struct gpu_frame *g, const char *prefix, char *ret_line)
{
        static int64_t mono = 1000000000;
        mono += 100000000;
        gpu_rules_step(&r->rules, 0, g, &r->stats, mono, &r->out);
        unsigned n = 0;
        for (unsigned i = 0; i < r->out.nevent; i++) {
                const char *l = r->out.event[i];
                health_feed_event(&r->h, T0, l, strlen(l));
                if (!strncmp(l, prefix, strlen(prefix))) {
                        n++;
                        snprintf(ret_line, GPU_RULES_LINE, "%s", l);
                }
        }
        return n;
}

static enum health_state state_of(const struct health *h, const char *name)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->e[i].name, name))
                        return h->e[i].state;
        return HEALTH_HEALTHY;
}

static enum event_action action_of(const struct health *h, const char *name)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->e[i].name, name))
                        return h->e[i].action;
        return EA_NONE;
}

/* Pending retirement: one GPU_MEMORY line, gpu0.memory unhealthy (reset the GPU);
 * nothing more while it lasts; back to ok clears it, and its return soon after
 * escalates; an ECC mode change is degraded until the reset; a failed remapping asks
 * for the part's replacement. */
static void test_memory_lines_and_health(void **state)
{
        (void)state;
        struct rig *r = rig_new();
        struct gpu_frame g;
        char line[GPU_RULES_LINE];
        clear(&g);
        g.ecc_mode = g.ecc_mode_pending = 1;
        g.retired_pending = 0;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 0);
        g.retired_pending = 1;
        g.retired_sbe = 2;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 1);
        assert_string_equal(line, "type=GPU_MEMORY gpu=0 state=retirement_pending "
                                  "remap_pending=na remap_failure=na retired_pending=1 "
                                  "retired_sbe=2 retired_dbe=na ecc_mode=1 ecc_mode_pending=1");
        assert_int_equal(state_of(&r->h, "gpu0.memory"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(&r->h, "gpu0.memory"), EA_RESET_GPU);
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 0);
        g.retired_pending = 0;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 1);
        assert_int_equal(state_of(&r->h, "gpu0.memory"), HEALTH_HEALTHY);
        /* back within the escalation window of that reset: inspect the hardware */
        g.retired_pending = 1;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 1);
        assert_int_equal(state_of(&r->h, "gpu0.memory"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(&r->h, "gpu0.memory"), EA_INSPECT_HARDWARE);
        free(r);
        r = rig_new();
        g.retired_pending = 0;
        g.ecc_mode_pending = 0;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 1);
        assert_int_equal(state_of(&r->h, "gpu0.memory"), HEALTH_DEGRADED);
        assert_int_equal(action_of(&r->h, "gpu0.memory"), EA_RESET_GPU);
        g.remap_failure = 1;
        assert_int_equal(step(r, &g, "type=GPU_MEMORY", line), 1);
        assert_int_equal(state_of(&r->h, "gpu0.memory"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(&r->h, "gpu0.memory"), EA_REPLACE_PART);
        free(r);
}

/* A GPU at x8 of x16 from its first sample: one PCIE_LINK line, gpu0.pcie degraded
 * (inspect the hardware); at x16 again: cleared. */
static void test_link_lines_and_health(void **state)
{
        (void)state;
        struct rig *r = rig_new();
        struct gpu_frame g;
        char line[GPU_RULES_LINE];
        clear(&g);
        g.pstate = 0;
        g.pcie_gen = g.pcie_max_gen = 4;
        g.pcie_width = 8;
        g.pcie_max_width = 16;
        assert_int_equal(step(r, &g, "type=PCIE_LINK", line), 1);
        assert_string_equal(
            line, "type=PCIE_LINK gpu=0 state=degraded gen=4 width=8 max_gen=4 max_width=16");
        assert_int_equal(state_of(&r->h, "gpu0.pcie"), HEALTH_DEGRADED);
        assert_int_equal(action_of(&r->h, "gpu0.pcie"), EA_INSPECT_HARDWARE);
        assert_int_equal(step(r, &g, "type=PCIE_LINK", line), 0);
        g.pcie_width = 16;
        assert_int_equal(step(r, &g, "type=PCIE_LINK", line), 1);
        assert_int_equal(state_of(&r->h, "gpu0.pcie"), HEALTH_HEALTHY);
        free(r);
}

/* The health reasons name whose work was on the GPU: the workloads of its last process
 * list, not another GPU's; a list without workloads forgets them. */
static void test_reason_names_workloads(void **state)
{
        (void)state;
        struct health *h = calloc(1, sizeof(*h));
        assert_non_null(h);
        health_init(h, "", xid_event_action, NULL);
        const char *const lines[] = {
            "type=GPU_PROCESSES gpu=1 reason=start compute=1 graphics=0 pids=9:python3 "
            "workloads=9=slurm:77.0",
            "type=GPU_PROCESSES gpu=0 reason=start compute=1 graphics=0 pids=4242:python3 "
            "workloads=4242=pod:ml-team/train-0:4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:7d3f8a9b2c1e",
            "type=PCIE_LINK gpu=0 state=degraded gen=4 width=8 max_gen=4 max_width=16",
            "type=GPU_PROCESSES gpu=1 reason=interval compute=1 graphics=0 pids=10:sh",
            "type=PCIE_LINK gpu=1 state=degraded gen=4 width=8 max_gen=4 max_width=16",
        };
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
                health_feed_event(h, T0, lines[i], strlen(lines[i]));
        const char *r0 = NULL, *r1 = NULL;
        for (size_t i = 0; i < h->n; i++) {
                if (!strcmp(h->e[i].name, "gpu0.pcie"))
                        r0 = h->e[i].reason;
                if (!strcmp(h->e[i].name, "gpu1.pcie"))
                        r1 = h->e[i].reason;
        }
        assert_non_null(r0);
        assert_non_null(r1);
        assert_string_equal(r0, "GPU 0: PCIe link degraded: gen 4 x8 of gen 4 x16 (workloads "
                                "4242=pod:ml-team/train-0:4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:"
                                "7d3f8a9b2c1e)");
        assert_string_equal(r1, "GPU 1: PCIe link degraded: gen 4 x8 of gen 4 x16");
        free(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_memory_condition),
            cmocka_unit_test(test_link_degraded),
            cmocka_unit_test(test_memory_lines_and_health),
            cmocka_unit_test(test_link_lines_and_health),
            cmocka_unit_test(test_reason_names_workloads),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
