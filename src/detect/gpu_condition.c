/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU's memory and link conditions. See gpu_condition.h. */
#include "detect/gpu_condition.h"

#include "core/frame_fields.h"
#include "util/hot.h"

/* A 0/1 value NVML gave as set. */
static bool is_set(double v)
{
        return VAL_OK(v) && v != 0;
}

VIGIL_HOT enum gpu_memory_cond gpu_memory_condition(const struct gpu_frame *g)
{
        if (is_set(g->remap_failure))
                return GMC_REMAP_FAILED;
        if (is_set(g->remap_pending))
                return GMC_REMAP_PENDING;
        if (is_set(g->retired_pending))
                return GMC_RETIREMENT_PENDING;
        if (VAL_OK(g->ecc_mode) && VAL_OK(g->ecc_mode_pending) &&
            g->ecc_mode != g->ecc_mode_pending)
                return GMC_ECC_MODE_PENDING;
        return GMC_OK;
}

const char *gpu_memory_cond_name(enum gpu_memory_cond c)
{
        switch (c) {
        case GMC_ECC_MODE_PENDING:
                return "ecc_mode_pending";
        case GMC_RETIREMENT_PENDING:
                return "retirement_pending";
        case GMC_REMAP_PENDING:
                return "remap_pending";
        case GMC_REMAP_FAILED:
                return "remap_failed";
        case GMC_OK:
        default:
                return "ok";
        }
}

VIGIL_HOT bool gpu_link_degraded(struct gpu_link_judge *j, const struct gpu_frame *g)
{
        if (VAL_OK(g->pstate) && g->pstate == 0 && VAL_OK(g->pcie_gen) && VAL_OK(g->pcie_max_gen))
                j->gen_low = g->pcie_gen < g->pcie_max_gen;
        if (VAL_OK(g->pcie_width) && VAL_OK(g->pcie_max_width))
                j->narrow = g->pcie_width < g->pcie_max_width;
        return j->narrow || j->gen_low;
}
