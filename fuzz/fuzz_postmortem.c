/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the post-mortem's parsers of outside text: the run state file
 * (core/runstate.c), a CSV row split into cells (report/pm_csv.c) and the ranking of a
 * previous boot's kernel log (report/pm_klog.c), the GPUs' AER lines first
 * (util/aer_line.c: the devices the state names, else one), all pure. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/runstate.h"
#include "report/pm_csv.h"
#include "report/pm_klog.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        struct runstate st;
        const char *cell[16];
        size_t len[16];
        struct strbuf sb;
        struct pm_klog_gpus gpus = {.n = 1, .bdf = {"0000:01:00.0"}};
        if (runstate_parse(s, size, &st) == 0) {
                if (st.nbus > RUNSTATE_MAX_BUS)
                        __builtin_trap();
                for (unsigned i = 0; i < st.nbus; i++)
                        if (strlen(st.gpu_bus[i]) != AER_BDF_LEN - 1)
                                __builtin_trap();
                if (st.nbus) {
                        gpus.n = st.nbus;
                        memcpy(gpus.bdf, st.gpu_bus, sizeof(st.gpu_bus[0]) * st.nbus);
                }
                if (st.boot_id[0] && strlen(st.boot_id) != 36)
                        __builtin_trap();
                sb_init_heap(&sb, 256, RUNSTATE_MAX_BYTES);
                runstate_format(&st, &sb);
                sb_free(&sb);
        }
        unsigned n = pm_csv_split(s, size, cell, len, 16);
        for (unsigned i = 0; i < n; i++)
                if (cell[i] < s || cell[i] + len[i] > s + size)
                        __builtin_trap();
        if (sb_init_heap(&sb, 4096, 1 << 20) == 0) {
                pm_klog_rank(&sb, s, size, &gpus);
                sb_free(&sb);
        }
        return 0;
}
