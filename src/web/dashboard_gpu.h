/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's GPU parts (internal to web/dashboard*.c): a GPU's line in the
 * current values and its chart group. */
#ifndef VIGIL_WEB_DASHBOARD_GPU_H
#define VIGIL_WEB_DASHBOARD_GPU_H

#include "core/frame.h"
#include "web/dashboard_chart.h"
#include "util/strbuf.h"

/* The current values of GPU slot g of f as one row of the values table. */
void dash_gpu_now(struct strbuf *out, const struct frame *f, unsigned g);

/* With two GPUs or more: one small chart per GPU (temperature, power, lost periods,
 * throttle reasons), before the per-GPU detail. */
void dash_gpu_overview(struct dash *d);

/* GPU slot g's heading, a banner while it is lost, and its charts. */
void dash_gpu_group(struct dash *d, unsigned g);

#endif
