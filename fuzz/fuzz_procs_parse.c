/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the /proc/PID parsers of process watches (collect/procs_parse.c):
 * stat (procs_parse_stat), smaps_rollup's Pss (procs_parse_pss_kb), and a command line's
 * normalisation and match (procs_cmdline_normalize, procs_cmdline_match). */
#include <stdlib.h>
#include <string.h>

#include "collect/procs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *)data;
        struct proc_stat st;
        if (procs_parse_stat(s, size, &st) == 0 && strnlen(st.comm, sizeof(st.comm)) >= 64)
                __builtin_trap();
        uint64_t kb;
        procs_parse_pss_kb(s, size, &kb);

        /* The command line is normalised in place: work on a copy, both ways. */
        char *buf = malloc(size + 1);
        if (!buf)
                return 0;
        for (int truncated = 0; truncated < 2; truncated++) {
                memcpy(buf, data, size);
                size_t n = procs_cmdline_normalize(buf, size, truncated);
                if (n > size)
                        __builtin_trap();
                procs_cmdline_match(buf, n, "chromium");
                if (n > 0) {
                        /* A command line contains its own last byte. */
                        char pat[2] = {buf[n - 1], '\0'};
                        if (pat[0] && !procs_cmdline_match(buf, n, pat))
                                __builtin_trap();
                }
        }
        free(buf);
        return 0;
}
