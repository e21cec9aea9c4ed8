/* SPDX-License-Identifier: Apache-2.0 */
/* GPU CSV rows. See gpu_row.h. */
#include "encode/gpu_row.h"

#include "encode/gpu_columns.h"
#include "core/throttle_reasons.h"
#include "util/hot.h"

unsigned gpu_row_columns(unsigned nfans)
{
        return gpu_csv_columns(GPU_CSV_DAILY, nfans);
}

void gpu_row_header(struct strbuf *sb, unsigned nfans)
{
        gpu_csv_header(sb, GPU_CSV_DAILY, nfans);
}

VIGIL_HOT void gpu_row_csv(struct strbuf *sb, const struct gpu_frame *g, unsigned nfans,
                           struct fmt_sec_cache *ts_cache)
{
        const struct gpu_csv_style st = {
            .file = GPU_CSV_DAILY,
            .nfans = nfans,
            .mask_names = throttle_decode,
            .ts_cache = ts_cache,
        };
        gpu_csv_row(sb, g, NULL, &st);
}
