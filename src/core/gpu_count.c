/* SPDX-License-Identifier: Apache-2.0 */
/* The expected GPU count and the GPUs answering. See gpu_count.h.
 *   gpus=2   (the state file's line it reads back) */
#include "core/gpu_count.h"
#include "util/hot.h"

static const char *const from_names[] = {"none", "config", "state", "first-start"};

const char *gpu_expect_from_name(enum gpu_expect_from from)
{
        return (unsigned)from < sizeof(from_names) / sizeof(from_names[0]) ? from_names[from]
                                                                           : "none";
}

struct gpu_expect gpu_count_expect(int config, bool known, unsigned remembered, int seen)
{
        struct gpu_expect e = {GPU_EXPECT_NONE, 0};
        if (seen < 0)
                return e; /* --gpu none: NVML not asked, nothing to compare with */
        if (config >= 0) {
                e.from = config > 0 ? GPU_EXPECT_CONFIG : GPU_EXPECT_NONE;
                e.expected = (unsigned)config;
        } else if (known && remembered > 0) {
                e.from = GPU_EXPECT_STATE;
                e.expected = remembered;
        } else if (seen > 0) {
                e.from = GPU_EXPECT_NOW;
                e.expected = (unsigned)seen;
        }
        return e;
}

unsigned gpu_count_remember(bool known, unsigned remembered, int seen, bool *ret_known)
{
        unsigned n = known ? remembered : 0;
        if (seen > 0 && (unsigned)seen > n)
                n = (unsigned)seen;
        *ret_known = known || seen > 0;
        return n;
}

VIGIL_HOT unsigned gpu_count_answering(unsigned counted, const struct frame *f)
{
        unsigned failing = 0;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS; i++)
                failing += f->gpus[i].present && f->gpus[i].consecutive_failures > 0;
        return failing < counted ? counted - failing : 0;
}

VIGIL_HOT enum gpu_count_change gpu_count_step(struct gpu_count_state *st,
                                               const struct gpu_expect *e, unsigned answering)
{
        bool missing = e->from != GPU_EXPECT_NONE && answering < e->expected;
        st->started = true;
        if (missing == st->missing)
                return GPU_COUNT_SAME;
        st->missing = missing;
        return missing ? GPU_COUNT_MISSING : GPU_COUNT_BACK;
}
