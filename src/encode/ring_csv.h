/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder's dump (core/ring.h) as the GPU CSV: the columns of the
 * GPU_CSV_RECORDER file (encode/gpu_columns.h), each stored sample unpacked into a frame
 * and written by the same row writer as the daily CSV. */
#ifndef VIGIL_ENCODE_RING_CSV_H
#define VIGIL_ENCODE_RING_CSV_H

#include <stddef.h>

#include "core/ring.h"
#include "util/strbuf.h"

/* The CSV header of the dump: the reference logger's GPU columns in its order
 * (without throttle_reasons), fanK columns for the ring's fans, then flags. */
void ring_csv_header(const struct gpu_ring *r, struct strbuf *out);
/* Sample i as one CSV row ending in '\n', in the reference's formats (timestamp
 * "YYYY/MM/DD HH:MM:SS.mmm" local time, power "%.2f", limit "%.0f", throttle
 * "0x%04x"); missing values are empty cells; a failed sample is the timestamp, empty
 * cells and "NVML_FAILED:<error>" in flags. */
void ring_csv_row(const struct gpu_ring *r, size_t i, struct strbuf *out);
/* Header and rows first..count-1 (oldest first) into out until out would overflow;
 * returns the index of the first row not written (count when all were), so a
 * caller can stream a large ring through a small buffer:
 *   for (size_t i = 0; i < n; ) { sb_reset(&sb); i = ring_write_csv(r, i, &sb); put(sb); }
 * The header is written when first is 0. */
size_t ring_write_csv(const struct gpu_ring *r, size_t first, struct strbuf *out);

#endif
