/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness: the report's CSV reader, cell and time-stamp parsers on any bytes.
 * Build: clang -fsanitize=fuzzer,address,undefined -Isrc fuzz/fuzz_csv_read.c
 *        build/libvigil.a -lz -lm */
#include <stddef.h>
#include <stdint.h>

#include "report/csv_read.h"
#include "report/tstamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct csv_reader r;
        struct tstamp_cache tc = {0};
        if (csv_reader_mem(&r, (const char *)data, size) < 0)
                return 0;
        /* Small refills split records at every place. */
        r.read_max = size % 61 + 1;
        double sink = 0;
        while (csv_reader_next(&r) == 1) {
                for (unsigned i = 0; i < r.nfields; i++) {
                        double v = csv_cell_double(&r.f[i]);
                        if (v == v)
                                sink += v;
                }
                double t;
                if (r.nfields && tstamp_parse(&tc, r.f[0].s, r.f[0].len, &t) == 0)
                        sink += t;
        }
        csv_reader_close(&r);
        return sink == 12345.678;
}
