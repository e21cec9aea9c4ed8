/* SPDX-License-Identifier: Apache-2.0 */
/* The host row (core/host_row.h) as the host log's CSV: the reference monitor's
 * columns in its order and formats, then vigil's, then each own-column watch's four. */
#ifndef VIGIL_ENCODE_HOST_ROW_CSV_H
#define VIGIL_ENCODE_HOST_ROW_CSV_H

#include "core/host_row.h"
#include "util/strbuf.h"

/* The CSV header for ncpu cores and r's watches, ending with '\n'. */
void host_row_header(struct strbuf *out, unsigned ncpu, const struct host_row *r);
/* One CSV row for ncpu cores (the file's header width), ending with '\n'. Missing
 * values are empty cells. */
void host_row_csv(struct strbuf *out, const struct host_row *r, unsigned ncpu);

#endif
