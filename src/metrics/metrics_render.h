/* SPDX-License-Identifier: Apache-2.0 */
/* The /metrics renderer's state, shared by metrics/metrics.c (the frame's values),
 * metrics/metrics_counters.c (what is counted outside them), metrics/metrics_storage.c,
 * metrics/metrics_signage.c, the table walker (metrics/metrics_table.c) and the line
 * writer (metrics/metrics_line.c). Private to metrics/. */
#ifndef VIGIL_METRICS_METRICS_RENDER_H
#define VIGIL_METRICS_METRICS_RENDER_H

#include <stdbool.h>

#include "core/counters.h"
#include "core/fields.h"
#include "core/frame.h"
#include "metrics/metrics.h"
#include "util/strbuf.h"

/* The family being written: its header goes out with its first sample. broken: the
 * code and an area's table disagree (no sample is written, the render fails). The
 * output is the text in sb, or, with visit set, one call of visit per sample (sb then
 * only carries the overflow flag of a series key too long to write). */
struct render;
/* The render function of a code row (MR_CODE) of an area's table: its family's samples
 * from f, labelled by bases (as metrics_render_table passes them). */
typedef void (*metrics_code_fn)(struct render *r, const struct frame *f, const char *const *bases);

struct render {
        struct strbuf *sb;
        metrics_visit_fn visit;
        void *arg;
        const char *name;
        const char *type;
        const char *help;
        bool header_done;
        bool broken;
        const metrics_code_fn *codes; /* MC_COUNT of them, by code (metrics/metrics.c) */
};

/* What a family's samples are made of: the frame, the counters (NULL: none), and the
 * label list of each GPU slot (NULL: no GPU there). */
struct render_src {
        const struct frame *f;
        const struct counters *x;
        const char *const *gpu_bases;
};

/* The line writer (metrics/metrics_line.c). Make name (type, help) the current family;
 * its header goes out with its first sample. */
void metrics_family(struct render *r, const char *name, const char *type, const char *help);
/* One sample of the current family: name{base,key="val"} v. base is a pre-escaped
 * label list (or NULL); key/val an optional label with a raw value. NAN is skipped. */
void metrics_sample(struct render *r, const char *base, const char *key, const char *val, double v);
/* The families of an area's table t[0..n) (core/fields.h), in its order, over count
 * objects of the area's struct at objs, stride bytes apart: a series row samples each
 * object's member, labelled by bases[i] (NULL: object i is skipped; bases NULL: no
 * labels); a code row calls r->codes[its code] with f and bases (a missing one marks
 * the render broken). metrics/metrics_table.c. */
void metrics_render_table(struct render *r, const struct frame *f, const struct field_desc *t,
                          size_t n, const void *objs, size_t stride, unsigned count,
                          const char *const *bases);
#define METRICS_FS_LABELS_MAX 512 /* bytes of one file system's label list */
/* The label list of each file system of f (metrics/metrics_storage.c) into labs[i], and
 * bases[i] pointing at it (NULL when it did not fit: that file system is left out); and
 * the render function of the storage code family (MC_STORAGE_ERRORS). */
void metrics_storage_bases(const struct frame *f, char (*labs)[METRICS_FS_LABELS_MAX],
                           const char **bases);
void metrics_storage_errors(struct render *r, const struct frame *f, const char *const *bases);
/* The card's families (struct sd_frame), labelled device="mmcblk0", and the render
 * function of its identity family (MC_SD_INFO); nothing without a card. */
void metrics_render_sd(struct render *r, const struct frame *f);
void metrics_sd_info(struct render *r, const struct frame *f, const char *const *bases);

/* The screens' and the network's families (metrics/metrics_signage.c), and the render
 * function of the monitor's identity family (MC_DISPLAY_INFO). */
void metrics_render_display(struct render *r, const struct frame *f);
void metrics_render_net(struct render *r, const struct frame *f);
void metrics_display_info(struct render *r, const struct frame *f, const char *const *bases);

/* Every family of what is counted outside the frame's values, in the table's order
 * (metrics/metrics_counters.c). */
void metrics_render_counters(struct render *r, const struct render_src *s);

#endif
